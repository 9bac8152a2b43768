/**
 * The withdrawal service: the shell around the pure decider (decide/), which holds every rule.
 *
 * Each operation resolves what needs I/O (roles and group membership, the wallet's answer, the
 * transaction list), then inside ONE store commit reads the request, asks `decide`, and writes
 * the next state together with its audit entry and its notifications (`onChange`, the outbox);
 * anything done to the outside world waits for that commit to be durable. The last approval
 * moves the request to `approved` in its commit; the sender then claims it (approved ->
 * executing, compare-and-set) and only once that is on disk is the wallet service called,
 * exactly once, with the merchantReference fixed at creation. At startup a request still
 * `approved` was never sent and is sent once; one found `executing` was possibly sent: it
 * becomes `unknown` and is reconciled against the transaction list, never resent.
 *
 * A withdrawal webhook is a claim (unsigned: whoever learns the URL can post one): it is recorded
 * and the service is asked (notice.ts, reconcile.ts); only the service's answer settles anything.
 */
import { randomUUID } from 'node:crypto';
import { readWithin, REQUEST_BALANCE_WAIT_MS } from '../balances/book.js';
import type { Logger } from '../log.js';
import type { Store, Tx } from '../store/index.js';
import type { Policy } from '../policy/schema.js';
import { hasRole, matches, type GroupResolver } from '../policy/people.js';
import type { WalletClient } from '../wallet/client.js';
import { CURRENCIES, lookup } from '../wallet/enums.js';
import {
  admitRequest,
  dailyUsage,
  selectTier,
  type AllowlistApprovals,
  expiryDue,
  reminderDue,
  reservedFor,
  roleRefusal,
  stateRefusal,
  type DailyUsage,
  type Refused,
} from './rules.js';
import { recoveryAction } from './decide/index.js';
import type { RecheckFacts } from './recheck.js';
import { createShell, WITHDRAWALS } from './shell.js';
import { feeEstimate, type FeeEstimate } from './fees.js';
import { createSender } from './sender.js';
import { createReconciler, type ReconcileReport } from './reconcile.js';
import type {
  DecisionOutcome,
  DecisionReason,
  RequestInput,
  RequestOutcome,
  WithdrawalEvent,
  WithdrawalHooks,
  WithdrawalListener,
  WithdrawalRequest,
  WithdrawalState,
  BalanceSource,
} from './types.js';
import { appendAudit } from '../audit/log.js';
import { RELEASED_AFTER_EXPIRY } from './hold/words.js';
import { holdFamily } from './family-holds.js';

export { WITHDRAWALS };
export type { ReconcileReport };

export interface WithdrawalServiceOptions {
  store: Store;
  /** `withdrawalStatus` settles unknown outcomes exactly (the transaction list is the fallback). */
  wallet: Pick<WalletClient, 'withdraw' | 'listTransactions'> & Partial<Pick<WalletClient, 'withdrawalStatus'>>;
  /** A function lets the app reload the policy without rebuilding the service. */
  policy: Policy | (() => Policy);
  /** When each allowlisted address was approved (governed policy: the cooling-off); absent: all usable at once. */
  allowlistApprovals?: () => AllowlistApprovals | undefined;
  /**
   * Since when the policy in force has been in force (governed policy). A request created after
   * that was checked under it already, so it is not judged again before sending (no group
   * look-ups that Slack being down would make fail closed). Absent: always judged again.
   */
  policyInForceSince?: () => number;
  groups?: GroupResolver;
  logger: Logger;
  now?: () => number;
  listener?: WithdrawalListener;
  /**
   * Called inside the commit of every change, with its transaction: whatever it writes (the
   * Slack notifications, through the outbox) is durable together with the change, or not at all.
   * Synchronous; it must not throw (a throw is logged and its writes may be partial).
   */
  onChange?: (event: WithdrawalEvent, tx: Tx) => void;
  hooks?: WithdrawalHooks;
  /**
   * The origin accounts' balances, for the `balance` rule: read at request time (unreadable: the
   * request is allowed and its card says so) and again just before sending (unreadable: sent, as
   * the wallet service itself refuses an overdraft). Absent: no balance rule.
   */
  balances?: BalanceSource;
  /** Transaction-list pages searched per unknown request during reconciliation (default 10, 100 records each). */
  reconcileMaxPages?: number;
  reconcilePageSize?: number;
}

export interface ListFilter {
  state?: WithdrawalState | readonly WithdrawalState[];
  requester?: string;
  currency?: string;
  /** Newest first, at most this many. */
  limit?: number;
}

