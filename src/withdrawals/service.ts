/**
 * The withdrawal service: the shell around the pure decider (decide.ts), which holds every rule.
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
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { serializeError } from '../log.js';
import type { Store, Tx } from '../store/index.js';
import type { Policy } from '../policy/schema.js';
import { hasRole, matches, type GroupResolver } from '../policy/people.js';
import type { WalletClient } from '../wallet/client.js';
import { CURRENCIES, lookup } from '../wallet/enums.js';
import { appendAudit } from '../audit/log.js';
import { formatAmount } from './money.js';
import { dailyUsage, type DailyUsage } from './rules.js';
import {
  admitRequest,
  decide,
  decisionRefusal,
  expiryDue,
  reminderDue,
  reservedFor,
  type DecideContext,
  type Decision,
  type ListedTransaction,
  type SendOutcome,
  type WithdrawalCommand,
} from './decide.js';
import type {
  DecisionOutcome,
  RequestInput,
  RequestOutcome,
  WithdrawalEvent,
  WithdrawalEventType,
  WithdrawalHooks,
  WithdrawalListener,
  WithdrawalRequest,
  WithdrawalState,
} from './types.js';

export const WITHDRAWALS = 'withdrawals';

export interface WithdrawalServiceOptions {
  store: Store;
  wallet: Pick<WalletClient, 'withdraw' | 'listTransactions'>;
  /** A function lets the app reload the policy without rebuilding the service. */
  policy: Policy | (() => Policy);
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

export interface ReconcileReport {
  checked: number;
  resolved: WithdrawalRequest[];
  stillUnknown: string[];
  errors: Array<{ id: string; message: string }>;
}

export interface WithdrawalEventInput {
  merchantReference: string;
  /** Webhook TransactionStatus: name or code (PENDING, CONFIRMED, FAILED, ...). */
  status: string | number;
  transactionHash?: string | null;
}

export interface WithdrawalEventResult {
  matched: boolean;
  changed: boolean;
  request?: WithdrawalRequest;
}

export interface WithdrawalService {
  request(input: RequestInput, requesterId: string): Promise<RequestOutcome>;
  approve(id: string, userId: string): Promise<DecisionOutcome>;
  reject(id: string, userId: string, reason: string): Promise<DecisionOutcome>;
  /** Pending requests past their expiry become expired; returns them. */
  expireDue(): Promise<WithdrawalRequest[]>;
  /** Pending requests within remind_before of expiry and not yet reminded: recorded as reminded (once) and returned. */
  remindersDue(): Promise<WithdrawalRequest[]>;
  reconcileUnknown(): Promise<ReconcileReport>;
  resolveUnknown(id: string, adminId: string, outcome: 'sent' | 'not_sent', note: string): Promise<DecisionOutcome>;
  /** At startup: executing -> unknown (possibly sent, never resent); approved -> sent once (see idle()); then reconciliation and expiry. */
  recover(): Promise<{ markedUnknown: string[]; resumed: string[]; reconcile: ReconcileReport; expired: string[] }>;
  onWithdrawalEvent(e: WithdrawalEventInput): Promise<WithdrawalEventResult>;
  /** The same, inside a caller's commit (the webhook receiver's); the returned event is for the listener, once that commit is durable. */
  applyWithdrawalEvent(tx: Tx, e: WithdrawalEventInput): WithdrawalEventResult & { event?: WithdrawalEvent };
  /** Whether userId may approve (or reject) the request now: the refusal to show, or undefined. */
  checkDecision(id: string, userId: string, kind: 'approve' | 'reject'): Promise<DecisionOutcome | undefined>;
  awaitingDecisionBy(userId: string): Promise<WithdrawalRequest[]>;
  reminderTargets(r: WithdrawalRequest): string[];
  get(id: string): WithdrawalRequest | undefined;
  list(filter?: ListFilter): WithdrawalRequest[];
  pendingCount(): number;
  dailyUsage(currency: string): DailyUsage;
  /** Waits for sends started by this process to record their results (for shutdown and tests). */
  idle(): Promise<void>;
}

/** A decision taken inside a commit, and the event its change produced (to emit once durable). */
interface Applied<D extends Decision<string> = Decision<string>> {
  decision: D;
  event?: WithdrawalEvent;
}

