/**
 * The withdrawal request state machine (ARCHITECTURE.md sections 4 and 7).
 *
 * Every change is a compare-and-set inside one store commit, together with its audit entry;
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
import { WalletError, WalletRejectedError } from '../wallet/errors.js';
import { CURRENCIES, WEBHOOK_STATUSES, WEBHOOK_STATUS_RANK, isFinalWebhookStatus, lookup } from '../wallet/enums.js';
import { appendAudit } from '../audit/log.js';
import { Dec } from './money.js';
import { checkAllowlist, checkDailyLimit, checkInput, dailyUsage, type DailyUsage } from './rules.js';
import { formatAmount } from './money.js';
import type {
  DecisionOutcome,
  DecisionReason,
  RequestInput,
  RequestOutcome,
  WithdrawalEvent,
  WithdrawalEventType,
  WithdrawalHooks,
  WithdrawalListener,
  WithdrawalRequest,
  WithdrawalResultRecord,
  WithdrawalState,
} from './types.js';

export const WITHDRAWALS = 'withdrawals';
const SYSTEM = 'system';

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
  /** The same, inside a caller's commit (the webhook receiver's); emit the returned event once it is durable. */
  applyWithdrawalEvent(tx: Tx, e: WithdrawalEventInput): WithdrawalEventResult & { event?: WithdrawalEvent };
  emitAfterCommit(event: WithdrawalEvent): void;
  checkDecision(id: string, userId: string, kind: 'approve' | 'reject'): Promise<DecisionOutcome | undefined>;
  awaitingDecisionBy(userId: string): Promise<WithdrawalRequest[]>;
  reminderTargets(r: WithdrawalRequest): string[];
  get(id: string): WithdrawalRequest | undefined;
  getByReference(merchantReference: string): WithdrawalRequest | undefined;
  list(filter?: ListFilter): WithdrawalRequest[];
  pendingCount(): number;
  dailyUsage(currency: string): DailyUsage;
  /** Waits for sends started by this process to record their results (for shutdown and tests). */
  idle(): Promise<void>;
}


