/**
 * The one escape for text that did not come from our own code: wallet-service statuses,
 * messages, references, network and currency names, client e-mails, notes, allowlist labels,
 * people's names. A webhook is a claim whoever learns its URL can make, so such text must never
 * be able to add a mention (`<!channel>`), a link (`<https://…|…>`), a channel reference, an
 * extra line (a fake bullet), hidden direction marks (an address shown in another order), or
 * formatting that changes what a line says.
 *
 * - `outside(text, max)`: for mrkdwn (messages, App Home, modals' mrkdwn fields, audit lines
 *   shown in Slack). `&`, `<`, `>` become entities; line breaks, tabs and other control or
 *   direction characters become one space; a formatting mark (`*`, `_`, `~`, `` ` ``) standing at
 *   a word's edge (where Slack would read it as formatting) becomes its full-width look-alike;
 *   the text is cut to `max` characters with "…".
 * - `outsidePlain(text, max)`: for plain_text objects (headers, buttons, modal titles, option
 *   labels) and files: one line, no control characters, cut; no entities (Slack shows plain_text
 *   as it is).
 *
 * Cutting happens before escaping, so an entity is never cut in half; `max` counts what a
 * person sees.
 */

/** The default cut: long enough for any reference, address, hash or e-mail, short enough for a line. */
export const OUTSIDE_MAX = 200;

// Line breaks (incl. Unicode's), tabs, other C0/C1 controls, and bidirectional overrides/isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters removed
const BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

const WIDE: Record<string, string> = { '*': '\uff0a', _: '\uff3f', '~': '\uff5e', '`': '\uff40' };

function oneLine(text: unknown, max: number): string {
  const s = (typeof text === 'string' ? text : text == null ? '' : String(text)).replace(BREAKING, ' ');
  const chars = Array.from(s);
  if (chars.length <= max) return s;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Outside text made safe for mrkdwn: see the module comment. */
export function outside(text: unknown, max: number = OUTSIDE_MAX): string {
  return (
    oneLine(text, max)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      // A mark is formatting only at a word's edge: "ada_okafor" stays, "_x_" and "*x*" do not.
      .replace(/[*_~`]/g, (m, i: number, s: string) => {
        const before = i === 0 ? '' : s[i - 1]!;
        const after = s[i + 1] ?? '';
        const inWord = /[\p{L}\p{N}]/u.test(before) && /[\p{L}\p{N}]/u.test(after);
        return inWord ? m : WIDE[m]!;
      })
  );
}

/** Outside text for plain_text objects and files: one line, no control characters, cut. */
export function outsidePlain(text: unknown, max: number = OUTSIDE_MAX): string {
  return oneLine(text, max);
}
