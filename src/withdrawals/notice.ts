/**
 * A withdrawal notification (webhook) is a claim, never a fact (invariant 14): the wallet
 * service signs nothing, so whoever learns the webhook URL can post any status for any of our
 * references. Pure decisions here; the shell (reconcile.ts) asks the service and passes its
 * answer in.
 *
 * - `notice`: the claim is recorded on the request (`notice`, waiting) and changes nothing else:
 *   no state, no `confirmation`, no result. It is the prompt to ask the service.
 * - `service-word`: what the service itself answered (its status for our reference, or its
 *   transaction list) becomes the transfer status shown (`confirmation`); a final answer against
 *   our own final state is a `contradiction` for the admins.
 * - `notice-verdict`: the claim compared with that answer. Agreeing, it stops waiting; a
 *   contradiction (FAILED while the service says Completed, CONFIRMED while it says Failed, a
 *   withdrawal it has no record of) is audited every time and told to the admins once per
 *   request ("it may be forged"), never dropped silently.
 *
 * An unknown outcome is settled by the service's answer alone (settle-by-status.ts, the list's
 * record in decide/settle.ts), in the same commit as the verdict.
 */
import { WEBHOOK_STATUSES, lookup } from '../wallet/enums.js';
import type { WithdrawalStatus } from '../wallet/client/withdrawal-status.js';
import type { Decision } from './decide/index.js';
import { about } from './rules.js';
import { sentAt } from './settle-by-status.js';
import { SYSTEM, type WithdrawalRequest } from './types.js';
import type { ListedTransaction } from './wallet-answer.js';

/** Longest claimed status or hash kept: enough for any real one, and a forged novel stays out of the store. */
const CLAIM_MAX = 120;

/** What the wallet service itself says of one reference, from its status operation or its transaction list. */
export interface ServiceWord {
  via: 'status' | 'list';
  status: 'completed' | 'failed' | 'pending' | 'not_found';
  transactionHash: string | null;
}

export const wordOfStatus = (s: WithdrawalStatus): ServiceWord => ({
  via: 'status',
  status: s.status,
  transactionHash: s.transactionHash,
});

/** A listed record proves the service has it; one whose status cannot be read says no more than Pending. */
export const wordOfListed = (t: ListedTransaction): ServiceWord => ({
  via: 'list',
  status: t.status === 'successful' ? 'completed' : t.status === 'failed' ? 'failed' : 'pending',
  transactionHash: t.hash,
});

/** The service's word in its own names, for the audit log and the admins. */
export const SERVICE_NAMES: Readonly<Record<ServiceWord['status'], string>> = {
  completed: 'Completed',
  failed: 'Failed',
  pending: 'Pending',
  not_found: 'NotFound',
};

/** The transfer status shown, in the webhook vocabulary the card already speaks. */
const CONFIRMATION_OF: Readonly<Record<ServiceWord['status'], string | undefined>> = {
  completed: 'CONFIRMED',
  failed: 'FAILED',
  pending: 'PENDING',
  not_found: undefined,
};

/** A claimed status: its TransactionStatus name when known, else its text as sent (trimmed, cut). */
export function claimedStatus(raw: unknown): string {
  const known = lookup(WEBHOOK_STATUSES, raw)?.name;
  if (known) return known;
  const text = raw === null || raw === undefined ? '' : String(raw).trim();
  return text.length > CLAIM_MAX ? text.slice(0, CLAIM_MAX) : text;
}

const claimedHash = (raw: unknown): string | null => {
  const text = typeof raw === 'string' ? raw.trim() : '';
  return text && text.length <= CLAIM_MAX ? text : null;
};

/** Claims kept unjudged behind the latest one. */
const EARLIER_MAX = 4;

const isFailureClaim = (s: string) => s === 'FAILED' || s === 'NOT_PROPAGATED';

/** A notification's claim, recorded for asking; it decides nothing. */
export function decideNotice(
  c: { status: unknown; transactionHash?: unknown },
  cur: WithdrawalRequest | undefined,
  at: string,
): Decision {
  if (!cur) return { kind: 'unchanged', request: cur };
  const status = claimedStatus(c.status);
  const hash = claimedHash(c.transactionHash);
  const prev = cur.notice;
  // The same claim again (a retry, a duplicate): nothing new to ask about.
  if (prev && prev.status === status && (hash === null || hash === prev.transactionHash))
    return { kind: 'unchanged', request: cur };
  // A claim replaced before the service was asked about it is still judged (a forged FAILED followed
  // at once by the genuine CONFIRMED must not slip by): the last few are kept with the new one.
  const earlier = prev?.waiting
    ? [...(prev.earlier ?? []), prev.status]
        .filter((x, i, all) => x !== status && all.indexOf(x) === i)
        .slice(-EARLIER_MAX)
    : [];
  const notice = {
    status,
    transactionHash: hash ?? (prev?.status === status ? prev.transactionHash : null),
    at,
    waiting: true,
    ...(earlier.length ? { earlier } : {}),
    ...(prev?.disagreed ? { disagreed: prev.disagreed } : {}),
  };
  return {
    kind: 'changed',
    next: { ...cur, notice },
    audit: {
      at,
      actor: SYSTEM,
      action: 'webhook',
      subject: cur.id,
      details: {
        ...about(cur),
        status: status || null,
        transactionHash: notice.transactionHash,
        state: cur.state,
        claim: 'unverified: the wallet service is asked before anything changes',
      },
    },
    event: 'notice',
  };
}

