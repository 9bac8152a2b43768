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
 *
 * Built here in dependency order (shell, sender, reconciler, then the operations, each given its
 * dependencies): requests.ts, approvals.ts, recovery.ts, notices.ts, queries.ts.
 */
import { createReconciler } from '../reconcile.js';
import { createSender } from '../sender.js';
import { createShell, WITHDRAWALS } from '../shell.js';
import type { WithdrawalEvent, WithdrawalRequest } from '../types.js';
import { valueAt, type Valuation } from '../../prices/index.js';
import { selectTier } from '../rules.js';
import { approvalOps } from './approvals.js';
import { recheckFacts, type ServiceDeps } from './deps.js';
import { noticeOps } from './notices.js';
import { queryOps } from './queries.js';
import { recoveryOps } from './recovery.js';
import { requestOps } from './requests.js';
import type { WithdrawalListener, WithdrawalService, WithdrawalServiceOptions } from './types.js';

export { WITHDRAWALS } from '../shell.js';
export type { ReconcileReport } from '../reconcile.js';
export type {
  ListFilter,
  WithdrawalEventInput,
  WithdrawalEventResult,
  WithdrawalService,
  WithdrawalServiceOptions,
  WithdrawalListener,
} from './types.js';

export function createWithdrawalService(o: WithdrawalServiceOptions): WithdrawalService {
  const { store, groups, logger } = o;
  const now = o.now ?? Date.now;
  const { policy } = o;
  const listeners: WithdrawalListener[] = o.onChange ? [o.onChange] : [];
  const prices = o.prices;
  const valuationNow = (r: WithdrawalRequest): Valuation | undefined =>
    prices ? valueAt(prices(), r.currency, r.amount) : undefined;
  const shell = createShell({
    store,
    policy,
    ...(o.allowlistApprovals ? { allowlistApprovals: o.allowlistApprovals } : {}),
    ...(o.prices ? { prices: o.prices } : {}),
    ...(o.screening ? { screening: o.screening.facts } : {}),
    counted: o.counted,
    now,
    logger,
    onChange: (event, tx) => {
      for (const l of [...listeners]) l(event, tx);
    },
  });
  const sender = createSender(shell, {
    wallet: o.wallet,
    hooks: o.hooks ?? {},
    logger,
    // A request created under the policy in force was checked under it already: no group look-ups
    // (which Slack being down would make fail closed) to judge it again before sending.
    // With prices, the tier is chosen again with the value at a fresh price: the approvers are looked
    // up again only when the policy changed or the value moved the request into another tier.
    recheckFacts: async (r, valuation) => {
      const since = o.policyInForceSince?.();
      const samePolicy = since !== undefined && since <= Date.parse(r.createdAt);
      const sameTier =
        !valuation ||
        JSON.stringify(selectTier(policy.current(), r.currency, r.amount, valuation)) === JSON.stringify(r.tier);
      return samePolicy && sameTier ? undefined : recheckFacts(policy.current(), groups, r, valuation);
    },
    valuation: valuationNow,
    ...(o.balances ? { balances: o.balances } : {}),
    ...(o.goFirst ? { goFirst: o.goFirst } : {}),
    ...(o.screening ? { screening: o.screening } : {}),
  });
  const reconciler = createReconciler(shell, {
    wallet: o.wallet,
    logger,
    maxPages: o.reconcileMaxPages ?? 10,
    pageSize: o.reconcilePageSize ?? 100,
    ...(o.noticeThrottle ? { noticeThrottle: o.noticeThrottle } : {}),
  });
  const deps: ServiceDeps = {
    store,
    shell,
    sender,
    reconciler,
    policy,
    now,
    groups,
    logger,
    hooks: o.hooks ?? {},
    balances: o.balances,
    prices,
    screening: o.screening,
  };
  return {
    ...requestOps(deps),
    ...approvalOps(deps),
    ...recoveryOps(deps),
    ...noticeOps(deps),
    ...queryOps(deps),
    reconcileUnknown: reconciler.run,
    sendRow(id) {
      const r = store.get(WITHDRAWALS, id);
      return r?.batch && r.state === 'approved' ? sender.start(r) : Promise.resolve(r);
    },
    stopBatchRows: (tx, batchId, adminId) =>
      tx.all(WITHDRAWALS).flatMap((r) => {
        // Every unsent row: waiting, approved or held (a held row is `approved` with a hold).
        if (r.batch?.id !== batchId || (r.state !== 'approved' && r.state !== 'pending')) return [];
        const { event } = shell.apply(tx, { type: 'stop-batch-row', admin: adminId }, r);
        return event ? [event] : [];
      }),
    sending: sender.inFlight,
    idle: sender.idle,
    subscribe(fn) {
      listeners.push(fn);
      return () => {
        const i = listeners.indexOf(fn);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
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
