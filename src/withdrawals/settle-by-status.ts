/**
 * Settling a withdrawal of unknown outcome by the wallet service's status for its merchant
 * reference (the exact answer; the transaction list is only the fallback, reconcile.ts).
 * Pure: the status is a fact the reconciler fetched.
 *
 * - Completed / Failed settle it as a transaction-list record does.
 * - Pending proves the service has it, not how it ends: it stays unknown.
 * - NotFound is trusted only once `withdrawals.not_found_grace` (default 10 minutes) has passed
 *   since the send started (the service may not have recorded it yet), only if no notification named it
 *   ever arrived, and (reconcile.ts) only once the transaction list has no record of it either. Past the grace the
 *   request is failed with `error.kind: 'never_executed'`: nothing left the treasury, and the
 *   card offers a NEW request with the same details (a new reference; never an automatic resend).
 */
import type { WithdrawalStatus } from '../wallet/client/withdrawal-status.js';
import type { Decision } from './decide/types.js';
import { settledAsReported } from './decide/settle.js';
import { transition } from './decide/transition.js';
import { about } from './rules.js';
import { SYSTEM, type WithdrawalRequest, type WithdrawalResultRecord } from './types.js';

/** The words of the card and the DM for a request the service never executed. */
export const NEVER_EXECUTED_MESSAGE = 'Not sent: the wallet service has no record of it.';

/** When the send started (the grace counts from there); a request without it counts from its creation. */
export const sentAt = (r: WithdrawalRequest): number => Date.parse(r.sendStartedAt ?? r.createdAt);

/**
 * Whether a NotFound for this request may be believed: the grace has passed since the send, the
 * service never said otherwise, and no notification named it. A notification is only a claim
 * (maybe forged), but "never executed" invites a new request of the same payout, so against a
 * claim the request stays unknown, for an admin to settle: the claim can delay, never double pay.
 * The reconciler also looks the reference up in the transaction list once before committing it.
 */
export const notFoundTrusted = (r: WithdrawalRequest, ctx: { now: number; graceMs: number }): boolean =>
  !r.confirmation && !r.notice && ctx.now - sentAt(r) >= ctx.graceMs;

export function decideByStatus(
  status: WithdrawalStatus,
  cur: WithdrawalRequest | undefined,
  ctx: { now: number; graceMs: number },
): Decision {
  if (cur?.state !== 'unknown') return { kind: 'unchanged', request: cur };
  if (status.status === 'pending') return { kind: 'unchanged', request: cur };
  const at = new Date(ctx.now).toISOString();
  if (status.status === 'not_found') {
    const waited = ctx.now - sentAt(cur);
    if (!notFoundTrusted(cur, ctx)) return { kind: 'unchanged', request: cur };
    return {
      kind: 'changed',
      next: transition(cur, 'failed', SYSTEM, at, 'the wallet service has no record of its reference', {
        error: { kind: 'never_executed', message: NEVER_EXECUTED_MESSAGE },
      }),
      audit: {
        at,
        actor: SYSTEM,
        action: 'reconcile',
        subject: cur.id,
        details: {
          ...about(cur),
          outcome: 'never_executed',
          via: 'status',
          status: 'NotFound',
          reason: `the wallet service has no record of this reference ${Math.round(waited / 60_000)} minutes after it was sent`,
        },
      },
      event: 'failed',
    };
  }
  const result: WithdrawalResultRecord = {
    source: 'reconcile',
    via: 'status',
    serviceReference: null,
    amount: status.amount,
    fee: null,
    feeCurrency: null,
    transactionHash: status.transactionHash ?? cur.confirmation?.transactionHash ?? null,
  };
  const failed = status.status === 'failed';
  return settledAsReported(cur, at, {
    failed,
    result,
    failedNote: 'the wallet service reports it failed',
    failedMessage: 'The wallet service received the withdrawal and reports it failed.',
    completedNote: 'the wallet service reports it completed',
    details: {
      via: 'status',
      status: failed ? 'Failed' : 'Completed',
      delivered: status.amount,
      transactionHash: result.transactionHash,
    },
  });
}