/** The service's own answer as the transfer status shown; against our final state, a contradiction. */
export function decideServiceWord(word: ServiceWord, cur: WithdrawalRequest | undefined, at: string): Decision {
  const status = CONFIRMATION_OF[word.status];
  if (!cur || !status) return { kind: 'unchanged', request: cur };
  const prev = cur.confirmation;
  const hash = word.transactionHash ?? (prev?.status === status ? prev.transactionHash : null);
  if (prev?.status === status && prev.transactionHash === hash) return { kind: 'unchanged', request: cur };
  let next: WithdrawalRequest = { ...cur, confirmation: { status, transactionHash: hash, updatedAt: at } };
  if (next.result && !next.result.transactionHash && hash)
    next = { ...next, result: { ...next.result, transactionHash: hash } };
  // The service's final word against ours (sent but Failed there, refused or never executed here but Completed there).
  const contradicts =
    (cur.state === 'completed' && status === 'FAILED') || (cur.state === 'failed' && status === 'CONFIRMED');
  return {
    kind: 'changed',
    next,
    audit: {
      at,
      actor: SYSTEM,
      action: contradicts ? 'service_contradiction' : 'service_status',
      subject: cur.id,
      details: {
        ...about(cur),
        status,
        service: SERVICE_NAMES[word.status],
        via: word.via,
        transactionHash: hash,
        state: cur.state,
      },
    },
    event: contradicts ? 'contradiction' : 'confirmation',
  };
}

/**
 * Whether the service's answer contradicts the claim. NotFound contradicts any claim once the
 * service should know the withdrawal (never sent, found never executed, or sent longer ago than
 * the grace); Pending, or NotFound just after sending, is no answer yet.
 */
export function noticeVerdict(
  claim: string,
  word: ServiceWord,
  cur: WithdrawalRequest,
  ctx: { now: number; graceMs: number },
): 'agrees' | 'disagrees' | 'waiting' {
  switch (word.status) {
    case 'pending':
      return 'waiting';
    case 'completed':
      return isFailureClaim(claim) ? 'disagrees' : 'agrees';
    case 'failed':
      return claim === 'CONFIRMED' ? 'disagrees' : 'agrees';
    case 'not_found': {
      const inFlight = cur.state === 'executing' || cur.state === 'unknown';
      return inFlight && ctx.now - sentAt(cur) < ctx.graceMs ? 'waiting' : 'disagrees';
    }
  }
}

/** The waiting claim judged against the service's answer: stops waiting; a contradiction is audited, and told once. */
export function decideNoticeVerdict(
  word: ServiceWord,
  cur: WithdrawalRequest | undefined,
  ctx: { now: number; graceMs: number },
): Decision {
  const notice = cur?.notice;
  if (!cur || !notice?.waiting) return { kind: 'unchanged', request: cur };
  // Every claim made since the last answer is judged; one contradiction is enough.
  const claims = [notice.status, ...(notice.earlier ?? [])];
  const verdicts = claims.map((claim) => noticeVerdict(claim, word, cur, ctx));
  const against = claims[verdicts.indexOf('disagrees')];
  const verdict = against !== undefined ? 'disagrees' : verdicts.includes('waiting') ? 'waiting' : 'agrees';
  if (verdict === 'waiting') return { kind: 'unchanged', request: cur };
  const at = new Date(ctx.now).toISOString();
  const service = SERVICE_NAMES[word.status];
  const { earlier: _judged, ...judged } = notice;
  const details = { ...about(cur), status: against ?? notice.status ?? null, service, via: word.via, state: cur.state };
  if (verdict === 'agrees')
    return {
      kind: 'changed',
      next: { ...cur, notice: { ...judged, waiting: false } },
      audit: { at, actor: SYSTEM, action: 'webhook_checked', subject: cur.id, details },
      event: 'notice',
    };
  const first = !notice.disagreed;
  return {
    kind: 'changed',
    next: {
      ...cur,
      notice: { ...judged, waiting: false, disagreed: notice.disagreed ?? { at, status: against ?? '', service } },
    },
    audit: {
      at,
      actor: SYSTEM,
      action: 'notice_contradiction',
      subject: cur.id,
      details: {
        ...details,
        reason: 'a notification disagreed with the wallet service: it may be forged',
        ...(first ? {} : { toldBefore: notice.disagreed!.at }),
      },
    },
    // The admins are told once per request; later contradictions are in the audit log.
    event: first ? 'notice-disagreed' : 'notice',
  };
}
