/**
 * "New request with the same details" and the double payment it could cause (pure; decide.ts
 * routes the commands here, the shell passes the facts).
 *
 * A request the wallet service never executed (settle-by-status.ts) may be requested again: the
 * new request records which one it repeats (`repeatOf`). If the service later reports the
 * ORIGINAL after all (any webhook but FAILED / NOT_PROPAGATED: it has it, it may have paid), in
 * the commit that records that report every repeat not yet claimed for sending (pending or
 * approved) is put on hold: approvals may still be given, but the send claim refuses it until an
 * admin releases it ("Send anyway", with a reason) or rejects it. A repeat already claimed
 * (executing, completed, unknown) is too late to hold: it is marked once, and the admins are told
 * both may have been paid. Everything is on the stored request, so a restart keeps it; a second
 * report of the original finds the hold (or the mark) already there and adds nothing.
 */
import { refused, stateWords } from './rules.js';
import type { Decision } from './decide.js';
import type { WithdrawalRequest, WithdrawalState } from './types.js';

const SYSTEM = 'system';

/** Why a new request cannot repeat an earlier one the service now reports: it may have been paid. */
export const CONTRADICTED_NEVER_EXECUTED =
  'The wallet service now reports this withdrawal after it had no record of it: it may have been paid. Do not pay it again; an admin must check it in the wallet service first.';

/**
 * The service never executed it (settled by its status, past the grace), and nothing of the
 * service has spoken of it since: a webhook (even PENDING) or a result proves it has it.
 */
export const isNeverExecuted = (r: Pick<WithdrawalRequest, 'state' | 'error' | 'confirmation' | 'result'>): boolean =>
  r.state === 'failed' && r.error?.kind === 'never_executed' && !r.confirmation && !r.result;

/** Found "never executed", then the wallet service spoke of it after all: it may have been paid. */
export const isNeverExecutedContradicted = (
  r: Pick<WithdrawalRequest, 'state' | 'error' | 'confirmation' | 'result'>,
): boolean => r.state === 'failed' && r.error?.kind === 'never_executed' && !isNeverExecuted(r);

/** Webhook statuses that say the service has the withdrawal and it did not fail: it was, or is being, paid. */
const SENT_STATUSES = new Set(['ABOUT_TO_INITIATE', 'PENDING', 'CONFIRMED']);

/**
 * Whether this change of a request is the report that makes its repeats dangerous: it was
 * "never executed" before, and now the service reports it with a status that is not a failure.
 */
export function reportedSentAfterNeverExecuted(before: WithdrawalRequest, after: WithdrawalRequest): boolean {
  return isNeverExecuted(before) && !!after.confirmation && SENT_STATUSES.has(after.confirmation.status);
}

/**
 * Every request made from `originalId` with "New request with the same details", and those made
 * in turn from a repeat that also was never executed: all of them ask for the same payout.
 */
export function repeatsOf(all: readonly WithdrawalRequest[], originalId: string): WithdrawalRequest[] {
  const out: WithdrawalRequest[] = [];
  const seen = new Set([originalId]);
  const queue = [originalId];
  while (queue.length) {
    const id = queue.shift()!;
    for (const r of all)
      if (r.repeatOf === id && !seen.has(r.id)) {
        seen.add(r.id);
        out.push(r);
        queue.push(r.id);
      }
  }
  return out;
}

/** The refusal of a new request that repeats `original`, or undefined when it may. */
export function repeatRefusal(
  original: WithdrawalRequest | undefined,
): { kind: 'refused'; reason: 'repeat'; message: string } | undefined {
  if (original && isNeverExecutedContradicted(original)) return refused('repeat', CONTRADICTED_NEVER_EXECUTED);
  if (!original || !isNeverExecuted(original))
    return refused(
      'repeat',
      'Only a request the wallet service never executed can be requested again with the same details.',
    );
  return undefined;
}

/** Not yet claimed for sending: a hold still keeps it from being sent. */
const HOLDABLE: readonly WithdrawalState[] = ['pending', 'approved'];
/** Claimed, maybe paid: too late to hold. */
const MAYBE_PAID: readonly WithdrawalState[] = ['executing', 'completed', 'unknown'];

const about = (r: WithdrawalRequest) => ({
  amount: r.amount,
  currency: r.currency,
  network: r.network,
  destination: r.destination,
  merchantReference: r.merchantReference,
});

