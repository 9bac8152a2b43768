/**
 * The withdrawal rules as one pure function: `decide(command, request, context)` returns a
 * refusal (the reason and the words a person sees), or the next state of the request with
 * its audit entry and the event to announce, or "nothing to do". No store, no clock, no
 * network: whatever needs I/O (group membership, the wallet's answer, the transaction list,
 * the current time) is resolved by the shell (service.ts) and passed in as a fact, so every
 * rule can be tested in microseconds and exists here only.
 *
 * State is stored, not event-sourced, so there is no separate `evolve`: the decision carries
 * the next state itself (the shell writes it, the audit entry and the notifications in one
 * commit). The shape follows the decider pattern: commands and decisions are discriminated
 * unions, and each switch over them is exhaustive (`never`).
 */
import type { Policy } from '../policy/schema.js';
import { needsStepUp } from '../stepup/threshold.js';
import {
  about,
  approvalsComplete,
  stateWords,
  checkAllowlist,
  checkDailyLimit,
  checkBalance,
  decisionRefusal,
  expiryDue,
  refused,
  reminderDue,
  reservedFor,
  type AllowlistApprovals,
  type CheckedInput,
  type Refused,
} from './rules.js';
import { recheck, type RecheckFacts } from './recheck.js';
import { answerMismatches, classifySendError, type ListedTransaction, type SendOutcome } from './wallet-answer.js';
import { decideByStatus } from './settle-by-status.js';
import { decideNotice, decideNoticeVerdict, decideServiceWord, type ServiceWord } from './notice.js';
import {
  claimRefusedOnHold,
  decideHoldRepeat,
  decideSettleHold,
  repeatRefusal,
  retypedHold,
  retypedHoldWords,
  retypedRepeatOf,
  type SettleHoldCommand,
} from './repeat-hold.js';
import type { WithdrawalStatus } from '../wallet/client/withdrawal-status.js';
import type {
  DecisionReason,
  RequestRule,
  WithdrawalEventType,
  WithdrawalRequest,
  WithdrawalResultRecord,
  WithdrawalState,
} from './types.js';

/** The actor of everything the app does on its own (sending, expiry, reconciliation, notifications). */
const SYSTEM = 'system';

export type WithdrawalCommand =
  /** A new request that passed `admitRequest`; ids are drawn by the shell. */
  | {
      type: 'request';
      requester: string;
      checked: CheckedInput;
      idempotencyKey?: string;
      requestedFrom?: 'command' | 'form';
      id: string;
      merchantReference: string;
      existing: readonly WithdrawalRequest[];
      /**
       * The origin account's balance read by the shell just before: text, `null` when it could not
       * be read (allowed, and the card says so), absent when the app has no balance source.
       */
      balance?: string | null;
      /** "New request with the same details": the id it repeats, and that request as stored now (repeat-hold.ts). */
      repeatOf?: { id: string; original: WithdrawalRequest | undefined };
    }
  /** `satisfies`: the tier's must_include entries this user matches (group membership resolved by the shell). */
  /**
   * `stepUp`: whether this approver typed a valid authenticator code for it (checked by the
   * shell); a request above the policy's step_up_above is refused without `verified`.
   */
  | {
      type: 'approve';
      user: string;
      isApprover: boolean;
      satisfies: readonly string[];
      stepUp?: 'verified' | 'not-needed';
    }
  | { type: 'reject'; user: string; isApprover: boolean; reason: string }
  /**
   * approved -> executing, durable before the wallet call: whoever wins this compare-and-set sends.
   * `frozen`: the freeze in force (resolved by the shell inside the same commit); while frozen nothing is claimed.
   * With `recheck` (facts from the shell), then judged again under the policy in force (recheck.ts).
   * `balance`: read just before; a balance below the amount refuses the send (failed, nothing sent).
   * Unreadable (undefined): sent anyway, since the wallet service itself refuses an overdraft.
   */
  | {
      type: 'claim-for-sending';
      frozen?: { by: string; reason: string };
      recheck?: RecheckFacts;
      balance?: string;
    }
  /** A pending request judged again under the policy in force (after a policy change). */
  | { type: 'recheck'; facts: RecheckFacts }
  /** `requestId`: the claimed request, named in the audit even if it was settled meanwhile. */
  | { type: 'record-send-outcome'; requestId: string; outcome: SendOutcome }
  | { type: 'expire' }
  /** At startup: approved but never claimed, and past its expiry (the app was down). */
  | { type: 'expire-unsent' }
  | { type: 'remind' }
  /** At startup: executing and not in flight in this process, so possibly sent. */
  | { type: 'mark-unknown-at-startup' }
  | { type: 'reconcile'; found: ListedTransaction }
  /** The service's status for the reference (settle-by-status.ts); NotFound only after the policy's grace. */
  | { type: 'settle-by-status'; status: WithdrawalStatus }
  | { type: 'resolve-unknown'; admin: string; isAdmin: boolean; outcome: 'sent' | 'not_sent'; note: string }
  /** A withdrawal notification's claim: recorded, then the service is asked (notice.ts); it settles nothing. */
  | { type: 'notice'; status: unknown; transactionHash?: unknown }
  /** The service's own answer, asked after a notification: the transfer status shown (notice.ts). */
  | { type: 'service-word'; word: ServiceWord }
  /** The waiting notification judged against the service's answer (notice.ts). */
  | { type: 'notice-verdict'; word: ServiceWord }
  /**
   * A repeat of `original`, "never executed" until now: `service` (the service answered that it has
   * it) holds or marks it; `notice` (only a notification claims it) holds it as a precaution (repeat-hold.ts).
   */
  | { type: 'hold-repeat'; original: WithdrawalRequest; basis: 'notice' | 'service' }
  /** An admin releases ("Send anyway") or rejects a held repeat. */
  | SettleHoldCommand;

