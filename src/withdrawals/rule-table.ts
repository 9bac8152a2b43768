/**
 * The one table of withdrawal rules (invariant 17). The request, each approval, the send claim and
 * the verification callback all run `judge` over this table, with facts read at that moment (the
 * policy in force, the value at the policy price now, every other request in the window, the
 * freeze), so no step keeps a second list of rules that could fall out of step with it.
 *
 * A rule answers with one verdict:
 * - `pass`;
 * - `refuse`: never allowed under the policy in force (the request is refused; later, rejected);
 * - `hold`: a limit would be crossed now (the request is refused; a send is held, never sent, until
 *   an admin releases it or the window makes room; `until: 'unfreeze'` for the freeze);
 * - `count`: which approvals count and which tier they must reach (tier, step-up, allowlist), the
 *   caller then asks for what is missing.
 * Adding a rule is adding one entry here (docs/contributing.md); the compiler names a missing one.
 * Pure: the facts are passed in.
 */
import { valueAt } from '../prices/value.js';
import type { Valuation } from '../prices/types.js';
import { proofMeets, stepUpNeed } from '../stepup/threshold.js';
import { formatFiat } from '../format/fiat.js';
import { addressFamily } from '../wallet/addresses.js';
import { CURRENCIES, NETWORKS, lookup } from '../wallet/enums.js';
import { formatAmount } from '../format/amount.js';
import { Dec } from '../money/decimal.js';
import { checkAllowlist, countsFrom, DAY_MS } from './rules.js';
import { noteMissing, tierFor, type TierChoice } from './value-rules.js';
import { judgeLookalike, judgeSanctions, judgeStaleList } from './screening-rules.js';
import type { ScreeningInfo } from '../screening/types.js';
import type { Rule, RuleFacts, Step, Verdict } from './rule-types.js';
import { judgeNewDestination, judgeRollingLimits, type PatternFacts } from './pattern-rules.js';
import {
  NOT_COUNTED_STATES,
  type AllowlistInfo,
  type Approval,
  type LimitUse,
  type MissingApprovals,
  type WithdrawalRequest,
} from './types.js';

export type { Rule, RuleFacts, Step, Verdict } from './rule-types.js';

export type RuleName =
  | 'sanctions'
  | 'freeze'
  | 'allowlist'
  | 'tier'
  | 'lookalike'
  | 'step_up'
  | 'note'
  | 'daily_limit'
  | 'daily_value_limit'
  | 'stale_list'
  | 'rolling_limits'
  | 'new_destination';

const ALL: readonly Step[] = ['request', 'approve', 'send', 'verify'];
const PASS: Verdict = { kind: 'pass' };

/** An admin released this request's limit hold: the limits were weighed by a person, so they pass. */
const limitReleased = (r: WithdrawalRequest) => r.holdReleased?.kind === 'limit';

/**
 * The other requests a limit counts against this one, in the rolling window (24 h unless said):
 * those made before it (the store keeps them in the order they were requested), and any whose money
 * is gone or going whatever its order. At the request, every stored request came before it.
 */
export function countedBefore(r: WithdrawalRequest, f: RuleFacts, windowMs = DAY_MS): WithdrawalRequest[] {
  const since = f.now - windowMs;
  const all = f.requests();
  const mine = all.findIndex((o) => o.id === r.id);
  return all.filter((o, i) => {
    // Money gone or going counts from its claim when that came later than the request (countsFrom).
    if (o.id === r.id || NOT_COUNTED_STATES.includes(o.state) || !(countsFrom(o) > since)) return false;
    const gone = o.state === 'executing' || o.state === 'completed' || o.state === 'unknown';
    return mine < 0 || i < mine || gone;
  });
}

/** An earlier request's value now, at the policy price; as recorded when the app has no prices. */
const valueNow = (o: WithdrawalRequest, f: RuleFacts): Valuation =>
  f.prices ? valueAt(f.prices, o.currency, o.amount) : (o.sendValuation ?? o.valuation ?? unknownValue);

const unknownValue: Valuation = { kind: 'unknown', reason: 'no price was read', since: null };

/** The table's facts as the pattern rules read them (pattern-rules.ts). */
const patternFacts = (f: RuleFacts, r: WithdrawalRequest): PatternFacts => ({
  ...f,
  valueOf: (o) => valueNow(o, f),
  valueOfAmount: (currency, amount) => (f.prices ? valueAt(f.prices, currency, amount) : unknownValue),
  counted: (windowMs) => countedBefore(r, f, windowMs),
});