export function createWithdrawalService(o: WithdrawalServiceOptions): WithdrawalService {
  const { store, wallet, groups, hooks = {}, logger } = o;
  const now = o.now ?? Date.now;
  const policy = (): Policy => (typeof o.policy === 'function' ? o.policy() : o.policy);
  const maxPages = o.reconcileMaxPages ?? 10;
  const pageSize = o.reconcilePageSize ?? 100;
  /** Sends in flight in this process, so recover() never mistakes them for a crash's leftovers. */
  const inFlight = new Map<string, Promise<WithdrawalRequest>>();
  const stored = (id: string) => store.get<WithdrawalRequest>(WITHDRAWALS, id);
  const context = (t = now(), p = policy()): DecideContext => ({ now: t, policy: p });

  function emit(events: readonly WithdrawalEvent[]): void {
    for (const event of events) {
      if (!o.listener) return;
      const failed = (err: unknown) => logger.error({ err: serializeError(err), event: event.type, id: event.request.id }, 'withdrawal listener failed');
      try {
        const r = o.listener(event);
        if (r && typeof (r as Promise<void>).then === 'function') (r as Promise<void>).catch(failed);
      } catch (err) {
        failed(err);
      }
    }
  }

  /** Writes the request and returns the event; the caller emits it after the commit is durable. */
  function save(tx: Tx, req: WithdrawalRequest, type: WithdrawalEventType): WithdrawalEvent {
    tx.put(WITHDRAWALS, req.id, req);
    const event: WithdrawalEvent = { type, request: tx.get<WithdrawalRequest>(WITHDRAWALS, req.id)! };
    if (o.onChange) {
      try {
        o.onChange(event, tx);
      } catch (err) {
        logger.error({ err: serializeError(err), event: type, id: req.id }, 'withdrawal onChange hook failed');
      }
    }
    return event;
  }

  /** Inside a commit: decides on the request as it is now, and writes what the decision says. */
  function apply<C extends WithdrawalCommand>(tx: Tx, command: C, cur: WithdrawalRequest | undefined, ctx: DecideContext = context()): Applied<ReturnType<typeof decide<C>>> {
    const decision = decide(command, cur, ctx);
    switch (decision.kind) {
      case 'refused':
      case 'unchanged':
        return { decision };
      case 'noted':
        appendAudit(tx, decision.audit);
        return { decision };
      case 'changed':
        appendAudit(tx, decision.audit);
        return { decision, event: save(tx, decision.next, decision.event) };
      default: {
        const unhandled: never = decision;
        throw new Error(`unhandled withdrawal decision ${JSON.stringify(unhandled)}`);
      }
    }
  }

  /** The same command for every request that `due` selects, in one commit; the events of the changes. */
  async function applyToAll(command: WithdrawalCommand, due: (r: WithdrawalRequest) => boolean, ctx: DecideContext = context()): Promise<WithdrawalEvent[]> {
    if (!store.find<WithdrawalRequest>(WITHDRAWALS, due).length) return [];
    return store.commit((tx) =>
      tx.all<WithdrawalRequest>(WITHDRAWALS).flatMap((r) => {
        if (!due(r)) return [];
        const { event } = apply(tx, command, r, ctx);
        return event ? [event] : [];
      }),
    );
  }

  /** A decision as the callers see it: a refusal, or the request after it. */
  function outcomeOf({ decision, event }: Applied<Decision>): DecisionOutcome {
    if (decision.kind === 'refused') return { ok: false, reason: decision.reason, message: decision.message };
    const request = event?.request ?? (decision.kind === 'unchanged' ? decision.request : undefined);
    if (!request) throw new Error('a withdrawal decision produced no request');
    return { ok: true, request };
  }

  // ------------------------------------------------------------------ request and decisions

  async function request(input: RequestInput, requesterId: string): Promise<RequestOutcome> {
    const p = policy();
    const checked = admitRequest(p, input, await hasRole(p, 'requesters', requesterId, groups));
    if (!checked.ok) return checked;
    const { decision, event } = await store.commit((tx) => {
      const command = {
        type: 'request',
        requester: requesterId,
        checked,
        ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
        id: randomUUID(),
        merchantReference: randomUUID(),
        existing: tx.all<WithdrawalRequest>(WITHDRAWALS),
      } as const;
      return apply(tx, command, undefined, context(now(), p));
    });
    if (decision.kind === 'refused') return { ok: false, rule: decision.reason, message: decision.message };
    if (decision.kind === 'unchanged' && decision.request) return { ok: true, request: decision.request };
    if (!event) throw new Error('a withdrawal request produced no record');
    logger.info({ id: event.request.id, amount: event.request.amount, currency: event.request.currency }, 'withdrawal requested');
    emit([event]);
    return { ok: true, request: event.request };
  }

  async function approve(id: string, userId: string): Promise<DecisionOutcome> {
    const p = policy();
    const isApprover = await hasRole(p, 'approvers', userId, groups);
    // Group membership is resolved before the commit (it is async) and recorded with the approval.
    const satisfies: string[] = [];
    for (const entry of stored(id)?.tier.mustInclude ?? []) if (await matches([entry], userId, groups)) satisfies.push(entry);

    const applied = await store.commit((tx) => apply(tx, { type: 'approve', user: userId, isApprover, satisfies }, tx.get<WithdrawalRequest>(WITHDRAWALS, id)));
    const outcome = outcomeOf(applied);
    if (!outcome.ok || !applied.event) return outcome;
    const quorum = applied.event.type === 'approved';
    logger.info({ id, user: userId, approvals: outcome.request.approvals.length, executing: quorum }, 'withdrawal approved');
    if (hooks.afterApprovalDurable) await hooks.afterApprovalDurable(outcome.request);
    emit([applied.event]);
    return quorum ? { ...outcome, execution: startSend(outcome.request) } : outcome;
  }

  async function reject(id: string, userId: string, reason: string): Promise<DecisionOutcome> {
    const isApprover = await hasRole(policy(), 'approvers', userId, groups);
    const command = { type: 'reject', user: userId, isApprover, reason: String(reason ?? '') } as const;
    const applied = await store.commit((tx) => apply(tx, command, tx.get<WithdrawalRequest>(WITHDRAWALS, id)));
    if (applied.event) {
      logger.info({ id, user: userId }, 'withdrawal rejected');
      emit([applied.event]);
    }
    return outcomeOf(applied);
  }

  async function resolveUnknown(id: string, adminId: string, outcome: 'sent' | 'not_sent', note: string): Promise<DecisionOutcome> {
    const isAdmin = await hasRole(policy(), 'admins', adminId, groups);
    const command = { type: 'resolve-unknown', admin: adminId, isAdmin, outcome, note: String(note ?? '') } as const;
    const applied = await store.commit((tx) => apply(tx, command, tx.get<WithdrawalRequest>(WITHDRAWALS, id)));
    if (applied.event) emit([applied.event]);
    return outcomeOf(applied);
  }

  // ------------------------------------------------------------------ sending

  function startSend(req: WithdrawalRequest): Promise<WithdrawalRequest> {
    const running = send(req)
      .catch((err: unknown) => {
        // Only the store can fail here; a restart resumes it (approved) or reconciles it (executing).
        logger.error({ err: serializeError(err), id: req.id }, 'could not record the outcome of a withdrawal; it will be reconciled after restart');
        return stored(req.id) ?? req;
      })
      .finally(() => inFlight.delete(req.id));
    inFlight.set(req.id, running);
    return running;
  }

  async function send(approved: WithdrawalRequest): Promise<WithdrawalRequest> {
    // Compare-and-set approved -> executing, durable before the wallet call: whoever wins sends,
    // and a restart that finds `executing` knows it may have been sent.
    const claim = await store.commit((tx) => apply(tx, { type: 'claim-for-sending' }, tx.get<WithdrawalRequest>(WITHDRAWALS, approved.id)));
    if (!claim.event) return claim.decision.kind === 'unchanged' ? (claim.decision.request ?? approved) : approved;
    const req = claim.event.request;
    emit([claim.event]);
    if (hooks.afterExecutingDurable) await hooks.afterExecutingDurable(req);
    let outcome: SendOutcome;
    try {
      const answer = await wallet.withdraw({
        amount: req.amount,
        currency: req.currency,
        network: req.network,
        destinationAddress: req.destination,
        clientEmail: req.clientEmail,
        merchantReference: req.merchantReference,
        ...(req.note ? { description: req.note } : {}),
      });
      outcome = { ok: true, answer };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (hooks.afterWalletAnswered) await hooks.afterWalletAnswered(req, outcome.ok ? 'success' : 'error');

    const { decision, event } = await store.commit((tx) =>
      apply(tx, { type: 'record-send-outcome', requestId: req.id, outcome }, tx.get<WithdrawalRequest>(WITHDRAWALS, req.id)),
    );
    const mismatches = event?.request.result?.source === 'wallet' ? event.request.result.mismatches : undefined;
    if (mismatches?.length) logger.error({ id: req.id, mismatches }, 'the wallet service answered for something other than what was approved');
    const after = event?.request ?? (decision.kind === 'unchanged' ? decision.request : undefined) ?? stored(req.id) ?? req;
    logger.info({ id: req.id, state: after.state }, 'withdrawal send recorded');
    if (event) emit([event]);
    return after;
  }

  // ------------------------------------------------------------------ jobs

  async function expireDue(): Promise<WithdrawalRequest[]> {
    const ctx = context();
    const events = await applyToAll({ type: 'expire' }, (r) => expiryDue(r, ctx.now), ctx);
    emit(events);
    return events.map((e) => e.request);
  }

  async function remindersDue(): Promise<WithdrawalRequest[]> {
    const ctx = context();
    const events = await applyToAll({ type: 'remind' }, (r) => reminderDue(r, ctx), ctx);
    emit(events);
    return events.map((e) => e.request);
  }

  // ------------------------------------------------------------------ reconciliation and recovery

  async function findInTransactions(req: WithdrawalRequest): Promise<ListedTransaction | undefined> {
    for (let page = 1; page <= maxPages; page++) {
      const res = await wallet.listTransactions({ address: req.destination, type: 'withdrawal', page, pageSize });
      const hit = res.records.find((rec) => rec.reference === req.merchantReference);
      if (hit) return hit;
      if (page >= res.totalPages || res.records.length === 0) return undefined;
    }
    logger.warn({ id: req.id, maxPages, currency: lookup(CURRENCIES, req.currency)?.name }, 'reconciliation stopped after the page limit without finding the reference');
    return undefined;
  }

  async function reconcileUnknown(): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, resolved: [], stillUnknown: [], errors: [] };
    for (const req of store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.state === 'unknown')) {
      report.checked++;
      let found: ListedTransaction | undefined;
      try {
        found = await findInTransactions(req);
      } catch (err) {
        report.errors.push({ id: req.id, message: err instanceof Error ? err.message : String(err) });
        report.stillUnknown.push(req.id);
        logger.warn({ id: req.id, err: serializeError(err) }, 'reconciliation could not read the transaction list');
        continue;
      }
      // A record whose status we cannot read proves it reached the service, not how it ended.
      if (!found || found.status === 'unknown') {
        report.stillUnknown.push(req.id);
        continue;
      }
      const hit = found;
      const { event } = await store.commit((tx) => apply(tx, { type: 'reconcile', found: hit }, tx.get<WithdrawalRequest>(WITHDRAWALS, req.id)));
      if (event) {
        report.resolved.push(event.request);
        emit([event]);
      }
    }
    if (report.checked) logger.info({ checked: report.checked, resolved: report.resolved.length, stillUnknown: report.stillUnknown.length }, 'reconciled unknown withdrawals');
    return report;
  }

  async function recover() {
    const marked = await applyToAll({ type: 'mark-unknown-at-startup' }, (r) => r.state === 'executing' && !inFlight.has(r.id));
    const markedUnknown = marked.map((e) => e.request.id);
    if (marked.length) {
      logger.warn({ ids: markedUnknown }, 'withdrawals found executing at startup are now unknown and will be reconciled');
      emit(marked);
    }
    // Approved but never claimed for sending: nothing reached the wallet service. Within its
    // expiry it is sent now, once; past it (a long outage) nobody expects it to go any more.
    const approved = store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.state === 'approved' && !inFlight.has(r.id));
    const t = now();
    const overdue = new Set(approved.filter((r) => Date.parse(r.expiresAt) <= t).map((r) => r.id));
    if (overdue.size) {
      const expired = await applyToAll({ type: 'expire-unsent' }, (r) => overdue.has(r.id) && r.state === 'approved');
      logger.warn({ ids: expired.map((e) => e.request.id) }, 'approved withdrawals past their expiry were not sent');
      emit(expired);
    }
    const resumed = approved
      .filter((r) => !overdue.has(r.id))
      .map((r) => {
        logger.warn({ id: r.id }, 'resuming an approved withdrawal that was never sent');
        void startSend(r);
        return r.id;
      });
    const reconcile = await reconcileUnknown();
    const expired = (await expireDue()).map((r) => r.id);
    return { markedUnknown, resumed, reconcile, expired };
  }

  // ------------------------------------------------------------------ webhooks

  /**
   * A withdrawal webhook, applied inside the caller's commit (the webhook receiver's, so the
   * effect is as durable as the stored event). Returns the event to emit after that commit.
   */
  function applyWithdrawalEvent(tx: Tx, e: WithdrawalEventInput): WithdrawalEventResult & { event?: WithdrawalEvent } {
    const cur = tx.all<WithdrawalRequest>(WITHDRAWALS).find((x) => x.merchantReference === e.merchantReference);
    if (!cur) return { matched: false, changed: false };
    const { event } = apply(tx, { type: 'apply-webhook', status: e.status, transactionHash: e.transactionHash ?? null }, cur);
    return event ? { matched: true, changed: true, request: event.request, event } : { matched: true, changed: false, request: cur };
  }

  async function onWithdrawalEvent(e: WithdrawalEventInput): Promise<WithdrawalEventResult> {
    const r = await store.commit((tx) => applyWithdrawalEvent(tx, e));
    if (r.event) emit([r.event]);
    return { matched: r.matched, changed: r.changed, ...(r.request ? { request: r.request } : {}) };
  }

  // ------------------------------------------------------------------ who may act

  async function checkDecision(id: string, userId: string, kind: 'approve' | 'reject'): Promise<DecisionOutcome | undefined> {
    const isApprover = await hasRole(policy(), 'approvers', userId, groups);
    const refusal = decisionRefusal(stored(id), userId, kind, { isApprover, now: now() });
    return refusal && { ok: false, reason: refusal.reason, message: refusal.message };
  }

  /** Pending requests userId could approve right now (their slot is not reserved for someone else). */
  async function awaitingDecisionBy(userId: string): Promise<WithdrawalRequest[]> {
    const out: WithdrawalRequest[] = [];
    for (const r of list({ state: 'pending' })) {
      if (await checkDecision(r.id, userId, 'approve')) continue;
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
      .find<WithdrawalRequest>(
        WITHDRAWALS,
        (r) => (!states || states.includes(r.state)) && (!filter.requester || r.requester === filter.requester) && (!currency || r.currency === currency),
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
    reconcileUnknown,
    resolveUnknown,
    recover,
    onWithdrawalEvent,
    applyWithdrawalEvent,
    checkDecision,
    awaitingDecisionBy,
    reminderTargets,
    get: stored,
    list,
    pendingCount: () => store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.state === 'pending').length,
    dailyUsage: (currency) => dailyUsage(policy(), store.all<WithdrawalRequest>(WITHDRAWALS), lookup(CURRENCIES, currency)?.name ?? currency, now()),
    idle: async () => {
      while (inFlight.size) await Promise.all([...inFlight.values()]);
    },
  };
}

/** A transfer the service reports as failed, or a final word that contradicts ours: admins must look. */
export function needsAdminAttention(event: WithdrawalEvent): boolean {
  if (event.type === 'contradiction') return true;
  const status = event.request.confirmation?.status;
  return event.type === 'confirmation' && (status === 'FAILED' || status === 'NOT_PROPAGATED');
}

/** One line for a card or a DM: "250 USDT to 0x… on BSC". */
export function describeRequest(r: Pick<WithdrawalRequest, 'amount' | 'currency' | 'network' | 'destination'>): string {
  return `${formatAmount(r.amount, r.currency)} to ${r.destination} on ${r.network}`;
}