export interface DecideContext {
  now: number;
  policy: Policy;
  /** When each allowlisted address was approved (governed policy: the cooling-off); absent: usable at once. */
  allowlistApprovals?: AllowlistApprovals | undefined;
}

export interface AuditRecord {
  at: string;
  actor: string;
  action: string;
  subject: string;
  details: Record<string, unknown>;
}

export type Decision<Reason extends string = DecisionReason> =
  | Refused<Reason>
  /** Nothing to write (a lost compare-and-set, a duplicate webhook, a repeated request). */
  | { kind: 'unchanged'; request: WithdrawalRequest | undefined }
  /** Only an audit entry (the wallet answered for a request that something else settled meanwhile). */
  | { kind: 'noted'; audit: AuditRecord }
  | { kind: 'changed'; next: WithdrawalRequest; audit: AuditRecord; event: WithdrawalEventType };

type ReasonOf<C extends WithdrawalCommand> = C extends { type: 'request' } ? RequestRule : DecisionReason;

const iso = (ms: number) => new Date(ms).toISOString();
const unchanged = (request: WithdrawalRequest | undefined): Decision<never> => ({ kind: 'unchanged', request });

/** The request moved to `state`, with a history line. */
function transition(
  req: WithdrawalRequest,
  state: WithdrawalState,
  by: string,
  at: string,
  note?: string,
  patch: Partial<WithdrawalRequest> = {},
): WithdrawalRequest {
  return { ...req, ...patch, state, history: [...req.history, { at, state, by, ...(note ? { note } : {}) }] };
}

// ------------------------------------------------------------------ recovery

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
  // On hold (repeat-hold.ts): it waits for an admin, however long; the claim would refuse it anyway.
  if (req.hold) return 'none';
  return now >= Date.parse(req.expiresAt) ? 'expire-unsent' : 'send';
}

// ------------------------------------------------------------------ decide

