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
 * - `notice-verdict`: every claim made since the last answer compared with that answer. Against a
 *   final answer only the matching final status (CONFIRMED for Completed; FAILED or NOT_PROPAGATED
 *   for Failed) or a non-final one (ABOUT_TO_INITIATE, PENDING) agrees; any other status, any
 *   unrecognised text, and a withdrawal it has no record of is a contradiction: audited every time
 *   and told to the admins once per request ("it may be forged"), never dropped silently.
 *
 * An unknown outcome is settled by the service's answer alone (settle-by-status.ts, the list's
 * record in decide/settle.ts), in the same commit as the verdict.
 */
import { WEBHOOK_STATUSES, WEBHOOK_STATUS_RANK, isFinalWebhookStatus, lookup } from '../wallet/enums.js';
import type { WithdrawalStatus } from '../wallet/client/withdrawal-status.js';
import type { Decision, ServiceWord } from './decide/types.js';
import { about } from './rules.js';
import { sentAt } from './settle-by-status.js';
import { decideServiceMismatch } from './service-mismatch.js';
import { SYSTEM, type ClaimCount, type Notice, type WithdrawalRequest } from './types.js';
import type { ListedTransaction } from './wallet-answer.js';

/** Longest claimed status or hash kept: enough for any real one, and a forged novel stays out of the store. */
const CLAIM_MAX = 120;

export type { ServiceWord } from './decide/types.js';

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

/** A TransactionStatus name (ABOUT_TO_INITIATE, PENDING, CONFIRMED, FAILED, NOT_PROPAGATED), as `claimedStatus` keeps it. */
export const recognisedClaim = (status: string): boolean => status in WEBHOOK_STATUS_RANK;

/** Distinct unrecognised texts kept with their counts until the service answers; more are only counted (`overflow`). */
const UNRECOGNISED_MAX = 6;

/** The claims still waiting for an answer, with their counts (a request stored before `claims`: its `earlier` ones). */
export function waitingClaims(n: Notice | undefined): ClaimCount[] {
  if (!n?.waiting) return [];
  if (n.claims) return n.claims.map((c) => ({ ...c }));
  return [...new Set([...(n.earlier ?? []), n.status])].map((status) => ({ status, count: 1 }));
}

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
  // at once by the genuine CONFIRMED, or by any number of junk claims, must not slip by): every
  // distinct status is kept with its count; unrecognised texts beyond a few are counted, and that
  // overflow is itself judged a disagreement.
  const claims = waitingClaims(prev);
  let overflow = prev?.waiting ? (prev.overflow ?? 0) : 0;
  const same = claims.find((x) => x.status === status);
  if (same) same.count++;
  else if (
    !status ||
    recognisedClaim(status) ||
    claims.filter((x) => !recognisedClaim(x.status)).length < UNRECOGNISED_MAX
  )
    claims.push({ status, count: 1 });
  else overflow++;
  const notice: Notice = {
    status,
    transactionHash: hash ?? (prev?.status === status ? prev.transactionHash : null),
    at,
    waiting: true,
    claims,
    ...(overflow ? { overflow } : {}),
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
  if (cur && word.mismatches?.length) return decideServiceMismatch(word, cur, at, SERVICE_NAMES[word.status]);
  const status = CONFIRMATION_OF[word.status];
  if (!cur || !status) return { kind: 'unchanged', request: cur };
  const prev = cur.confirmation;
  // A final answer is never replaced by a non-final one (a stale Pending, or a listed record whose
  // status cannot be read): the status shown never moves backwards, nor re-posts and re-pings.
  if (prev && isFinalWebhookStatus(prev.status) && !isFinalWebhookStatus(status))
    return { kind: 'unchanged', request: cur };
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

/** Claims that say nothing final yet: they agree with any answer of the service. */
const NOT_FINAL_CLAIMS = new Set(['ABOUT_TO_INITIATE', 'PENDING']);
/** The claims that match the service's final answers. */
const MATCHES: Readonly<Record<'completed' | 'failed', ReadonlySet<string>>> = {
  completed: new Set(['CONFIRMED']),
  failed: new Set(['FAILED', 'NOT_PROPAGATED']),
};

/**
 * Whether the service's answer contradicts the claim (`null`: an unrecognised claim not kept,
 * the overflow). Against Completed or Failed only the matching final status or a non-final one
 * agrees: any other final, any unrecognised text, no status at all disagrees. NotFound contradicts
 * any claim once the service should know the withdrawal (never sent, found never executed, or sent
 * longer ago than the grace); Pending, or NotFound just after sending, is no answer yet.
 */
export function noticeVerdict(
  claim: string | null,
  word: ServiceWord,
  cur: WithdrawalRequest,
  ctx: { now: number; graceMs: number },
): 'agrees' | 'disagrees' | 'waiting' {
  switch (word.status) {
    case 'pending':
      return 'waiting';
    case 'completed':
    case 'failed':
      return claim !== null && (MATCHES[word.status].has(claim) || NOT_FINAL_CLAIMS.has(claim))
        ? 'agrees'
        : 'disagrees';
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
  // Every claim made since the last answer is judged (the overflow too); one contradiction is enough.
  const claims = waitingClaims(notice);
  const overflow = notice.overflow ?? 0;
  const judgedClaims: Array<string | null> = [...claims.map((c) => c.status), ...(overflow ? [null] : [])];
  const verdicts = judgedClaims.map((claim) => noticeVerdict(claim, word, cur, ctx));
  const i = verdicts.indexOf('disagrees');
  const against = i < 0 ? undefined : (judgedClaims[i] ?? `${overflow} more notifications with other texts`);
  const verdict = against !== undefined ? 'disagrees' : verdicts.includes('waiting') ? 'waiting' : 'agrees';
  if (verdict === 'waiting') return { kind: 'unchanged', request: cur };
  const at = new Date(ctx.now).toISOString();
  const service = SERVICE_NAMES[word.status];
  const { earlier: _e, claims: _c, overflow: _o, ...judged } = notice;
  const details = {
    ...about(cur),
    status: against ?? notice.status ?? null,
    service,
    via: word.via,
    state: cur.state,
    claims,
    ...(overflow ? { overflow } : {}),
  };
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