export const RULES: Readonly<Record<RuleName, Rule>> = {
  // First: a sanctioned destination's refusal is the one a person reads, whatever else is wrong.
  sanctions: { steps: ALL, judge: judgeSanctions },
  freeze: {
    steps: ['send', 'verify'],
    judge: (_r, f) => (f.frozen ? { kind: 'hold', message: 'sends are frozen', until: 'unfreeze' } : PASS),
  },
  allowlist: {
    steps: ALL,
    judge(r, f) {
      const network = lookup(NETWORKS, r.network);
      if (!network) return { kind: 'refuse', message: 'its network is no longer known' };
      const allow = checkAllowlist(
        f.policy,
        { family: addressFamily(network), destination: r.destination, network },
        f.step === 'request' ? f.requests() : [],
        { now: f.now, approvals: f.allowlistApprovals },
        f.paid,
      );
      if ('ok' in allow) return { kind: 'refuse', message: allow.message };
      const info = f.step === 'request' ? allow : { ...allow, neverPaidBefore: r.allowlist.neverPaidBefore };
      // Approvals given while the card said "allowlisted" were given on that assurance: they count no more.
      const lost = r.allowlist.status === 'listed' && allow.status === 'unlisted';
      return { kind: 'count', allowlist: info, ...(lost ? { keep: () => false, because: 'allowlist' as const } : {}) };
    },
  },
  tier: {
    steps: ALL,
    judge(r, f) {
      if (!lookup(CURRENCIES, r.currency)) return { kind: 'refuse', message: 'its currency is no longer known' };
      const own = tierFor(f.policy, r.currency, r.amount, f.valuation);
      // A batch row is judged at least at its batch's tier (chosen on the batch's total value, src/batches/):
      // splitting a payout into rows never lowers the approvals it needs.
      // The batch's tier without the approvals added on top of it (`extra`): judge adds them once, below.
      const { extra: _added, ...floor } = r.tier;
      const base = {
        ...floor,
        approvals: r.tier.approvals - (r.tier.extra ?? 0),
        mustInclude: [...r.tier.mustInclude],
      };
      const tier = own && r.batch && r.tier.index > own.index ? base : own;
      if (!tier)
        return {
          kind: 'refuse',
          message: `no approval tier of the policy in force covers ${formatAmount(r.amount, r.currency)}`,
        };
      const rose = tier.basis === 'value' && tier.index > r.tier.index;
      return {
        kind: 'count',
        tier,
        ...(rose
          ? {
              because: f.valuation.kind === 'known' ? ('value-rose' as const) : ('value-unknown' as const),
            }
          : {}),
      };
    },
  },
  lookalike: { steps: ALL, judge: judgeLookalike },
  step_up: {
    steps: ['approve', 'send', 'verify'],
    judge(r, f) {
      // A policy that asks for a code (or a passkey) at this value: approvals given without that proof do not count.
      const need = stepUpNeed(f.policy, r.currency, r.amount, f.valuation);
      if (need === 'none') return PASS;
      const keep = (a: Approval) => proofMeets(need, a.stepUp);
      return { kind: 'count', keep, ...(r.approvals.some((a) => !keep(a)) ? { because: need } : {}) };
    },
  },
  note: {
    steps: ALL,
    judge(r, f) {
      const message = noteMissing(f.policy, r, f.valuation);
      return message ? { kind: 'refuse', message } : PASS;
    },
  },
  daily_limit: {
    steps: ALL,
    judge(r, f) {
      const limit = f.policy.withdrawals.daily_limit[r.currency];
      if (limit === undefined || limitReleased(r)) return PASS;
      const used = countedBefore(r, f)
        .filter((o) => o.currency === r.currency)
        .reduce((sum, o) => sum.plus(o.amount), new Dec(0));
      const after = used.plus(r.amount);
      if (after.lte(limit)) return PASS;
      return {
        kind: 'hold',
        until: 'release',
        message:
          f.step === 'request'
            ? `The daily limit for ${r.currency} is ${formatAmount(limit, r.currency)} (rolling 24 h, pending requests included): ${formatAmount(used.toFixed(), r.currency)} is already requested, so at most ${formatAmount(Dec.max(0, new Dec(limit).minus(used)).toFixed(), r.currency)} more can be requested now.`
            : `today's ${r.currency} withdrawals would reach ${formatAmount(after.toFixed(), r.currency)} of ${formatAmount(limit, r.currency)}`,
      };
    },
  },
  daily_value_limit: {
    steps: ALL,
    judge(r, f) {
      const limit = f.policy.withdrawals.daily_limit.value;
      if (limit === undefined || f.policy.withdrawals.daily_limit[r.currency] !== undefined || limitReleased(r))
        return PASS;
      const whole = (more = '') =>
        `The daily limit is ${formatFiat(limit)} in value (rolling 24 h, every currency${more})`;
      if (f.valuation.kind !== 'known')
        return {
          kind: 'hold',
          until: 'release',
          message:
            f.step === 'request'
              ? `${whole()}, and this request's value cannot be known now (${f.valuation.reason}): it cannot be made until a price is known again.`
              : `its value cannot be known now (${f.valuation.reason}), so it cannot be counted against the daily limit of ${formatFiat(limit)}`,
        };
      let used = new Dec(0);
      for (const o of countedBefore(r, f)) {
        // Earlier requests count at their policy value now: one made in a low-price window is not cheap for 24 h.
        const v = valueNow(o, f);
        if (v.kind !== 'known')
          return {
            kind: 'hold',
            until: 'release',
            message:
              f.step === 'request'
                ? `${whole()}, and the value of an earlier request is unknown (${v.reason}): no request can be counted against it until a price is known again.`
                : `the value of an earlier request is unknown now (${v.reason}), so the daily limit of ${formatFiat(limit)} cannot be checked`,
          };
        used = used.plus(v.usd);
      }
      const after = used.plus(f.valuation.usd);
      if (after.lte(limit)) return PASS;
      const left = Dec.max(0, new Dec(limit).minus(used));
      return {
        kind: 'hold',
        until: 'release',
        message:
          f.step === 'request'
            ? `${whole(', pending requests included')}: ${formatFiat(used.toFixed(2))} is already requested, so at most ${formatFiat(left.toFixed(2))} more can be requested now; this request is ${formatFiat(f.valuation.usd)}.`
            : `today's withdrawals would reach ${formatFiat(after.toFixed(2))} of ${formatFiat(limit)}`,
      };
    },
  },
  rolling_limits: {
    steps: ALL,
    judge: (r, f) => judgeRollingLimits(r, patternFacts(f, r), limitReleased(r)),
  },
  new_destination: {
    steps: ALL,
    judge: (r, f) => judgeNewDestination(r, patternFacts(f, r)),
  },
  // Not at the approvals: an approval changes nothing that is sent; the send and the callback hold it.
  stale_list: { steps: ['request', 'send', 'verify'], judge: judgeStaleList },
};