export function decide<C extends WithdrawalCommand>(
  command: C,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision<ReasonOf<C>>;
export function decide(
  command: WithdrawalCommand,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision<RequestRule | DecisionReason> {
  const at = iso(ctx.now);
  switch (command.type) {
    case 'request':
      return decideRequest(command, ctx);
    case 'approve':
      return decideApprove(command, req, ctx);
    case 'reject': {
      const refusal = decisionRefusal(req, command.user, 'reject', { isApprover: command.isApprover, now: ctx.now });
      if (refusal) return refusal;
      const text = command.reason.trim();
      if (!text) return refused('reason_required', 'A rejection needs a reason.');
      const cur = req!;
      return {
        kind: 'changed',
        next: transition(cur, 'rejected', command.user, at, text, {
          rejection: { user: command.user, at, reason: text },
        }),
        audit: { at, actor: command.user, action: 'reject', subject: cur.id, details: { ...about(cur), reason: text } },
        event: 'rejected',
      };
    }
    case 'claim-for-sending': {
      if (req?.state !== 'approved') return unchanged(req);
      const onHold = claimRefusedOnHold(req, at);
      if (onHold) return onHold;
      if (command.frozen) {
        // Held, not refused: it stays approved and is sent once two admins unfreeze.
        return {
          kind: 'noted',
          audit: {
            at,
            actor: SYSTEM,
            action: 'send_held',
            subject: req.id,
            details: { ...about(req), reason: 'sends are frozen', frozenBy: command.frozen.by },
          },
        };
      }
      const again = command.recheck ? decideRecheck(req, command.recheck, ctx, at) : undefined;
      if (again && again.kind !== 'passes') return again;
      const short = checkBalance(command.balance, req);
      if (short) {
        const message = `Not sent: ${short.message.charAt(0).toLowerCase()}${short.message.slice(1)}`;
        return {
          kind: 'changed',
          // As the policy in force counts it (a re-check may have changed its tier and approvals).
          next: transition(again?.next ?? req, 'failed', SYSTEM, at, message, { error: { kind: 'not_sent', message } }),
          audit: {
            at,
            actor: SYSTEM,
            action: 'result',
            subject: req.id,
            details: { ...about(req), outcome: 'failed', rule: 'balance', balance: command.balance, reason: message },
          },
          event: 'failed',
        };
      }
      return {
        kind: 'changed',
        next: transition(again?.next ?? req, 'executing', SYSTEM, at, undefined, { sendStartedAt: at }),
        audit: {
          at,
          actor: SYSTEM,
          action: 'send',
          subject: req.id,
          details: {
            merchantReference: req.merchantReference,
            amount: req.amount,
            currency: req.currency,
            network: req.network,
            destination: req.destination,
            ...(again?.changed
              ? { recheckedUnder: 'the policy in force', approvals: again.next.approvals.length }
              : {}),
          },
        },
        event: 'executing',
      };
    }
    case 'recheck': {
      if (req?.state !== 'pending') return unchanged(req);
      const again = decideRecheck(req, command.facts, ctx, at);
      if (again.kind !== 'passes') return again;
      if (!again.changed) return unchanged(req);
      // Complete under the policy in force (it asks for fewer approvals now): approved, then sent by the shell.
      return {
        kind: 'changed',
        next: transition(again.next, 'approved', SYSTEM, at, 'approvals complete under the policy in force'),
        audit: {
          at,
          actor: SYSTEM,
          action: 'policy_recheck_approved',
          subject: req.id,
          details: { ...about(req), approvals: again.next.approvals.length, required: again.next.tier.approvals },
        },
        event: 'approved',
      };
    }
    case 'record-send-outcome':
      return decideSendOutcome(command.requestId, command.outcome, req, at);
    case 'expire': {
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
    case 'expire-unsent': {
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
    case 'remind': {
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
    case 'mark-unknown-at-startup': {
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
    case 'reconcile':
      return decideReconcile(command.found, req, at);
    case 'settle-by-status':
      return decideByStatus(command.status, req, {
        now: ctx.now,
        graceMs: ctx.policy.withdrawals.not_found_grace,
      });
    case 'resolve-unknown':
      return decideResolve(command, req, at);
    case 'notice':
      return decideNotice(command, req, at);
    case 'service-word':
      return decideServiceWord(command.word, req, at);
    case 'notice-verdict':
      return decideNoticeVerdict(command.word, req, {
        now: ctx.now,
        graceMs: ctx.policy.withdrawals.not_found_grace,
      });
    case 'hold-repeat':
      return decideHoldRepeat(req, command.original, at, command.basis);
    case 'settle-hold':
      return decideSettleHold(command, req, at);
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled withdrawal command ${JSON.stringify(unhandled)}`);
    }
  }
}

/**
 * A request judged again under the policy in force: refused (rejected by the policy, with the
 * reason on the card), back to waiting for what is missing (`reopened`), or `passes` for the
 * caller to carry on with the request as the policy in force counts it.
 */
function decideRecheck(
  req: WithdrawalRequest,
  facts: RecheckFacts,
  ctx: DecideContext,
  at: string,
): Decision | { kind: 'passes'; next: WithdrawalRequest; changed: boolean } {
  const r = recheck(req, ctx, facts);
  if (r.kind === 'passes') return r;
  if (r.kind === 'refused') {
    const reason = `No longer allowed by the treasury policy in force: ${r.reason}`;
    return {
      kind: 'changed',
      next: transition(req, 'rejected', SYSTEM, at, reason, { rejection: { user: SYSTEM, at, reason } }),
      audit: {
        at,
        actor: SYSTEM,
        action: 'policy_recheck_refused',
        subject: req.id,
        details: { ...about(req), reason },
      },
      event: 'rejected',
    };
  }
  if (
    req.state === 'pending' &&
    JSON.stringify([req.tier, req.approvals, req.allowlist.status]) ===
      JSON.stringify([r.next.tier, r.next.approvals, r.next.allowlist.status])
  )
    return unchanged(req);
  // Waiting again: with time to gather what is missing, and a fresh reminder.
  const expiresAt =
    req.state === 'approved'
      ? iso(Math.max(Date.parse(req.expiresAt), ctx.now + ctx.policy.withdrawals.expires_after))
      : req.expiresAt;
  const { reminderSentAt: _reminded, ...rest } = r.next;
  const note = `the policy in force now needs ${r.missing}`;
  return {
    kind: 'changed',
    next: transition(rest, 'pending', SYSTEM, at, note, { expiresAt }),
    audit: {
      at,
      actor: SYSTEM,
      action: 'policy_recheck_waits',
      subject: req.id,
      details: {
        ...about(req),
        missing: r.missing,
        approvals: r.next.approvals.length,
        required: r.next.tier.approvals,
      },
    },
    event: 'reopened',
  };
}

function decideRequest(c: Extract<WithdrawalCommand, { type: 'request' }>, ctx: DecideContext): Decision<RequestRule> {
  const again = c.idempotencyKey
    ? c.existing.find((r) => r.idempotencyKey === c.idempotencyKey && r.requester === c.requester)
    : undefined;
  if (again) return unchanged(again);
  // Retyped by hand with the details of a request the service never executed: the same payout (repeat-hold.ts).
  const details = {
    destination: c.checked.destination,
    amount: c.checked.amount,
    currency: c.checked.currency.name,
    network: c.checked.network.name,
    clientEmail: c.checked.clientEmail,
  };
  const linked = c.repeatOf ? undefined : retypedRepeatOf(details, c.existing);
  const repeatOf = c.repeatOf ?? (linked ? { id: linked.id, original: linked } : undefined);
  // "New request with the same details" is refused where its payout is under way or was reported;
  // a retyped one never is: it is made on hold instead, for an admin (it may be a separate payout).
  const notRepeatable = c.repeatOf ? repeatRefusal(c.repeatOf.original, c.existing) : undefined;
  if (notRepeatable) return notRepeatable;
  const hold = linked ? retypedHold(details, c.existing, iso(ctx.now)) : undefined;
  const allowlist = checkAllowlist(ctx.policy, c.checked, c.existing, {
    now: ctx.now,
    approvals: ctx.allowlistApprovals,
  });
  if ('ok' in allowlist) return refused(allowlist.rule, allowlist.message);
  // Decided inside the shell's commit: two requests racing cannot both fit under the limit.
  const over = checkDailyLimit(ctx.policy, c.existing, c.checked.currency.name, c.checked.amount, ctx.now);
  if (over) return refused(over.rule, over.message);
  const short = checkBalance(c.balance ?? undefined, {
    amount: c.checked.amount,
    currency: c.checked.currency.name,
    network: c.checked.network.name,
  });
  if (short) return refused(short.rule, short.message);
  const at = iso(ctx.now);
  const req: WithdrawalRequest = {
    id: c.id,
    merchantReference: c.merchantReference,
    requester: c.requester,
    amount: c.checked.amount,
    currency: c.checked.currency.name,
    network: c.checked.network.name,
    destination: c.checked.destination,
    clientEmail: c.checked.clientEmail,
    note: c.checked.note,
    state: 'pending',
    ...(c.idempotencyKey ? { idempotencyKey: c.idempotencyKey } : {}),
    ...(c.requestedFrom ? { requestedFrom: c.requestedFrom } : {}),
    tier: c.checked.tier,
    approvals: [],
    createdAt: at,
    expiresAt: iso(ctx.now + ctx.policy.withdrawals.expires_after),
    allowlist,
    ...(c.balance !== undefined ? { balanceAtRequest: { balance: c.balance, at } } : {}),
    ...(repeatOf ? { repeatOf: repeatOf.id } : {}),
    ...(linked ? { repeatLinked: 'same-details' as const } : {}),
    ...(hold ? { hold } : {}),
    history: [{ at, state: 'pending', by: c.requester }],
  };
  const { merchantReference, amount, currency, network, destination, clientEmail, note, tier, expiresAt } = req;
  return {
    kind: 'changed',
    next: req,
    audit: {
      at,
      actor: c.requester,
      action: 'request',
      subject: req.id,
      details: {
        merchantReference,
        amount,
        currency,
        network,
        destination,
        clientEmail,
        note,
        tier,
        allowlist,
        expiresAt,
        ...(req.balanceAtRequest ? { balance: req.balanceAtRequest.balance } : {}),
        ...(req.repeatOf ? { repeatOf: req.repeatOf } : {}),
        ...(linked
          ? {
              repeatLinked:
                'same destination, amount, currency, network and client wallet as an earlier request the wallet service never executed: the same payout',
            }
          : {}),
        ...(hold
          ? {
              hold: `made on hold: ${retypedHoldWords(
                hold,
                c.existing.find((r) => r.id === hold.original),
              )}`,
              holdOf: hold.original,
            }
          : {}),
      },
    },
    event: 'requested',
  };
}

function decideApprove(
  c: Extract<WithdrawalCommand, { type: 'approve' }>,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision {
  const refusal = decisionRefusal(req, c.user, 'approve', { isApprover: c.isApprover, now: ctx.now });
  if (refusal) return refusal;
  const cur = req!;
  // A code never bypasses a rule above (own request, not an approver...); without one, no approval of a large request.
  if (c.stepUp !== 'verified' && needsStepUp(ctx.policy, cur.currency, cur.amount))
    return refused(
      'step_up_required',
      'Approving this withdrawal needs a code from your authenticator app: use the Approve button on its card.',
    );
  const satisfies = cur.tier.mustInclude.filter((e) => c.satisfies.includes(e));
  const reserved = reservedFor(cur);
  if (reserved.length && !reserved.some((e) => satisfies.includes(e))) {
    return refused(
      'must_include_required',
      `This request still needs the approval of ${reserved.join(', ')} (required by its tier).`,
    );
  }
  const at = iso(ctx.now);
  const recorded: WithdrawalRequest = {
    ...cur,
    approvals: [
      ...cur.approvals,
      { user: c.user, at, satisfies, ...(c.stepUp === 'verified' ? { stepUp: 'verified' as const } : {}) },
    ],
  };
  const audit = {
    at,
    actor: c.user,
    action: 'approve',
    subject: cur.id,
    details: {
      ...about(cur),
      approvals: recorded.approvals.length,
      required: cur.tier.approvals,
      satisfies,
      ...(c.stepUp === 'verified' ? { stepUp: 'verified' } : {}),
    },
  };
  // The last approval makes it `approved`, durable before anything is sent (the shell then claims it).
  return approvalsComplete(recorded)
    ? { kind: 'changed', next: transition(recorded, 'approved', c.user, at), audit, event: 'approved' }
    : { kind: 'changed', next: recorded, audit, event: 'approval-recorded' };
}

function decideSendOutcome(
  requestId: string,
  outcome: SendOutcome,
  cur: WithdrawalRequest | undefined,
  at: string,
): Decision {
  if (cur?.state !== 'executing') {
    // Settled meanwhile (the service asked after a notification, or an admin): the answer goes to the audit log only.
    const details = outcome.ok
      ? { serviceReference: outcome.answer.serviceReference, amount: outcome.answer.amount }
      : { error: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) };
    return {
      kind: 'noted',
      audit: {
        at,
        actor: SYSTEM,
        action: 'result',
        subject: requestId,
        details: { ignored: true, state: cur?.state ?? null, ...details },
      },
    };
  }
  if (outcome.ok) {
    const { answer } = outcome;
    const mismatches = answerMismatches(cur, answer);
    const result: WithdrawalResultRecord = {
      source: 'wallet',
      serviceReference: answer.serviceReference,
      amount: answer.amount,
      amountRequested: answer.amountRequested,
      fee: answer.fee,
      feeCurrency: answer.feeCurrency?.name ?? null,
      transactionHash: cur.confirmation?.transactionHash ?? null,
      ...(mismatches.length ? { mismatches } : {}),
    };
    return {
      kind: 'changed',
      next: transition(cur, 'completed', SYSTEM, at, undefined, { result }),
      audit: {
        at,
        actor: SYSTEM,
        action: 'result',
        subject: cur.id,
        details: { ...about(cur), outcome: 'completed', ...result, amount: cur.amount, delivered: result.amount },
      },
      event: 'completed',
    };
  }
  const c = classifySendError(outcome.error);
  if (c.state === 'unknown') {
    return {
      kind: 'changed',
      next: transition(cur, 'unknown', SYSTEM, at, c.message, { unknownReason: c.message }),
      audit: {
        at,
        actor: SYSTEM,
        action: 'unknown',
        subject: cur.id,
        details: { ...about(cur), reason: c.message, errorKind: c.kind },
      },
      event: 'unknown',
    };
  }
  return {
    kind: 'changed',
    next: transition(cur, 'failed', SYSTEM, at, c.message, { error: { kind: c.errorKind, message: c.message } }),
    audit: {
      at,
      actor: SYSTEM,
      action: 'result',
      subject: cur.id,
      details: { ...about(cur), outcome: 'failed', errorKind: c.kind, reason: c.message },
    },
    event: 'failed',
  };
}

function decideReconcile(hit: ListedTransaction, cur: WithdrawalRequest | undefined, at: string): Decision {
  // A record whose status we cannot read proves it reached the service, not how it ended.
  if (cur?.state !== 'unknown' || hit.status === 'unknown') return unchanged(cur);
  const details = { reference: hit.reference, status: hit.status, delivered: hit.amount, transactionHash: hit.hash };
  const result: WithdrawalResultRecord = {
    source: 'reconcile',
    serviceReference: null,
    amount: hit.amount,
    fee: null,
    feeCurrency: null,
    transactionHash: hit.hash,
  };
  return settledAsReported(cur, at, {
    failed: hit.status === 'failed',
    result,
    failedNote: 'the transaction list shows it failed',
    failedMessage: 'The wallet service received the withdrawal and lists it as failed.',
    completedNote: 'found in the transaction list',
    details,
  });
}

/**
 * An unknown outcome settled by what the wallet service reports of it (its status for our
 * reference, or its transaction list): completed, or failed as the service says, audited as a
 * reconciliation. One shape for both sources, so the card and audit read the same.
 */
export function settledAsReported(
  cur: WithdrawalRequest,
  at: string,
  o: {
    failed: boolean;
    result: WithdrawalResultRecord;
    failedNote: string;
    failedMessage: string;
    completedNote: string;
    details: Record<string, unknown>;
  },
): Decision {
  const next = o.failed
    ? transition(cur, 'failed', SYSTEM, at, o.failedNote, {
        error: { kind: 'reported_failed', message: o.failedMessage },
        result: o.result,
      })
    : transition(cur, 'completed', SYSTEM, at, o.completedNote, { result: o.result });
  return {
    kind: 'changed',
    next,
    audit: {
      at,
      actor: SYSTEM,
      action: 'reconcile',
      subject: cur.id,
      details: { ...about(cur), outcome: next.state, ...o.details },
    },
    event: next.state === 'completed' ? 'completed' : 'failed',
  };
}

function decideResolve(
  c: Extract<WithdrawalCommand, { type: 'resolve-unknown' }>,
  cur: WithdrawalRequest | undefined,
  at: string,
): Decision {
  if (!cur) return refused('not_found', 'There is no such withdrawal request.');
  if (!c.isAdmin)
    return refused('not_admin', 'Only treasury admins can resolve a withdrawal whose outcome is unknown.');
  if (cur.state !== 'unknown')
    return refused(
      'not_unknown',
      `Only a request whose outcome is unknown can be resolved: this one is ${stateWords(cur.state)}.`,
    );
  const text = c.note.trim();
  if (!text) return refused('note_required', 'Say how you established the outcome (a note is required).');
  const resolution = { by: c.admin, at, outcome: c.outcome, note: text };
  const next =
    c.outcome === 'sent'
      ? transition(cur, 'completed', c.admin, at, text, {
          resolution,
          result: {
            source: 'admin',
            serviceReference: null,
            amount: cur.amount,
            fee: null,
            feeCurrency: null,
            transactionHash: cur.confirmation?.transactionHash ?? null,
          },
        })
      : transition(cur, 'failed', c.admin, at, text, {
          resolution,
          error: { kind: 'admin_not_sent', message: `Resolved by an admin as not sent: ${text}` },
        });
  return {
    kind: 'changed',
    next,
    audit: {
      at,
      actor: c.admin,
      action: 'resolve',
      subject: cur.id,
      details: { ...about(cur), outcome: c.outcome, note: text },
    },
    event: 'resolved',
  };
}
