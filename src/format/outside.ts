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
 * - `outsideCode(text, max)`: outside text as a mrkdwn code span (addresses, hashes, references):
 *   one line, cut, entities, inside backticks, every backtick of the text replaced by a look-alike
 *   so the span cannot be closed early (marks need nothing there: a code span does not format).
 * - `outsidePlain(text, max)`: for plain_text objects (headers, buttons, modal titles, option
 *   labels) and files: one line, no control characters, cut; no entities (Slack shows plain_text
 *   as it is).
 * - `outsideCell(text, max)`: for CSV cells (exports): readable text (no entities), one line, no
 *   control characters, cut, and a leading `=`, `+`, `-`, `@` (a spreadsheet formula) guarded
 *   with an apostrophe.
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

const entities = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Outside text made safe for mrkdwn: see the module comment. */
export function outside(text: unknown, max: number = OUTSIDE_MAX): string {
  return (
    entities(oneLine(text, max))
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

/** Outside text as a mrkdwn code span: see the module comment. */
export function outsideCode(text: unknown, max: number = OUTSIDE_MAX): string {
  // Inside a code span marks do not format: only the entities, and no backtick to close it early.
  return `\`${entities(oneLine(text, max)).replace(/`/g, 'ˋ')}\``;
}

/** A text a spreadsheet would run as a formula: = + - @, after any leading blanks (tab and CR included). */
const FORMULA = /^[\s]*[=+\-@]/;

/**
 * Outside text for a CSV cell: one line, no control characters, cut, no entities, and a cell a
 * spreadsheet would read as a formula prefixed with an apostrophe (OWASP's advice). Amount
 * columns that must stay numbers ("-0.1") are the caller's to exempt (src/transactions/csv.ts).
 */
export function outsideCell(text: unknown, max: number = OUTSIDE_MAX): string {
  const raw = typeof text === 'string' ? text : text == null ? '' : String(text);
  // The raw text is judged before control characters become spaces: "\t=1" is a formula too.
  const s = oneLine(raw, max);
  return FORMULA.test(raw) ? `'${s}` : s;
}