/** What the table says of a request at one step: the first refusal, the holds, and how approvals count. */
export interface Judgement {
  refusal?: { rule: RuleName; message: string };
  holds: Array<{ rule: RuleName; message: string; until: 'release' | 'unfreeze' }>;
  /** The tier the policy in force asks for (absent only with a refusal). */
  tier?: TierChoice;
  /** The approvals that still count, against that tier. */
  approvals: Approval[];
  allowlist?: AllowlistInfo;
  because?: MissingApprovals['because'];
  /** What the screening rules found (absent: the app screens nothing, or screening is off). */
  screening?: ScreeningInfo;
  /** The rolling limits that apply (used / limit), when the policy has any. */
  limits?: LimitUse[];
}

/** Every rule of the table that runs at `f.step`, in table order. */
export function judge(r: WithdrawalRequest, f: RuleFacts): Judgement {
  const out: Judgement = { holds: [], approvals: [...r.approvals] };
  let extra = 0;
  let newDestinationExtra = 0;
  let screening: Partial<ScreeningInfo> | undefined;
  for (const [name, rule] of Object.entries(RULES) as Array<[RuleName, Rule]>) {
    if (!rule.steps.includes(f.step)) continue;
    const v = rule.judge(r, f);
    switch (v.kind) {
      case 'pass':
        break;
      case 'refuse':
        out.refusal ??= { rule: name, message: v.message };
        break;
      case 'hold':
        out.holds.push({ rule: name, message: v.message, until: v.until });
        break;
      case 'count':
        if (v.tier) out.tier = v.tier;
        if (v.allowlist) out.allowlist = v.allowlist;
        if (v.keep) out.approvals = out.approvals.filter(v.keep);
        if (v.extraApprovals) extra += v.extraApprovals;
        if (v.extraApprovals && name === 'new_destination') newDestinationExtra = v.extraApprovals;
        if (v.screening) screening = { ...screening, ...v.screening };
        if (v.limits) out.limits = v.limits;
        // The first reason wins: the allowlist's, then the code's, then the value's (as the card words them).
        if (v.because && (!out.because || out.because.startsWith('value'))) out.because = v.because;
        break;
      default: {
        const unhandled: never = v;
        throw new Error(`unhandled verdict ${JSON.stringify(unhandled)}`);
      }
    }
  }
  // Extra approvals go on top of whichever tier the rules chose (the top one, when a limit escalated).
  if (extra && out.tier)
    out.tier = {
      ...out.tier,
      approvals: out.tier.approvals + extra,
      extra,
      ...(newDestinationExtra ? { newDestinationExtra } : {}),
    };
  if (screening) out.screening = screening;
  return out;
}
