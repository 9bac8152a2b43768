/**
 * The one set of words for where a deposit or transaction stands, for alerts, /tx, the digest
 * and the Home tab alike. The wallet service speaks two dialects (webhooks: PENDING,
 * CONFIRMED, FAILED, NOT_PROPAGATED…; the transaction list: Successful, Failed, and in the
 * public SDK Pending 0 and Initiated 3): a person sees only these: pending, confirmed, failed
 * (and "status unknown"). Codes and numeric strings of the transaction list are not read here:
 * the wallet client turns them into names first.
 */
export type StatusWord = 'pending' | 'confirmed' | 'failed' | 'status unknown';

const WORDS: Readonly<Record<string, StatusWord>> = {
  ABOUT_TO_INITIATE: 'pending',
  PENDING: 'pending',
  INITIATED: 'pending',
  CONFIRMED: 'confirmed',
  SUCCESSFUL: 'confirmed',
  SUCCESS: 'confirmed',
  FAILED: 'failed',
  FAILURE: 'failed',
  NOT_PROPAGATED: 'failed',
};

const EMOJI: Readonly<Record<StatusWord, string>> = {
  pending: ':hourglass_flowing_sand:',
  confirmed: ':white_check_mark:',
  failed: ':x:',
  'status unknown': ':grey_question:',
};

/** Any status name of the service (either dialect, any case) to its word. */
export function statusWord(status: string | undefined | null): StatusWord {
  if (!status) return 'status unknown';
  return (
    WORDS[
      status
        .trim()
        .toUpperCase()
        .replace(/[\s-]+/g, '_')
    ] ?? 'status unknown'
  );
}

export function statusEmoji(status: string | undefined | null): string {
  return EMOJI[statusWord(status)];
}

/** What a failure was, in words: "failed", or "failed: never reached the network". */
export function statusDetail(status: string | undefined | null): string {
  const word = statusWord(status);
  if (status?.toUpperCase() === 'NOT_PROPAGATED') return 'failed: never reached the network';
  if (word === 'pending' && status?.toUpperCase() === 'ABOUT_TO_INITIATE') return 'pending: about to start';
  if (word === 'pending' && status?.trim().toUpperCase() === 'INITIATED') return 'pending: initiated';
  // A status the service added since: its own name, in words, rather than "unknown". Only its
  // letters, digits, spaces and hyphens, cut: a status is outside text (a webhook is a claim
  // anyone who learns its URL can make), so it never carries mrkdwn, a line break or a link
  // (no dot either: Slack would link "evil.com").
  if (word === 'status unknown' && status?.trim()) return statusWords(status) || word;
  return word;
}

/** Longest status text shown as the service wrote it. */
const STATUS_WORDS_MAX = 40;

/** "NEW_STATE" → "new state"; "<!channel> <https://x|y>" → "channel https x y". */
function statusWords(status: string): string {
  const words = status
    .slice(0, 4 * STATUS_WORDS_MAX)
    .replace(/[^\p{L}\p{N}-]+/gu, ' ')
    .trim()
    .toLowerCase();
  return Array.from(words).length <= STATUS_WORDS_MAX
    ? words
    : `${Array.from(words)
        .slice(0, STATUS_WORDS_MAX - 1)
        .join('')
        .trimEnd()}…`;
}