/** A repeat of `original`, which the service has just reported (`original.confirmation.status`) after "never executed". */
export function decideHoldRepeat(
  repeat: WithdrawalRequest | undefined,
  original: WithdrawalRequest,
  at: string,
): Decision {
  if (!repeat || repeat.hold || repeat.holdReleased || repeat.doublePaymentRisk)
    return { kind: 'unchanged', request: repeat };
  const status = original.confirmation?.status ?? 'CONFIRMED';
  const details = {
    ...about(repeat),
    original: original.id,
    originalReference: original.merchantReference,
    status,
    state: repeat.state,
  };
  if (HOLDABLE.includes(repeat.state)) {
    return {
      kind: 'changed',
      next: { ...repeat, hold: { kind: 'original_reported_sent', original: original.id, status, at } },
      audit: {
        at,
        actor: SYSTEM,
        action: 'hold',
        subject: repeat.id,
        details: {
          ...details,
          reason: `the earlier request of the same payout is now reported ${status.toLowerCase()} by the wallet service`,
        },
      },
      event: 'held',
    };
  }
  if (MAYBE_PAID.includes(repeat.state)) {
    return {
      kind: 'changed',
      next: { ...repeat, doublePaymentRisk: { original: original.id, at, status } },
      audit: {
        at,
        actor: SYSTEM,
        action: 'double_payment_risk',
        subject: repeat.id,
        details: {
          ...details,
          reason: `already ${stateWords(repeat.state)} when the earlier request of the same payout was reported ${status.toLowerCase()}: both may have been paid`,
        },
      },
      event: 'double-payment-risk',
    };
  }
  // Failed, rejected or expired: nothing left, nothing will.
  return { kind: 'unchanged', request: repeat };
}

export interface SettleHoldCommand {
  type: 'settle-hold';
  admin: string;
  isAdmin: boolean;
  /** release: "Send anyway" (sent once its approvals are complete); reject: never sent. */
  action: 'release' | 'reject';
  reason: string;
}

/** An admin's decision on a held repeat. */
export function decideSettleHold(c: SettleHoldCommand, cur: WithdrawalRequest | undefined, at: string): Decision {
  if (!cur) return refused('not_found', 'There is no such withdrawal request.');
  if (!c.isAdmin) return refused('not_admin', 'Only treasury admins can decide on a request on hold.');
  if (!cur.hold) return refused('not_held', `This request is not on hold: it is ${stateWords(cur.state)}.`);
  if (!HOLDABLE.includes(cur.state))
    return refused('not_held', `This request is no longer on hold: it is ${stateWords(cur.state)}.`);
  if (c.action === 'release' && cur.requester === c.admin)
    return refused('own_request', 'You cannot release your own withdrawal request; ask another admin.');
  const reason = c.reason.trim();
  if (!reason) return refused('reason_required', 'Say why (a reason is required).');
  const { hold, ...rest } = cur;
  const details = { ...about(cur), original: hold.original, status: hold.status, reason, state: cur.state };
  if (c.action === 'release') {
    return {
      kind: 'changed',
      next: {
        ...rest,
        holdReleased: { by: c.admin, at, reason, original: hold.original },
        history: [...cur.history, { at, state: cur.state, by: c.admin, note: `hold released: ${reason}` }],
      },
      audit: { at, actor: c.admin, action: 'hold_release', subject: cur.id, details },
      event: 'released',
    };
  }
  return {
    kind: 'changed',
    // The hold stays on the record: it says why it was rejected.
    next: {
      ...cur,
      state: 'rejected',
      rejection: { user: c.admin, at, reason },
      history: [...cur.history, { at, state: 'rejected', by: c.admin, note: reason }],
    },
    audit: { at, actor: c.admin, action: 'reject', subject: cur.id, details: { ...details, held: true } },
    event: 'rejected',
  };
}

/** The send claim of a held request: refused (it stays as it is), with the reason in the audit log. */
export function claimRefusedOnHold(req: WithdrawalRequest, at: string): Decision | undefined {
  if (!req.hold) return undefined;
  return {
    kind: 'noted',
    audit: {
      at,
      actor: SYSTEM,
      action: 'send_held_repeat',
      subject: req.id,
      details: {
        ...about(req),
        original: req.hold.original,
        reason: 'on hold: the earlier request of the same payout is reported sent by the wallet service',
      },
    },
  };
}
