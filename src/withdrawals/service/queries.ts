/**
 * Reads and "who may act" questions: nothing here writes. The state refusals are checked before
 * any role look-up, so a settled, expired or own request costs no Slack group call.
 */
import { hasRole, matches } from '../../policy/people.js';
import { delegationIn } from '../../away/service.js';
import { CURRENCIES, lookup } from '../../wallet/enums.js';
import { feeEstimate } from '../fees.js';
import { dailyUsage, reservedFor, roleRefusal, stateRefusal, type DailyUsage } from '../rules.js';
import { WITHDRAWALS } from '../shell.js';
import type { DecisionOutcome, WithdrawalRequest } from '../types.js';
import { refusalOutcome, type ServiceDeps } from './deps.js';
import type { DailyValue, ListFilter } from './types.js';
import { currentValueAt, NO_PRICES, type Valuation } from '../../prices/index.js';
import { dailyValueUsed } from '../value-rules.js';
import { paidSummary } from '../paid-summary.js';
import { factsAsRecorded, missingWords, recheck, valuationNow } from '../recheck.js';

export function queryOps({ store, shell, policy, now, groups, balances, prices }: ServiceDeps) {
  const { stored } = shell;
  /** An approver, or standing in for one who is away (src/away): may decide. */
  async function mayDecide(userId: string): Promise<boolean> {
    const p = policy.current();
    if (await hasRole(p, 'approvers', userId, groups)) return true;
    for (const who of delegationIn(store, now()).delegatorsOf(userId))
      if (await hasRole(p, 'approvers', who, groups)) return true;
    return false;
  }
  async function checkDecision(
    id: string,
    userId: string,
    kind: 'approve' | 'reject',
  ): Promise<DecisionOutcome | undefined> {
    const req = stored(id);
    // The state refusals first: a settled, expired or own request needs no role (maybe a Slack group) lookup.
    const refusal = stateRefusal(req, userId, now()) ?? roleRefusal(req!, userId, kind, await mayDecide(userId));
    return refusal && refusalOutcome(refusal);
  }

  /** Pending requests userId could approve right now (their slot is not reserved for someone else). */
  async function awaitingDecisionBy(userId: string): Promise<WithdrawalRequest[]> {
    const t = now();
    const open = list({ state: 'pending' }).filter((r) => !stateRefusal(r, userId, t));
    if (!open.length || !(await mayDecide(userId))) return [];
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
    const approvers = policy.current().people.approvers;
    if (approvers.includes('*')) return ['*'];
    const approved = new Set(r.approvals.map((a) => a.user));
    return approvers.filter((a) => a !== r.requester && !approved.has(a));
  }

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
    checkDecision,
    awaitingDecisionBy,
    reminderTargets,
    get: stored,
    list,
    pendingCount: () => store.find(WITHDRAWALS, (r) => r.state === 'pending').length,
    dailyUsage: (currency: string): DailyUsage =>
      dailyUsage(policy.current(), store.all(WITHDRAWALS), lookup(CURRENCIES, currency)?.name ?? currency, now()),
    feeEstimate: (currency: string, network: string) =>
      feeEstimate(store.all(WITHDRAWALS), currency, network, paidSummary(store).fee(currency, network)),
    lastBalance: (currency: string, network: string) =>
      balances ? (balances.last(currency, network) ?? null) : undefined,
    // The value the rule table judges a request at now (the policy price): the same as the decider's.
    valueForRules: (r: WithdrawalRequest): Valuation | undefined => valuationNow(r, prices?.()),
    // What people read beside a balance or a fee: the current value (limits judge at the policy price).
    valueNow: (currency: string, amount: string): Valuation | undefined =>
      prices ? currentValueAt(prices(), currency, amount) : undefined,
    dailyValue: (): DailyValue | undefined => {
      const limit = policy.current().withdrawals.daily_limit.value;
      if (limit === undefined) return undefined;
      const used = dailyValueUsed(store.all(WITHDRAWALS), prices?.() ?? NO_PRICES, now());
      return { limit, used };
    },
    /**
     * The rule table judged at the verification callback (invariant 17), on what is stored now:
     * why the request may not go, or undefined. Approvers count as they approved (no group look-up
     * on the callback's path).
     */
    judgedAtCallback: (req: WithdrawalRequest): string | undefined => {
      const ctx = { ...shell.context(), requests: () => store.all(WITHDRAWALS), paid: paidSummary(store) };
      const r = recheck(req, ctx, factsAsRecorded(req), undefined, 'verify');
      if (r.kind === 'refused') return r.reason;
      if (r.kind === 'waits') return `it now needs ${missingWords(r.missing, (id) => id)}`;
      return r.holds[0]?.message;
    },
  };
}
