/** Slash-command text as users type it, after Slack's own escaping. */

/** Undo Slack's escaping of links, e-mails and user/channel mentions, and its HTML entities. */
export function unescapeSlack(text: string): string {
  return text
    .replace(/<mailto:[^|>]+\|([^>]+)>/g, '$1')
    .replace(/<mailto:([^>]+)>/g, '$1')
    .replace(/<(https?:\/\/[^|>]+)\|[^>]*>/g, '$1')
    .replace(/<(https?:\/\/[^>]+)>/g, '$1')
    .replace(/<([@#][A-Z0-9]+)\|[^>]*>/g, '$1')
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