export function createWithdrawalService(o: WithdrawalServiceOptions): WithdrawalService {
  const { store, wallet, groups, hooks = {} } = o;
  const logger = o.logger;
  const now = o.now ?? Date.now;
  const policy = (): Policy => (typeof o.policy === 'function' ? o.policy() : o.policy);
  const maxPages = o.reconcileMaxPages ?? 10;
  const pageSize = o.reconcilePageSize ?? 100;
  /** Sends in flight in this process, so recover() never mistakes them for a crash's leftovers. */
  const inFlight = new Map<string, Promise<WithdrawalRequest>>();

  const iso = (ms = now()) => new Date(ms).toISOString();

  function emit(events: WithdrawalEvent[]): void {
    for (const event of events) {
      if (!o.listener) return;
      try {
        const r = o.listener(event);
        if (r && typeof (r as Promise<void>).then === 'function') {
          (r as Promise<void>).catch((err: unknown) => logger.error({ err: serializeError(err), event: event.type, id: event.request.id }, 'withdrawal listener failed'));
        }
      } catch (err) {
        logger.error({ err: serializeError(err), event: event.type, id: event.request.id }, 'withdrawal listener failed');
      }
    }
  }

  /** Writes the request and returns the event; the caller emits after the commit is durable. */
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

  function transition(req: WithdrawalRequest, state: WithdrawalState, by: string, at: string, note?: string, patch: Partial<WithdrawalRequest> = {}): WithdrawalRequest {
    return { ...req, ...patch, state, history: [...req.history, { at, state, by, ...(note ? { note } : {}) }] };
  }

  const deny = (reason: DecisionReason, message: string): DecisionOutcome => ({ ok: false, reason, message });

  // ------------------------------------------------------------------ request

  async function request(input: RequestInput, requesterId: string): Promise<RequestOutcome> {
    const p = policy();
    if (!(await hasRole(p, 'requesters', requesterId, groups))) {
      return { ok: false, rule: 'not_requester', message: 'You are not allowed to request withdrawals: only the people listed under people.requesters in the treasury policy can.' };
    }
    const checked = checkInput(p, input);
    if (!checked.ok) return checked;

    const outcome = await store.commit((tx): RequestOutcome & { event?: WithdrawalEvent } => {
      const t = now();
      const existing = tx.all<WithdrawalRequest>(WITHDRAWALS);
      const key = input.idempotencyKey;
      const again = key ? existing.find((r) => r.idempotencyKey === key && r.requester === requesterId) : undefined;
      if (again) return { ok: true, request: again };
      const allowlist = checkAllowlist(p, checked, existing);
      if ('ok' in allowlist) return allowlist;
      // Inside the commit: two requests racing cannot both fit under the limit.
      const over = checkDailyLimit(p, existing, checked.currency.name, checked.amount, t);
      if (over) return over;
      const at = iso(t);
      const req: WithdrawalRequest = {
        id: randomUUID(),
        merchantReference: randomUUID(),
        requester: requesterId,
        amount: checked.amount,
        currency: checked.currency.name,
        network: checked.network.name,
        destination: checked.destination,
        clientEmail: checked.clientEmail,
        note: checked.note,
        state: 'pending',
        ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
        tier: checked.tier,
        approvals: [],
        createdAt: at,
        expiresAt: iso(t + p.withdrawals.expires_after),
        allowlist,
        history: [{ at, state: 'pending', by: requesterId }],
      };
      appendAudit(tx, {
        at,
        actor: requesterId,
        action: 'request',
        subject: req.id,
        details: {
          merchantReference: req.merchantReference,
          amount: req.amount,
          currency: req.currency,
          network: req.network,
          destination: req.destination,
          clientEmail: req.clientEmail,
          note: req.note,
          tier: req.tier,
          allowlist: req.allowlist,
          expiresAt: req.expiresAt,
        },
      });
      const event = save(tx, req, 'requested');
      return { ok: true, request: event.request, event };
    });
    if (outcome.ok) {
      logger.info({ id: outcome.request.id, amount: outcome.request.amount, currency: outcome.request.currency }, 'withdrawal requested');
      if (outcome.event) emit([outcome.event]);
      return { ok: true, request: outcome.request };
    }
    return { ok: false, rule: outcome.rule, message: outcome.message };
  }

  // ------------------------------------------------------------------ decisions

  /** Refusals shared by approve and reject; undefined when the request is open for decisions. */
  function decisionRefusal(req: WithdrawalRequest | undefined, userId: string, t: number): DecisionOutcome | undefined {
    if (!req) return deny('not_found', 'There is no such withdrawal request.');
    if (req.state !== 'pending') return deny('not_pending', `This request is no longer waiting for decisions (it is ${req.state}).`);
    if (t >= Date.parse(req.expiresAt)) return deny('expired', 'This request has expired.');
    if (req.requester === userId) return deny('own_request', 'You cannot decide on your own withdrawal request.');
    return undefined;
  }

  function approvalsComplete(req: WithdrawalRequest): boolean {
    if (req.approvals.length < req.tier.approvals) return false;
    return req.tier.mustInclude.every((entry) => req.approvals.some((a) => a.satisfies.includes(entry)));
  }

  async function approve(id: string, userId: string): Promise<DecisionOutcome> {
    const p = policy();
    const before = store.get<WithdrawalRequest>(WITHDRAWALS, id);
    const eligible = await hasRole(p, 'approvers', userId, groups);
    // Group membership is resolved before the commit (it is async) and recorded with the approval.
    const satisfies: string[] = [];
    for (const entry of before?.tier.mustInclude ?? []) if (await matches([entry], userId, groups)) satisfies.push(entry);

    const r = await store.commit((tx) => {
      const t = now();
      const req = tx.get<WithdrawalRequest>(WITHDRAWALS, id);
      const refusal = decisionRefusal(req, userId, t);
      if (refusal) return { outcome: refusal, events: [] as WithdrawalEvent[], executing: false };
      const cur = req!;
      if (!eligible) return { outcome: deny('not_approver', 'You are not an approver in the treasury policy.'), events: [], executing: false };
      if (cur.approvals.some((a) => a.user === userId)) {
        return { outcome: deny('already_approved', 'You have already approved this request.'), events: [], executing: false };
      }
      // The remaining slots are reserved for must_include entries nobody has satisfied yet.
      const missing = cur.tier.mustInclude.filter((e) => !cur.approvals.some((a) => a.satisfies.includes(e)));
      const slotsLeft = cur.tier.approvals - cur.approvals.length;
      if (missing.length >= slotsLeft && !missing.some((e) => satisfies.includes(e))) {
        return {
          outcome: deny('must_include_required', `This request still needs the approval of ${missing.join(', ')} (required by its tier).`),
          events: [],
          executing: false,
        };
      }
      const at = iso(t);
      let next: WithdrawalRequest = { ...cur, approvals: [...cur.approvals, { user: userId, at, satisfies }] };
      appendAudit(tx, { at, actor: userId, action: 'approve', subject: id, details: { approvals: next.approvals.length, required: cur.tier.approvals, satisfies } });
      const events: WithdrawalEvent[] = [];
      let executing = false;
      if (approvalsComplete(next)) {
        // Durable before anything is sent; the send itself first moves it to executing (startSend).
        next = transition(next, 'approved', userId, at);
        events.push(save(tx, next, 'approved'));
        executing = true;
      } else {
        events.push(save(tx, next, 'approved'));
      }
      const outcome: DecisionOutcome = { ok: true, request: events[0]!.request };
      return { outcome, events, executing };
    });

    if (!r.outcome.ok) return r.outcome;
    logger.info({ id, user: userId, approvals: r.outcome.request.approvals.length, executing: r.executing }, 'withdrawal approved');
    if (hooks.afterApprovalDurable) await hooks.afterApprovalDurable(r.outcome.request);
    emit(r.events);
    if (!r.executing) return r.outcome;
    const execution = startSend(r.outcome.request);
    return { ...r.outcome, execution };
  }

  async function reject(id: string, userId: string, reason: string): Promise<DecisionOutcome> {
    const p = policy();
    const text = String(reason ?? '').trim();
    const eligible = await hasRole(p, 'approvers', userId, groups);
    const r = await store.commit((tx) => {
      const t = now();
      const req = tx.get<WithdrawalRequest>(WITHDRAWALS, id);
      const refusal = decisionRefusal(req, userId, t);
      if (refusal) return { outcome: refusal };
      if (!eligible) return { outcome: deny('not_approver', 'You are not an approver in the treasury policy.') };
      if (req!.approvals.some((a) => a.user === userId)) {
        return { outcome: deny('already_approved', 'You have already approved this request, so you cannot also reject it; ask another approver.') };
      }
      if (!text) return { outcome: deny('reason_required', 'A rejection needs a reason.') };
      const at = iso(t);
      const next = transition(req!, 'rejected', userId, at, text, { rejection: { user: userId, at, reason: text } });
      appendAudit(tx, { at, actor: userId, action: 'reject', subject: id, details: { reason: text } });
      const event = save(tx, next, 'rejected');
      return { outcome: { ok: true, request: event.request } as DecisionOutcome, event };
    });
    if (r.outcome.ok) {
      logger.info({ id, user: userId }, 'withdrawal rejected');
      if ('event' in r && r.event) emit([r.event]);
    }
    return r.outcome;
  }

  // ------------------------------------------------------------------ sending

  function startSend(req: WithdrawalRequest): Promise<WithdrawalRequest> {
    const running = send(req)
      .catch((err: unknown) => {
        // Only the store can fail here; a restart resumes it (approved) or reconciles it (executing).
        logger.error({ err: serializeError(err), id: req.id }, 'could not record the outcome of a withdrawal; it will be reconciled after restart');
        return store.get<WithdrawalRequest>(WITHDRAWALS, req.id) ?? req;
      })
      .finally(() => inFlight.delete(req.id));
    inFlight.set(req.id, running);
    return running;
  }

  async function send(approved: WithdrawalRequest): Promise<WithdrawalRequest> {
    // Compare-and-set approved -> executing, durable before the wallet call: whoever wins sends,
    // and a restart that finds `executing` knows it may have been sent.
    const claim = await store.commit((tx) => {
      const cur = tx.get<WithdrawalRequest>(WITHDRAWALS, approved.id);
      if (!cur || cur.state !== 'approved') return { request: cur ?? approved, event: undefined };
      const at = iso();
      const next = transition(cur, 'executing', SYSTEM, at, undefined, { sendStartedAt: at });
      appendAudit(tx, {
        at,
        actor: SYSTEM,
        action: 'send',
        subject: cur.id,
        details: { merchantReference: cur.merchantReference, amount: cur.amount, currency: cur.currency, network: cur.network, destination: cur.destination },
      });
      return { request: next, event: save(tx, next, 'executing') };
    });
    if (!claim.event) return claim.request;
    const req = claim.request;
    emit([claim.event]);
    if (hooks.afterExecutingDurable) await hooks.afterExecutingDurable(req);
    let result: Awaited<ReturnType<typeof wallet.withdraw>> | undefined;
    let failure: unknown;
    try {
      result = await wallet.withdraw({
        amount: req.amount,
        currency: req.currency,
        network: req.network,
        destinationAddress: req.destination,
        clientEmail: req.clientEmail,
        merchantReference: req.merchantReference,
        ...(req.note ? { description: req.note } : {}),
      });
    } catch (err) {
      failure = err;
    }
    if (hooks.afterWalletAnswered) await hooks.afterWalletAnswered(req, result ? 'success' : 'error');

    const r = await store.commit((tx) => {
      const cur = tx.get<WithdrawalRequest>(WITHDRAWALS, req.id);
      const at = iso();
      if (!cur || cur.state !== 'executing') {
        // A webhook resolved it while the answer was on its way; keep the answer in the audit log only.
        appendAudit(tx, { at, actor: SYSTEM, action: 'result', subject: req.id, details: { ignored: true, state: cur?.state ?? null, ...outcomeDetails(result, failure) } });
        return { request: cur ?? req, event: undefined };
      }
      if (result) {
        const mismatches = answerMismatches(cur, result);
        const rec: WithdrawalResultRecord = {
          source: 'wallet',
          serviceReference: result.serviceReference,
          amount: result.amount,
          fee: result.fee,
          feeCurrency: result.feeCurrency?.name ?? null,
          transactionHash: cur.confirmation?.transactionHash ?? null,
          ...(mismatches.length ? { mismatches } : {}),
        };
        if (mismatches.length) logger.error({ id: req.id, mismatches }, 'the wallet service answered for something other than what was approved');
        const next = transition(cur, 'completed', SYSTEM, at, undefined, { result: rec });
        appendAudit(tx, { at, actor: SYSTEM, action: 'result', subject: req.id, details: { outcome: 'completed', ...rec } });
        return { request: next, event: save(tx, next, 'completed') };
      }
      const c = classify(failure);
      if (c.state === 'unknown') {
        const next = transition(cur, 'unknown', SYSTEM, at, c.message, { unknownReason: c.message });
        appendAudit(tx, { at, actor: SYSTEM, action: 'unknown', subject: req.id, details: { reason: c.message, errorKind: c.kind } });
        return { request: next, event: save(tx, next, 'unknown') };
      }
      const next = transition(cur, 'failed', SYSTEM, at, c.message, { error: { kind: c.errorKind, message: c.message } });
      appendAudit(tx, { at, actor: SYSTEM, action: 'result', subject: req.id, details: { outcome: 'failed', errorKind: c.kind, message: c.message } });
      return { request: next, event: save(tx, next, 'failed') };
    });
    logger.info({ id: req.id, state: r.request.state }, 'withdrawal send recorded');
    if (r.event) emit([r.event]);
    return r.request;
  }

  /** The service's answer checked against what was approved: it must be about the same payment. */
  function answerMismatches(req: WithdrawalRequest, result: Awaited<ReturnType<typeof wallet.withdraw>>): string[] {
    const out: string[] = [];
    if (result.merchantReference && result.merchantReference !== req.merchantReference) {
      out.push(`merchant reference ${result.merchantReference} instead of ${req.merchantReference}`);
    }
    if (result.destinationAddress && result.destinationAddress.toLowerCase() !== req.destination.toLowerCase()) {
      out.push(`destination ${result.destinationAddress} instead of ${req.destination}`);
    }
    const requested = result.amountRequested ?? result.amount;
    if (requested && !new Dec(requested).eq(req.amount)) out.push(`amount ${requested} instead of ${req.amount}`);
    return out;
  }

  function outcomeDetails(result: { serviceReference: string; amount: string } | undefined, failure: unknown): Record<string, unknown> {
    if (result) return { serviceReference: result.serviceReference, amount: result.amount };
    return { error: failure instanceof Error ? failure.message : String(failure) };
  }

  function classify(err: unknown): { state: 'failed' | 'unknown'; errorKind: 'rejected' | 'not_sent'; kind: string; message: string } {
    if (err instanceof WalletRejectedError) {
      return { state: 'failed', errorKind: 'rejected', kind: err.kind, message: `The wallet service refused the withdrawal: ${err.serviceMessage}` };
    }
    if (err instanceof WalletError && !err.mayHaveChanged) {
      return { state: 'failed', errorKind: 'not_sent', kind: err.kind, message: `Nothing was sent: ${err.message}` };
    }
    if (err instanceof WalletError) {
      return { state: 'unknown', errorKind: 'not_sent', kind: err.kind, message: err.message };
    }
    // Not a wallet error: we cannot tell how far the call got, so assume it may have gone out.
    return { state: 'unknown', errorKind: 'not_sent', kind: 'internal', message: 'The withdrawal call failed inside the app; the money may have moved.' };
  }

  // ------------------------------------------------------------------ jobs

  async function expireDue(): Promise<WithdrawalRequest[]> {
    const t = now();
    if (!store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.state === 'pending' && t >= Date.parse(r.expiresAt)).length) return [];
    const events = await store.commit((tx) => {
      const out: WithdrawalEvent[] = [];
      const at = iso(t);
      for (const r of tx.all<WithdrawalRequest>(WITHDRAWALS)) {
        if (r.state !== 'pending' || t < Date.parse(r.expiresAt)) continue;
        const next = transition(r, 'expired', SYSTEM, at, `not approved by ${r.expiresAt}`);
        appendAudit(tx, { at, actor: SYSTEM, action: 'expire', subject: r.id, details: { expiresAt: r.expiresAt, approvals: r.approvals.length, required: r.tier.approvals } });
        out.push(save(tx, next, 'expired'));
      }
      return out;
    });
    emit(events);
    return events.map((e) => e.request);
  }

  async function remindersDue(): Promise<WithdrawalRequest[]> {
    const t = now();
    const before = policy().withdrawals.remind_before;
    const due = (r: WithdrawalRequest) => r.state === 'pending' && !r.reminderSentAt && t >= Date.parse(r.expiresAt) - before && t < Date.parse(r.expiresAt);
    if (!store.find<WithdrawalRequest>(WITHDRAWALS, due).length) return [];
    const events = await store.commit((tx) => {
      const out: WithdrawalEvent[] = [];
      const at = iso(t);
      for (const r of tx.all<WithdrawalRequest>(WITHDRAWALS)) {
        if (!due(r)) continue;
        appendAudit(tx, { at, actor: SYSTEM, action: 'remind', subject: r.id, details: { expiresAt: r.expiresAt, approvals: r.approvals.length, required: r.tier.approvals } });
        out.push(save(tx, { ...r, reminderSentAt: at }, 'reminder'));
      }
      return out;
    });
    emit(events);
    return events.map((e) => e.request);
  }

  // ------------------------------------------------------------------ reconciliation

  async function findInTransactions(req: WithdrawalRequest) {
    const currency = lookup(CURRENCIES, req.currency);
    for (let page = 1; page <= maxPages; page++) {
      const res = await wallet.listTransactions({ address: req.destination, type: 'withdrawal', page, pageSize });
      const hit = res.records.find((rec) => rec.reference === req.merchantReference);
      if (hit) return hit;
      if (page >= res.totalPages || res.records.length === 0) return undefined;
    }
    logger.warn({ id: req.id, maxPages, currency: currency?.name }, 'reconciliation stopped after the page limit without finding the reference');
    return undefined;
  }

  async function reconcileUnknown(): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, resolved: [], stillUnknown: [], errors: [] };
    for (const req of store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.state === 'unknown')) {
      report.checked++;
      let hit: Awaited<ReturnType<typeof findInTransactions>>;
      try {
        hit = await findInTransactions(req);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        report.errors.push({ id: req.id, message });
        report.stillUnknown.push(req.id);
        logger.warn({ id: req.id, err: serializeError(err) }, 'reconciliation could not read the transaction list');
        continue;
      }
      // A record whose status we cannot read proves it reached the service, not how it ended.
      if (!hit || hit.status === 'unknown') {
        report.stillUnknown.push(req.id);
        continue;
      }
      const r = await store.commit((tx) => {
        const cur = tx.get<WithdrawalRequest>(WITHDRAWALS, req.id);
        if (!cur || cur.state !== 'unknown') return undefined;
        const at = iso();
        const details = { reference: hit.reference, status: hit.status, amount: hit.amount, transactionHash: hit.hash };
        let next: WithdrawalRequest;
        if (hit.status === 'failed') {
          next = transition(cur, 'failed', SYSTEM, at, 'the transaction list shows it failed', {
            error: { kind: 'reported_failed', message: 'The wallet service received the withdrawal and lists it as failed.' },
            result: { source: 'reconcile', serviceReference: null, amount: hit.amount, fee: null, feeCurrency: null, transactionHash: hit.hash },
          });
        } else {
          next = transition(cur, 'completed', SYSTEM, at, 'found in the transaction list', {
            result: { source: 'reconcile', serviceReference: null, amount: hit.amount, fee: null, feeCurrency: null, transactionHash: hit.hash },
          });
        }
        appendAudit(tx, { at, actor: SYSTEM, action: 'reconcile', subject: req.id, details: { outcome: next.state, ...details } });
        return save(tx, next, next.state === 'completed' ? 'completed' : 'failed');
      });
      if (r) {
        report.resolved.push(r.request);
        emit([r]);
      }
    }
    if (report.checked) logger.info({ checked: report.checked, resolved: report.resolved.length, stillUnknown: report.stillUnknown.length }, 'reconciled unknown withdrawals');
    return report;
  }

  async function resolveUnknown(id: string, adminId: string, outcome: 'sent' | 'not_sent', note: string): Promise<DecisionOutcome> {
    const text = String(note ?? '').trim();
    const isAdmin = await hasRole(policy(), 'admins', adminId, groups);
    const r = await store.commit((tx) => {
      const cur = tx.get<WithdrawalRequest>(WITHDRAWALS, id);
      if (!cur) return { outcome: deny('not_found', 'There is no such withdrawal request.') };
      if (!isAdmin) return { outcome: deny('not_admin', 'Only treasury admins can resolve a withdrawal whose outcome is unknown.') };
      if (cur.state !== 'unknown') return { outcome: deny('not_unknown', `Only a request whose outcome is unknown can be resolved (this one is ${cur.state}).`) };
      if (!text) return { outcome: deny('note_required', 'Say how you established the outcome (a note is required).') };
      const at = iso();
      const resolution = { by: adminId, at, outcome, note: text };
      const next =
        outcome === 'sent'
          ? transition(cur, 'completed', adminId, at, text, {
              resolution,
              result: { source: 'admin', serviceReference: null, amount: cur.amount, fee: null, feeCurrency: null, transactionHash: cur.confirmation?.transactionHash ?? null },
            })
          : transition(cur, 'failed', adminId, at, text, { resolution, error: { kind: 'admin_not_sent', message: `Resolved by an admin as not sent: ${text}` } });
      appendAudit(tx, { at, actor: adminId, action: 'resolve', subject: id, details: { outcome, note: text } });
      const event = save(tx, next, 'resolved');
      return { outcome: { ok: true, request: event.request } as DecisionOutcome, event };
    });
    if ('event' in r && r.event) emit([r.event]);
    return r.outcome;
  }

  async function recover() {
    const stale = store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.state === 'executing' && !inFlight.has(r.id));
    let markedUnknown: string[] = [];
    if (stale.length) {
      const events = await store.commit((tx) => {
        const out: WithdrawalEvent[] = [];
        const at = iso();
        for (const r of tx.all<WithdrawalRequest>(WITHDRAWALS)) {
          if (r.state !== 'executing' || inFlight.has(r.id)) continue;
          const reason = 'The app stopped while this withdrawal was being sent: it may or may not have reached the wallet service. It will be looked up in the transaction list, never resent.';
          const next = transition(r, 'unknown', SYSTEM, at, 'found executing at startup', { unknownReason: reason });
          appendAudit(tx, { at, actor: SYSTEM, action: 'unknown', subject: r.id, details: { reason: 'found executing at startup', merchantReference: r.merchantReference } });
          out.push(save(tx, next, 'unknown'));
        }
        return out;
      });
      markedUnknown = events.map((e) => e.request.id);
      logger.warn({ ids: markedUnknown }, 'withdrawals found executing at startup are now unknown and will be reconciled');
      emit(events);
    }
    // Approved but never claimed for sending: nothing reached the wallet service. Within its
    // expiry it is sent now, once; past it (a long outage) nobody expects it to go any more.
    const approved = store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.state === 'approved' && !inFlight.has(r.id));
    const overdue = approved.filter((r) => Date.parse(r.expiresAt) <= now());
    if (overdue.length) {
      const events = await store.commit((tx) => {
        const at = iso();
        return overdue.flatMap((r) => {
          const cur = tx.get<WithdrawalRequest>(WITHDRAWALS, r.id);
          if (!cur || cur.state !== 'approved') return [];
          appendAudit(tx, { at, actor: SYSTEM, action: 'expire', subject: r.id, details: { reason: 'approved but not sent before its expiry (the app was down)' } });
          return [save(tx, transition(cur, 'expired', SYSTEM, at, 'approved but not sent before its expiry; nothing was sent'), 'expired')];
        });
      });
      logger.warn({ ids: events.map((e) => e.request.id) }, 'approved withdrawals past their expiry were not sent');
      emit(events);
    }
    const resumed = approved
      .filter((r) => !overdue.includes(r))
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
    const status = lookup(WEBHOOK_STATUSES, e.status)?.name ?? String(e.status).toUpperCase();
    const rank = WEBHOOK_STATUS_RANK[status] ?? 0;
    const hash = e.transactionHash ? String(e.transactionHash) : null;
    const cur = tx.all<WithdrawalRequest>(WITHDRAWALS).find((x) => x.merchantReference === e.merchantReference);
    if (!cur) return { matched: false, changed: false };
    const prevRank = cur.confirmation ? (WEBHOOK_STATUS_RANK[cur.confirmation.status] ?? 0) : 0;
    // Duplicates and late arrivals of an earlier status change nothing; a hash may still fill in.
    const advance = rank > prevRank;
    const fillsHash = !advance && !!hash && !!cur.confirmation && !cur.confirmation.transactionHash && status === cur.confirmation.status;
    if (!advance && !fillsHash) return { matched: true, changed: false, request: cur };
    const at = iso();
    const confirmation = { status: advance ? status : cur.confirmation!.status, transactionHash: hash ?? cur.confirmation?.transactionHash ?? null, updatedAt: at };
    let next: WithdrawalRequest = { ...cur, confirmation };
    if (next.result && !next.result.transactionHash && confirmation.transactionHash) next = { ...next, result: { ...next.result, transactionHash: confirmation.transactionHash } };
    let type: WithdrawalEventType = 'confirmation';
    if (cur.state === 'unknown' && advance && isFinalWebhookStatus(status)) {
      // Only a final status settles what the missing answer could not; PENDING merely proves the service has it.
      const failed = status !== 'CONFIRMED';
      next = failed
        ? transition(next, 'failed', SYSTEM, at, `webhook reported ${status}`, { error: { kind: 'reported_failed', message: `The wallet service reported the withdrawal as ${status}.` } })
        : transition(next, 'completed', SYSTEM, at, `webhook reported ${status}`, {
            result: { source: 'webhook', serviceReference: null, amount: cur.amount, fee: null, feeCurrency: null, transactionHash: confirmation.transactionHash },
          });
      type = failed ? 'failed' : 'completed';
    }
    // The service's final word against ours (sent but FAILED on chain, or refused here but CONFIRMED there): an admin must look.
    const contradicts =
      advance && isFinalWebhookStatus(status) && ((cur.state === 'completed' && status !== 'CONFIRMED') || (cur.state === 'failed' && status === 'CONFIRMED'));
    appendAudit(tx, {
      at,
      actor: SYSTEM,
      action: contradicts ? 'webhook_contradiction' : 'webhook',
      subject: cur.id,
      details: { status, transactionHash: confirmation.transactionHash, state: next.state },
    });
    const event = save(tx, next, contradicts ? 'contradiction' : type);
    return { matched: true, changed: true, request: event.request, event };
  }

  async function onWithdrawalEvent(e: WithdrawalEventInput): Promise<WithdrawalEventResult> {
    const r = await store.commit((tx) => applyWithdrawalEvent(tx, e));
    if (r.event) emit([r.event]);
    return { matched: r.matched, changed: r.changed, ...(r.request ? { request: r.request } : {}) };
  }

  // ------------------------------------------------------------------ who may act

  /** Whether userId may approve (or reject) the request now; the refusal to show, or undefined. */
  async function checkDecision(id: string, userId: string, kind: 'approve' | 'reject'): Promise<DecisionOutcome | undefined> {
    const req = store.get<WithdrawalRequest>(WITHDRAWALS, id);
    const refusal = decisionRefusal(req, userId, now());
    if (refusal) return refusal;
    if (!(await hasRole(policy(), 'approvers', userId, groups))) return deny('not_approver', 'You are not an approver in the treasury policy.');
    if (req!.approvals.some((a) => a.user === userId)) {
      return kind === 'approve'
        ? deny('already_approved', 'You have already approved this request.')
        : deny('already_approved', 'You have already approved this request, so you cannot also reject it; ask another approver.');
    }
    return undefined;
  }

  /** Pending requests userId could approve right now (their slot is not reserved for someone else). */
  async function awaitingDecisionBy(userId: string): Promise<WithdrawalRequest[]> {
    const out: WithdrawalRequest[] = [];
    for (const r of list({ state: 'pending' })) {
      if (await checkDecision(r.id, userId, 'approve')) continue;
      const missing = r.tier.mustInclude.filter((e) => !r.approvals.some((a) => a.satisfies.includes(e)));
      const slotsLeft = r.tier.approvals - r.approvals.length;
      if (missing.length >= slotsLeft && !(await matches(missing, userId, groups))) continue;
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
    const out = store
      .find<WithdrawalRequest>(
        WITHDRAWALS,
        (r) =>
          (!states || states.includes(r.state)) &&
          (!filter.requester || r.requester === filter.requester) &&
          (!filter.currency || r.currency === (lookup(CURRENCIES, filter.currency)?.name ?? filter.currency)),
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
    emitAfterCommit: (event) => emit([event]),
    get: (id) => store.get<WithdrawalRequest>(WITHDRAWALS, id),
    getByReference: (ref) => store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.merchantReference === ref)[0],
    list,
    pendingCount: () => store.find<WithdrawalRequest>(WITHDRAWALS, (r) => r.state === 'pending').length,
    dailyUsage: (currency) => {
      const name = lookup(CURRENCIES, currency)?.name ?? currency;
      return dailyUsage(policy(), store.all<WithdrawalRequest>(WITHDRAWALS), name, now());
    },
    idle: async () => {
      while (inFlight.size) await Promise.all([...inFlight.values()]);
    },
  };
}

/** One line for a card or a DM: "250 USDT to 0x… on BSC". */
/** A transfer the service reports as failed, or a final word that contradicts ours: admins must look. */
export function needsAdminAttention(event: WithdrawalEvent): boolean {
  if (event.type === 'contradiction') return true;
  const status = event.request.confirmation?.status;
  return event.type === 'confirmation' && (status === 'FAILED' || status === 'NOT_PROPAGATED');
}

export function describeRequest(r: Pick<WithdrawalRequest, 'amount' | 'currency' | 'network' | 'destination'>): string {
  return `${formatAmount(r.amount, r.currency)} to ${r.destination} on ${r.network}`;
}