export interface WithdrawalEventInput {
  merchantReference: string;
  /** Webhook TransactionStatus as claimed: name or code (PENDING, CONFIRMED, FAILED, ...), or anything at all. */
  status: unknown;
  transactionHash?: string | null;
}

export interface WithdrawalEventResult {
  matched: boolean;
  changed: boolean;
  request?: WithdrawalRequest;
}

export interface WithdrawalService {
  request(input: RequestInput, requesterId: string): Promise<RequestOutcome>;
  /** `facts.stepUp`: 'verified' once the approver's authenticator code was checked (src/stepup/). */
  approve(id: string, userId: string, facts?: { stepUp?: 'verified' | 'not-needed' }): Promise<DecisionOutcome>;
  reject(id: string, userId: string, reason: string): Promise<DecisionOutcome>;
  /** Pending requests past their expiry become expired; returns them. */
  expireDue(): Promise<WithdrawalRequest[]>;
  /** Pending requests within remind_before of expiry and not yet reminded: recorded as reminded (once) and returned. */
  remindersDue(): Promise<WithdrawalRequest[]>;
  /** Unknown outcomes and waiting notifications, each asked of the wallet service once (never resent). */
  reconcileUnknown(): Promise<ReconcileReport>;
  /**
   * After a notification for this reference is durable: the wallet service is asked now and its
   * answer settles (or, unreachable, nothing changes and the reconcile job asks again). The
   * request after the answer; undefined for a reference that is not ours.
   */
  checkNotice(merchantReference: string): Promise<WithdrawalRequest | undefined>;
  resolveUnknown(id: string, adminId: string, outcome: 'sent' | 'not_sent', note: string): Promise<DecisionOutcome>;
  /**
   * An admin's decision on a repeat on hold (hold/): `release` ("Send anyway") clears the
   * hold, and an approved request is then sent once (`execution`, as for the last approval);
   * `reject` rejects it. Audited with who and why.
   */
  settleHold(id: string, adminId: string, action: 'release' | 'reject', reason: string): Promise<DecisionOutcome>;
  /** At startup: executing -> unknown (possibly sent, never resent); approved -> sent once (see idle()); then reconciliation and expiry. */
  recover(): Promise<{ markedUnknown: string[]; resumed: string[]; reconcile: ReconcileReport; expired: string[] }>;
  /** A notification: its claim recorded (applyWithdrawalEvent), then the service asked (checkNotice) before it resolves. */
  onWithdrawalEvent(e: WithdrawalEventInput): Promise<WithdrawalEventResult>;
  /**
   * After sends are unfrozen: each approved request not being sent is sent once (the usual
   * claim), or, past its expiry (a long freeze), expires unsent as at a restart.
   */
  sendApproved(): Promise<{ sent: string[]; expired: string[] }>;
  /**
   * The claim alone, inside a caller's commit (the webhook receiver's): recorded as the request's
   * `notice` (and a precaution hold on the rest of a never-executed payout), never settling
   * anything. The caller asks the service once it is durable (`checkNotice`). Its notifications go
   * through `onChange` in that commit; the returned event is what changed (onWithdrawalEvent hands
   * it to the `listener` once durable; a caller without a listener, like the app's, can ignore it).
   */
  applyWithdrawalEvent(
    tx: Tx,
    e: WithdrawalEventInput,
  ): WithdrawalEventResult & { event?: WithdrawalEvent; repeats?: WithdrawalEvent[] };
  /** Whether userId may approve (or reject) the request now: the refusal to show, or undefined. */
  checkDecision(id: string, userId: string, kind: 'approve' | 'reject'): Promise<DecisionOutcome | undefined>;
  awaitingDecisionBy(userId: string): Promise<WithdrawalRequest[]>;
  reminderTargets(r: WithdrawalRequest): string[];
  get(id: string): WithdrawalRequest | undefined;
  list(filter?: ListFilter): WithdrawalRequest[];
  pendingCount(): number;
  dailyUsage(currency: string): DailyUsage;
  /** The last fee the service charged for this currency on this network (an estimate for the next one), or undefined. */
  feeEstimate(currency: string, network: string): FeeEstimate | undefined;
  /** After a policy change: pending requests judged again under the policy in force (audited); returns those that changed. */
  recheckPending(): Promise<WithdrawalRequest[]>;
  /** Waits for sends started by this process to record their results (for shutdown and tests). */
  idle(): Promise<void>;
  /** The last balance read for this currency and network: text, null when unavailable, undefined without a balance source. */
  lastBalance(currency: string, network: string): string | null | undefined;
}

