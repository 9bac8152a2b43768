/**
 * What time and restarts do to a request: expiry, the reminder before it, and what startup does
 * with a request the previous process left (`recoveryAction`, and the commands it leads to).
 */
import { about, expiryDue, reminderDue } from '../rules.js';
import { SYSTEM, type WithdrawalRequest } from '../types.js';
import type { DecideContext, Decision } from './types.js';
import { iso, transition, unchanged } from './transition.js';

/**
 * What startup does with a request left by the previous process (one not in flight in this
 * one): still `approved` was never claimed, so nothing reached the wallet service: it is sent
 * once within its expiry, and past it (a long outage) it expires unsent; `executing` may have
 * been sent, so it becomes unknown and is reconciled, never resent. Anything else: nothing
 * here (pending ones expire through `expire`, unknown ones are reconciled).
 */
export type RecoveryAction = 'send' | 'expire-unsent' | 'mark-unknown' | 'none';

export function recoveryAction(req: WithdrawalRequest, now: number): RecoveryAction {
  if (req.state === 'executing') return 'mark-unknown';
  if (req.state !== 'approved') return 'none';
  // Held by a limit at the send: tried again (the claim re-judges it) until its window makes room or it expires.
  if (req.hold?.kind === 'limit') return now >= Date.parse(req.expiresAt) ? 'expire-unsent' : 'send';
  // On hold (hold/): it waits for an admin, however long; the claim would refuse it anyway.
  if (req.hold) return 'none';
  return now >= Date.parse(req.expiresAt) ? 'expire-unsent' : 'send';
}

export function decideExpire(req: WithdrawalRequest | undefined, ctx: DecideContext): Decision {
  const at = iso(ctx.now);
  if (!req || !expiryDue(req, ctx.now)) return unchanged(req);
  return {
    kind: 'changed',
    next: transition(req, 'expired', SYSTEM, at, `not approved by ${req.expiresAt}`),
    audit: {
      at,
      actor: SYSTEM,
      action: 'expire',
      subject: req.id,
      details: {
        ...about(req),
        expiresAt: req.expiresAt,
        approvals: req.approvals.length,
        required: req.tier.approvals,
      },
    },
    event: 'expired',
  };
}

export function decideExpireUnsent(req: WithdrawalRequest | undefined, ctx: DecideContext): Decision {
  const at = iso(ctx.now);
  if (!req || recoveryAction(req, ctx.now) !== 'expire-unsent') return unchanged(req);
  return {
    kind: 'changed',
    next: transition(req, 'expired', SYSTEM, at, 'approved but not sent before its expiry; nothing was sent'),
    audit: {
      at,
      actor: SYSTEM,
      action: 'expire',
      subject: req.id,
      details: { ...about(req), reason: 'approved but not sent before its expiry (the app was down)' },
    },
    event: 'expired',
  };
}

export function decideRemind(req: WithdrawalRequest | undefined, ctx: DecideContext): Decision {
  const at = iso(ctx.now);
  if (!req || !reminderDue(req, ctx.now, ctx.policy.withdrawals.remind_before)) return unchanged(req);
  return {
    kind: 'changed',
    next: { ...req, reminderSentAt: at },
    audit: {
      at,
      actor: SYSTEM,
      action: 'remind',
      subject: req.id,
      details: { expiresAt: req.expiresAt, approvals: req.approvals.length, required: req.tier.approvals },
    },
    event: 'reminder',
  };
}

export function decideMarkUnknown(req: WithdrawalRequest | undefined, ctx: DecideContext): Decision {
  const at = iso(ctx.now);
  if (!req || recoveryAction(req, ctx.now) !== 'mark-unknown') return unchanged(req);
  const reason =
    'The app stopped while this withdrawal was being sent: it may or may not have reached the wallet service. It will be looked up in the transaction list, never resent.';
  return {
    kind: 'changed',
    next: transition(req, 'unknown', SYSTEM, at, 'found executing at startup', { unknownReason: reason }),
    audit: {
      at,
      actor: SYSTEM,
      action: 'unknown',
      subject: req.id,
      details: { ...about(req), reason: 'found executing at startup' },
    },
    event: 'unknown',
  };
}

/**
 * A batch row never claimed, when an admin stops the rest of its batch: rejected, never sent,
 * whatever unsent state it is in (waiting, approved, held). A claimed one is left to its send.
 */
export function decideStopBatchRow(admin: string, req: WithdrawalRequest | undefined, at: string): Decision {
  if (!req?.batch || (req.state !== 'approved' && req.state !== 'pending')) return unchanged(req);
  const reason = 'the rest of its batch payout was stopped by an admin; nothing was sent';
  return {
    kind: 'changed',
    next: transition(req, 'rejected', admin, at, reason, { rejection: { user: admin, at, reason } }),
    audit: {
      at,
      actor: admin,
      action: 'reject',
      subject: req.id,
      details: { ...about(req), batch: req.batch.id, row: req.batch.row, reason },
    },
    event: 'rejected',
  };
}
