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
  // A status the service added since: its own name, in words, rather than "unknown".
  if (word === 'status unknown' && status?.trim()) return status.trim().replace(/_/g, ' ').toLowerCase();
  return word;
}