export function createWithdrawalService(o: WithdrawalServiceOptions): WithdrawalService {
  const { store, groups, logger } = o;
  const now = o.now ?? Date.now;
  const policy = (): Policy => (typeof o.policy === 'function' ? o.policy() : o.policy);
  const shell = createShell({
    store,
    policy,
    ...(o.allowlistApprovals ? { allowlistApprovals: o.allowlistApprovals } : {}),
    now,
    logger,
    ...(o.listener ? { listener: o.listener } : {}),
    ...(o.onChange ? { onChange: o.onChange } : {}),
  });
  const { stored, context, emit, commitOn, commitOnAll, outcomeOf } = shell;
  /** Who of the request's approvers is still an approver, and whom the policy in force's tier must include. */
  async function recheckFacts(r: WithdrawalRequest): Promise<RecheckFacts> {
    const p = policy();
    const must = selectTier(p, r.currency, r.amount)?.mustInclude ?? [];
    const facts: Record<string, { isApprover: boolean; satisfies: string[] }> = {};
    for (const a of r.approvals) {
      const satisfies: string[] = [];
      for (const entry of must) if (await matches([entry], a.user, groups)) satisfies.push(entry);
      facts[a.user] = { isApprover: await hasRole(p, 'approvers', a.user, groups), satisfies };
    }
    return facts;
  }
  const sender = createSender(shell, {
    wallet: o.wallet,
    hooks: o.hooks ?? {},
    logger,
    recheckFacts: async (r) => {
      const since = o.policyInForceSince?.();
      return since !== undefined && since <= Date.parse(r.createdAt) ? undefined : recheckFacts(r);
    },
    ...(o.balances ? { balances: o.balances } : {}),
  });
  const reconciler = createReconciler(shell, {
    wallet: o.wallet,
    logger,
    maxPages: o.reconcileMaxPages ?? 10,
    pageSize: o.reconcilePageSize ?? 100,
  });

  // ------------------------------------------------------------------ request and decisions

  const refusalOutcome = (r: Refused<DecisionReason>): DecisionOutcome => ({
    ok: false,
    reason: r.reason,
    message: r.message,
  });

  async function request(input: RequestInput, requesterId: string): Promise<RequestOutcome> {
    const p = policy();
    const checked = admitRequest(p, input, await hasRole(p, 'requesters', requesterId, groups));
    if (!checked.ok) return checked;
    // A fact for the `balance` rule, read before the commit (it is a network call); null: unreadable.
    // Capped (book.ts), so that the person is answered within Slack's 3 seconds.
    const balance = o.balances
      ? ((await readWithin(o.balances, checked.currency.name, checked.network.name, REQUEST_BALANCE_WAIT_MS)) ?? null)
      : undefined;
    const { decision, event } = await store.commit((tx) => {
      const command = {
        type: 'request',
        requester: requesterId,
        checked,
        ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
        ...(input.requestedFrom ? { requestedFrom: input.requestedFrom } : {}),
        // The request it repeats, as stored in this commit: a report of it committed first refuses the repeat.
        ...(input.repeatOf ? { repeatOf: { id: input.repeatOf, original: tx.get(WITHDRAWALS, input.repeatOf) } } : {}),
        id: randomUUID(),
        merchantReference: randomUUID(),
        existing: tx.all(WITHDRAWALS),
        ...(balance !== undefined ? { balance } : {}),
      } as const;
      const applied = shell.apply(tx, command, undefined, context(now(), p));
      // The balance gate's refusal, and the repeat gate's (one payout, one request: hold/decide.ts), are
      // decisions of their own: audited with why (the other rules refuse input).
      const gate = applied.decision.kind === 'refused' ? applied.decision.reason : undefined;
      if (applied.decision.kind === 'refused' && (gate === 'balance' || gate === 'repeat'))
        appendAudit(tx, {
          at: new Date(now()).toISOString(),
          actor: requesterId,
          action: 'refuse',
          subject: command.id,
          details: {
            amount: checked.amount,
            currency: checked.currency.name,
            network: checked.network.name,
            destination: checked.destination,
            rule: gate,
            ...(gate === 'balance' ? { balance } : {}),
            ...(input.repeatOf ? { repeatOf: input.repeatOf } : {}),
            reason: applied.decision.message,
          },
        });
      return applied;
    });
    if (decision.kind === 'refused') return { ok: false, rule: decision.reason, message: decision.message };
    if (decision.kind === 'unchanged' && decision.request) return { ok: true, request: decision.request };
    if (!event) throw new Error('a withdrawal request produced no record');
    logger.info(
      { id: event.request.id, amount: event.request.amount, currency: event.request.currency },
      'withdrawal requested',
    );
    emit([event]);
    return { ok: true, request: event.request };
  }

  async function approve(
    id: string,
    userId: string,
    facts: { stepUp?: 'verified' | 'not-needed' } = {},
  ): Promise<DecisionOutcome> {
    // Roles and groups (maybe a Slack API call) are looked up only for a request open to decisions;
    // the decider checks everything again inside the commit.
    const early = stateRefusal(stored(id), userId, now());
    if (early) return refusalOutcome(early);
    const isApprover = await hasRole(policy(), 'approvers', userId, groups);
    // Group membership is resolved before the commit (it is async) and recorded with the approval.
    const satisfies: string[] = [];
    if (isApprover)
      for (const entry of stored(id)?.tier.mustInclude ?? [])
        if (await matches([entry], userId, groups)) satisfies.push(entry);
    const applied = await commitOn(id, {
      type: 'approve',
      user: userId,
      isApprover,
      satisfies,
      stepUp: facts.stepUp ?? 'not-needed',
    });
    const outcome = outcomeOf(applied);
    if (!outcome.ok || !applied.event) return outcome;
    const quorum = applied.event.type === 'approved';
    logger.info(
      { id, user: userId, approvals: outcome.request.approvals.length, executing: quorum },
      'withdrawal approved',
    );
    if (o.hooks?.afterApprovalDurable) await o.hooks.afterApprovalDurable(outcome.request);
    emit([applied.event]);
    return quorum ? { ...outcome, execution: sender.start(outcome.request) } : outcome;
  }

  async function reject(id: string, userId: string, reason: string): Promise<DecisionOutcome> {
    const early = stateRefusal(stored(id), userId, now());
    if (early) return refusalOutcome(early);
    const isApprover = await hasRole(policy(), 'approvers', userId, groups);
    const applied = await commitOn(id, { type: 'reject', user: userId, isApprover, reason: String(reason ?? '') });
    if (applied.event) {
      logger.info({ id, user: userId }, 'withdrawal rejected');
      emit([applied.event]);
    }
    return outcomeOf(applied);
  }

  async function resolveUnknown(
    id: string,
    adminId: string,
    outcome: 'sent' | 'not_sent',
    note: string,
  ): Promise<DecisionOutcome> {
    const isAdmin = await hasRole(policy(), 'admins', adminId, groups);
    const applied = await commitOn(id, {
      type: 'resolve-unknown',
      admin: adminId,
      isAdmin,
      outcome,
      note: String(note ?? ''),
    });
    if (applied.event) emit([applied.event]);
    return outcomeOf(applied);
  }

  async function settleHold(
    id: string,
    adminId: string,
    action: 'release' | 'reject',
    reason: string,
  ): Promise<DecisionOutcome> {
    const isAdmin = await hasRole(policy(), 'admins', adminId, groups);
    const applied = await commitOn(id, {
      type: 'settle-hold',
      admin: adminId,
      isAdmin,
      action,
      reason: String(reason ?? ''),
    });
    const outcome = outcomeOf(applied);
    if (!outcome.ok || !applied.event) return outcome;
    logger.warn({ id, admin: adminId, action }, 'a withdrawal on hold was decided by an admin');
    emit([applied.event]);
    // Released past its expiry: it expired instead (nothing sent); the admin is told why, in the form.
    if (applied.event.type === 'expired') return { ok: false, reason: 'expired', message: RELEASED_AFTER_EXPIRY };
    // Released with its approvals complete: sent now, once (the usual claim); pending ones when their last approval comes.
    return applied.event.type === 'released' && outcome.request.state === 'approved'
      ? { ...outcome, execution: sender.start(outcome.request) }
      : outcome;
  }

  // ------------------------------------------------------------------ jobs and recovery

  async function expireDue(): Promise<WithdrawalRequest[]> {
    const ctx = context();
    const events = await commitOnAll({ type: 'expire' }, (r) => expiryDue(r, ctx.now), ctx);
    emit(events);
    return events.map((e) => e.request);
  }

  async function remindersDue(): Promise<WithdrawalRequest[]> {
    const ctx = context();
    const events = await commitOnAll(
      { type: 'remind' },
      (r) => reminderDue(r, ctx.now, ctx.policy.withdrawals.remind_before),
      ctx,
    );
    emit(events);
    return events.map((e) => e.request);
  }

  async function recover() {
    // What happens to each request left by the previous process is the decider's (recoveryAction);
    // one in flight in this process is not a leftover.
    const ctx = context();
    const due = (action: ReturnType<typeof recoveryAction>) => (r: WithdrawalRequest) =>
      !sender.inFlight(r.id) && recoveryAction(r, ctx.now) === action;
    const marked = await commitOnAll({ type: 'mark-unknown-at-startup' }, due('mark-unknown'), ctx);
    const markedUnknown = marked.map((e) => e.request.id);
    if (marked.length) {
      logger.warn(
        { ids: markedUnknown },
        'withdrawals found executing at startup are now unknown and will be reconciled',
      );
      emit(marked);
    }
    const expiredUnsent = await commitOnAll({ type: 'expire-unsent' }, due('expire-unsent'), ctx);
    if (expiredUnsent.length) {
      logger.warn(
        { ids: expiredUnsent.map((e) => e.request.id) },
        'approved withdrawals past their expiry were not sent',
      );
      emit(expiredUnsent);
    }
    const resumed = store.find(WITHDRAWALS, due('send')).map((r) => {
      logger.warn({ id: r.id }, 'resuming an approved withdrawal that was never sent');
      void sender.start(r);
      return r.id;
    });
    const reconcile = await reconciler.run();
    const expired = (await expireDue()).map((r) => r.id);
    return { markedUnknown, resumed, reconcile, expired };
  }

  /** After a policy change: every pending request judged under the policy in force; those now complete are sent. */
  async function recheckPending(): Promise<WithdrawalRequest[]> {
    const changed: WithdrawalRequest[] = [];
    for (const r of store.find(WITHDRAWALS, (x) => x.state === 'pending')) {
      const applied = await commitOn(r.id, { type: 'recheck', facts: await recheckFacts(r) });
      if (!applied.event) continue;
      emit([applied.event]);
      changed.push(applied.event.request);
      if (applied.event.type === 'approved') void sender.start(applied.event.request);
    }
    return changed;
  }

  async function sendApproved() {
    // A send held by the freeze a moment ago may still be finishing: once it has, its request
    // is plainly `approved` again and is picked up below (the claim still makes it once).
    await sender.idle();
    const ctx = context();
    const due = (action: ReturnType<typeof recoveryAction>) => (r: WithdrawalRequest) =>
      !sender.inFlight(r.id) && recoveryAction(r, ctx.now) === action;
    const expiredUnsent = await commitOnAll({ type: 'expire-unsent' }, due('expire-unsent'), ctx);
    emit(expiredUnsent);
    const sent = store.find(WITHDRAWALS, due('send')).map((r) => {
      void sender.start(r);
      return r.id;
    });
    return { sent, expired: expiredUnsent.map((e) => e.request.id) };
  }

  // ------------------------------------------------------------------ webhooks

  /**
   * A withdrawal notification, applied inside the caller's commit (the webhook receiver's, so the
   * claim is as durable as the stored event): recorded, settling nothing. Returns the event, for a
   * caller with a listener to emit once that commit is durable.
   */
  function applyWithdrawalEvent(
    tx: Tx,
    e: WithdrawalEventInput,
  ): WithdrawalEventResult & { event?: WithdrawalEvent; repeats?: WithdrawalEvent[] } {
    const cur = tx.all(WITHDRAWALS).find((x) => x.merchantReference === e.merchantReference);
    if (!cur) return { matched: false, changed: false };
    const { event } = shell.apply(
      tx,
      { type: 'notice', status: e.status, transactionHash: e.transactionHash ?? null },
      cur,
    );
    if (!event) return { matched: true, changed: false, request: cur };
    // "Never executed", and now named by a notification: the rest of its payout waits, as a precaution, in this same commit.
    const repeats = holdFamily(shell, tx, cur, event.request, logger);
    return { matched: true, changed: true, request: event.request, event, ...(repeats.length ? { repeats } : {}) };
  }

  async function checkNotice(merchantReference: string): Promise<WithdrawalRequest | undefined> {
    const req = store.find(WITHDRAWALS, (x) => x.merchantReference === merchantReference)[0];
    return req ? reconciler.check(req.id) : undefined;
  }

  async function onWithdrawalEvent(e: WithdrawalEventInput): Promise<WithdrawalEventResult> {
    const r = await store.commit((tx) => applyWithdrawalEvent(tx, e));
    if (r.event) emit([r.event, ...(r.repeats ?? [])]);
    if (!r.matched) return { matched: false, changed: false };
    const after = await checkNotice(e.merchantReference);
    const request = after ?? r.request;
    return { matched: true, changed: r.changed, ...(request ? { request } : {}) };
  }

  // ------------------------------------------------------------------ who may act

  async function checkDecision(
    id: string,
    userId: string,
    kind: 'approve' | 'reject',
  ): Promise<DecisionOutcome | undefined> {
    const req = stored(id);
    // The state refusals first: a settled, expired or own request needs no role (maybe a Slack group) lookup.
    const refusal =
      stateRefusal(req, userId, now()) ??
      roleRefusal(req!, userId, kind, await hasRole(policy(), 'approvers', userId, groups));
    return refusal && refusalOutcome(refusal);
  }

  /** Pending requests userId could approve right now (their slot is not reserved for someone else). */
  async function awaitingDecisionBy(userId: string): Promise<WithdrawalRequest[]> {
    const t = now();
    const open = list({ state: 'pending' }).filter((r) => !stateRefusal(r, userId, t));
    if (!open.length || !(await hasRole(policy(), 'approvers', userId, groups))) return [];
    const out: WithdrawalRequest[] = [];
    for (const r of open) {
      if (roleRefusal(r, userId, 'approve', true)) continue;
      const reserved = reservedFor(r);
      if (reserved.length && !(await matches(reserved, userId, groups))) continue;
      out.push(r);
    }
    return out;
  }

  /**
   * Whom a reminder is for: the policy's approvers who have not approved and are not the
   * requester (user or group ids), or ['*'] when anyone may approve.
   */
  function reminderTargets(r: WithdrawalRequest): string[] {
    const approvers = policy().people.approvers;
    if (approvers.includes('*')) return ['*'];
    const approved = new Set(r.approvals.map((a) => a.user));
    return approvers.filter((a) => a !== r.requester && !approved.has(a));
  }

  // ------------------------------------------------------------------ reads

  function list(filter: ListFilter = {}): WithdrawalRequest[] {
    const states = filter.state === undefined ? undefined : Array.isArray(filter.state) ? filter.state : [filter.state];
    const currency = filter.currency && (lookup(CURRENCIES, filter.currency)?.name ?? filter.currency);
    const out = store
      .find(
        WITHDRAWALS,
        (r) =>
          (!states || states.includes(r.state)) &&
          (!filter.requester || r.requester === filter.requester) &&
          (!currency || r.currency === currency),
      )
      .reverse();
    return filter.limit === undefined ? out : out.slice(0, filter.limit);
  }

  return {
    request,
    approve,
    reject,
    expireDue,
    remindersDue,
    reconcileUnknown: reconciler.run,
    checkNotice,
    resolveUnknown,
    settleHold,
    recheckPending,
    recover,
    onWithdrawalEvent,
    sendApproved,
    applyWithdrawalEvent,
    checkDecision,
    awaitingDecisionBy,
    reminderTargets,
    get: stored,
    list,
    pendingCount: () => store.find(WITHDRAWALS, (r) => r.state === 'pending').length,
    dailyUsage: (currency) =>
      dailyUsage(policy(), store.all(WITHDRAWALS), lookup(CURRENCIES, currency)?.name ?? currency, now()),
    feeEstimate: (currency, network) => feeEstimate(store.all(WITHDRAWALS), currency, network),
    idle: sender.idle,
    lastBalance: (currency, network) => (o.balances ? (o.balances.last(currency, network) ?? null) : undefined),
  };
}

/** A transfer the service reports as failed, a word that contradicts ours, or a notification the service contradicts: admins must look. */
export function needsAdminAttention(event: WithdrawalEvent): boolean {
  // A repeat held or flagged because the request it repeats was reported after "never executed": may pay (or have paid) twice.
  // A notification the service contradicts may be forged: told once per request (notice.ts).
  if (
    event.type === 'contradiction' ||
    event.type === 'held' ||
    event.type === 'double-payment-risk' ||
    event.type === 'notice-disagreed'
  )
    return true;
  // A payout retyped by hand, made on hold (hold/decide.ts retypedHold): an admin decides.
  if (event.type === 'requested' && event.request.hold) return true;
  const status = event.request.confirmation?.status;
  return event.type === 'confirmation' && (status === 'FAILED' || status === 'NOT_PROPAGATED');
}
