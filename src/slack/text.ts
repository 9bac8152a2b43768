/** Slash-command text as users type it, after Slack's own escaping. */

/**
 * Undo Slack's escaping of links, e-mails and user/channel/group mentions, and its HTML entities.
 * A mention becomes what a person saw when typing it: `<@U0ADA|ada>` → `@ada`, `<#C01|incident>` →
 * `#incident`, `<!subteam^S1|@finance>` → `@finance` (the id only when Slack sent no label). A
 * `<!here>` stays as typed. The result is plain text: wherever it is shown it is escaped
 * (src/format/outside.ts), so it can never become a mention or a link again.
 */
export function unescapeSlack(text: string): string {
  return text
    .replace(/<mailto:[^|>]+\|([^>]+)>/g, '$1')
    .replace(/<mailto:([^>]+)>/g, '$1')
    .replace(/<(https?:\/\/[^|>]+)\|[^>]*>/g, '$1')
    .replace(/<(https?:\/\/[^>]+)>/g, '$1')
    .replace(/<([@#])[A-Z0-9]+\|([^>]+)>/g, (_m, sigil: string, name: string) => `${sigil}${name.replace(/^[@#]/, '')}`)
    .replace(/<([@#][A-Z0-9]+)>/g, '$1')
    .replace(/<!subteam\^[A-Z0-9]+\|@?([^>]+)>/g, '@$1')
    .replace(/<!subteam\^([A-Z0-9]+)>/g, '@$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Whitespace-separated words; Slack turns smart quotes and non-breaking spaces into odd characters. */
export function words(text: string): string[] {
  return unescapeSlack(text)
    .replace(/\u00a0/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
}

/** A user mention exactly as Slack sends it: the only text that is a user id as it is. */
const USER_MENTION = /(<@[UW][A-Z0-9]+(?:\|[^>]*)?>)/;

/**
 * Like `words`, but a user mention Slack sent (`<@U123|dave>`) stays whole, one word: for a verb
 * that takes a person, who must be the one picked, not whoever has the label as a name. A mention
 * typed out by hand arrives escaped (`&lt;@U123&gt;`) and is a plain word like any other.
 */
export function wordsKeepingMentions(text: string): string[] {
  // Angle brackets decoded from entities are dropped, so typed text never reads as a token.
  return text
    .split(USER_MENTION)
    .flatMap((part, i) => (i % 2 === 1 ? [part] : words(part).map((w) => w.replace(/[<>]/g, ''))))
    .filter(Boolean);
}
