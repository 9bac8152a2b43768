/**
 * Two rules of the table (rule-table.ts) for money that moves in patterns: the rolling limits of
 * `withdrawals.limits` (per destination, requester, client or all, over 24 h, 7 d or 30 d, in USD
 * at the policy price now) and the extra approvals of `withdrawals.new_destination`. Like the daily
 * limits they sum the other requests read inside the step's own commit, so two requests racing one
 * window cannot both fit. Pure: the facts are passed in.
 */
import { formatFiat } from '../format/fiat.js';
import { utcMinute } from '../format/time.js';
import { LIMIT_WINDOWS, type RollingLimit } from '../policy/schema-patterns.js';
import type { Policy } from '../policy/schema.js';
import type { Valuation } from '../prices/types.js';
import { Dec } from '../money/decimal.js';
import type { PaidSummary } from './paid-summary.js';
import { countsFrom, sameDestination } from './rules.js';
import type { LimitUse, WithdrawalRequest } from './types.js';
import { entryFor, isAbove } from '../policy/entries.js';
import type { TierChoice } from './value-rules.js';

/** What the two rules need of the table's facts (RuleFacts), kept narrow to avoid an import cycle. */
export interface PatternFacts {
  step: 'request' | 'approve' | 'send' | 'verify';
  now: number;
  policy: Policy;
  valuation: Valuation;
  requests: () => readonly WithdrawalRequest[];
  /** Another request's value now, at the policy price. */
  valueOf: (o: WithdrawalRequest) => Valuation;
  /** An amount's value now, at the policy price (no prices: unknown). */
  valueOfAmount: (currency: string, amount: string) => Valuation;
  /** What the completed payments no longer in memory tell (paid-summary.ts). */
  paid?: PaidSummary | undefined;
  /** The requests a limit counts against this one within `windowMs` (rule-table.ts `countedBefore`). */
  counted: (windowMs: number) => WithdrawalRequest[];
}

export type PatternVerdict =
  | { kind: 'pass' }
  | { kind: 'hold'; message: string; until: 'release' }
  | { kind: 'count'; tier?: TierChoice; extraApprovals?: number; limits?: LimitUse[] };

const PER_WORDS: Record<RollingLimit['per'], string> = {
  destination: 'to one destination',
  requester: 'by one requester',
  client: 'for one client',
  all: 'in all',
};
const WINDOW_WORDS: Record<RollingLimit['window'], string> = { '24h': '24 h', '7d': '7 days', '30d': '30 days' };

/** "the limit of $50,000.00 to one destination in 7 days": how a person reads one rolling limit. */
export const limitWords = (l: Pick<LimitUse, 'per' | 'window' | 'limit'>): string =>
  `the limit of ${formatFiat(l.limit)} ${PER_WORDS[l.per]} in ${WINDOW_WORDS[l.window]}`;

/** Whether `o` falls under the same limit as `r`: the same destination, requester, client, or any. */
function sameGroup(per: RollingLimit['per'], r: WithdrawalRequest, o: WithdrawalRequest): boolean {
  switch (per) {
    case 'destination':
      return sameDestination(o, r);
    case 'requester':
      return o.requester === r.requester;
    case 'client':
      return o.clientEmail.trim().toLowerCase() === r.clientEmail.trim().toLowerCase();
    case 'all':
      return true;
  }
}

/** The top tier of the list that applies to the currency: what `action: escalate` asks for. */
export function topTier(policy: Policy, currency: string): TierChoice | undefined {
  const chosen = entryFor(policy.withdrawals.tiers, currency);
  const index = (chosen?.entry.length ?? 0) - 1;
  const t = chosen?.entry[index];
  if (!chosen || !t) return undefined;
  const below = chosen.entry[index - 1]?.max;
  return {
    index,
    max: t.max ?? null,
    ...(below !== undefined ? { above: below } : {}),
    approvals: t.approvals,
    mustInclude: [...t.must_include],
    ...(chosen.basis === 'value' ? { basis: 'value' as const } : {}),
  };
}

type Measured =
  | { kind: 'known'; use: LimitUse; earlier: Array<{ at: number; usd: Dec }> }
  | { kind: 'unknown'; reason: string; limit: RollingLimit };

function measure(limit: RollingLimit, r: WithdrawalRequest, f: PatternFacts): Measured {
  if (f.valuation.kind !== 'known') return { kind: 'unknown', reason: f.valuation.reason, limit };
  const earlier: Array<{ at: number; usd: Dec }> = [];
  for (const o of f.counted(LIMIT_WINDOWS[limit.window])) {
    if (!sameGroup(limit.per, r, o)) continue;
    // Earlier requests count at their policy value now, as the daily value limit counts them.
    const v = f.valueOf(o);
    if (v.kind !== 'known')
      return { kind: 'unknown', reason: `the value of an earlier request is unknown (${v.reason})`, limit };
    earlier.push({ at: countsFrom(o), usd: new Dec(v.usd) });
  }
  const before = earlier.reduce((s, e) => s.plus(e.usd), new Dec(0));
  const used = before.plus(f.valuation.usd);
  return {
    kind: 'known',
    earlier: earlier.sort((a, b) => a.at - b.at),
    use: {
      per: limit.per,
      window: limit.window,
      action: limit.action,
      limit: limit.value,
      before: before.toFixed(2),
      used: used.toFixed(2),
      over: used.gt(limit.value),
    },
  };
}

/**
 * When the window has room for this request again: the moment enough earlier requests have left it
 * (each leaves `window` after it was made); undefined when this request alone is above the limit.
 */
export function roomReturns(
  m: Extract<Measured, { kind: 'known' }>,
  valueUsd: string,
  windowMs: number,
): number | undefined {
  if (new Dec(valueUsd).gt(m.use.limit)) return undefined;
  let used = new Dec(m.use.used);
  for (const e of m.earlier) {
    used = used.minus(e.usd);
    if (used.lte(m.use.limit)) return e.at + windowMs;
  }
  return undefined;
}

/** The rolling limits of the policy in force, against this request; `released`: an admin weighed them. */
export function judgeRollingLimits(r: WithdrawalRequest, f: PatternFacts, released: boolean): PatternVerdict {
  const limits = f.policy.withdrawals.limits;
  if (!limits.length) return { kind: 'pass' };
  const uses: LimitUse[] = [];
  const refusals: string[] = [];
  let escalate = false;
  for (const limit of limits) {
    const m = measure(limit, r, f);
    if (m.kind === 'unknown') {
      // The strictest case (invariant 16): an unknown value is over every limit.
      if (limit.action === 'escalate') escalate = true;
      else if (!released)
        refusals.push(
          f.step === 'request'
            ? `${capital(limitWords({ ...limit, limit: limit.value }))} cannot be checked: ${m.reason}. It can be requested once a price is known again.`
            : `${limitWords({ ...limit, limit: limit.value })} cannot be checked (${m.reason})`,
        );
      continue;
    }
    uses.push(m.use);
    if (!m.use.over) continue;
    if (limit.action === 'escalate') {
      escalate = true;
      continue;
    }
    if (released) continue;
    refusals.push(
      f.step === 'request' ? refusalAtRequest(m, f) : `${limitWords(m.use)} would reach ${formatFiat(m.use.used)}`,
    );
  }
  if (refusals.length) return { kind: 'hold', until: 'release', message: refusals.join('; ') };
  const top = escalate ? topTier(f.policy, r.currency) : undefined;
  return { kind: 'count', limits: uses, ...(top ? { tier: { ...top, escalated: true as const } } : {}) };
}

function refusalAtRequest(m: Extract<Measured, { kind: 'known' }>, f: PatternFacts): string {
  const value = f.valuation.kind === 'known' ? f.valuation.usd : '0';
  const windowMs = LIMIT_WINDOWS[m.use.window];
  const when = roomReturns(m, value, windowMs);
  const room =
    when === undefined ? 'this request alone is above it' : `room for this request returns at ${utcMinute(when)}`;
  return `${capital(limitWords(m.use))} (rolling, pending requests included): ${formatFiat(m.use.before)} is already requested and this request is ${formatFiat(value)}, so it would reach ${formatFiat(m.use.used)}; ${room}.`;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * `withdrawals.new_destination`: a first payment to a destination above the value asks for more
 * approvals than its tier; an unknown value is above it. "Paid before" means completed payments to
 * the same destination (sameDestination, read in this step's commit) worth at least that value
 * together: a $1 test payment does not make an address known. What the request was asked for is
 * fixed at the request: a later step never lowers it (a small payment to the address completing
 * meanwhile must not remove the extra approval of a large request waiting).
 */
export function judgeNewDestination(r: WithdrawalRequest, f: PatternFacts): PatternVerdict {
  const rule = f.policy.withdrawals.new_destination;
  // Only the new destination's own part of the extras is a floor (a look-alike's is judged anew);
  // a request stored before the parts were kept apart had no other extra.
  const asked =
    f.step === 'request'
      ? 0
      : (r.tier.newDestinationExtra ?? (r.tier.extra && !r.screening?.lookalike ? r.tier.extra : 0));
  const now = rule && isNewDestination(r, f, rule.above.value) ? rule.extra_approvals : 0;
  const extra = Math.max(asked, now);
  return extra ? { kind: 'count', extraApprovals: extra } : { kind: 'pass' };
}

/**
 * A batch's row is weighed with the batch's other rows to the same destination: 100 rows of $600
 * to one never-paid address are one $60,000 first payment, as a single request of it would be.
 */
function weighed(r: WithdrawalRequest, f: PatternFacts, above: string): boolean {
  if (isAbove({ value: above }, r.currency, r.amount, f.valuation)) return true;
  const parts = Object.entries(r.batch?.toDestination ?? {});
  if (!parts.length) return false;
  let sum = new Dec(0);
  for (const [currency, amount] of parts) {
    const v = f.valueOfAmount(currency, amount);
    // An unknown value is above it, as for a single request.
    if (v.kind !== 'known') return true;
    sum = sum.plus(v.usd);
  }
  return sum.gt(above);
}

function isNewDestination(r: WithdrawalRequest, f: PatternFacts, above: string): boolean {
  if (!weighed(r, f, above)) return false;
  let paid = new Dec(0);
  for (const o of f.requests()) {
    if (o.id === r.id || o.state !== 'completed' || !sameDestination(o, r)) continue;
    // At the policy value now, as the limits count; a payment of unknown value proves nothing.
    const v = f.valueOf(o);
    if (v.kind === 'known') paid = paid.plus(v.usd);
  }
  // And the payments no longer in memory, summed per currency (a sum values as its parts at one price).
  for (const [currency, amount] of Object.entries(f.paid?.destination(r)?.amounts ?? {})) {
    const v = f.valueOfAmount(currency, amount);
    if (v.kind === 'known') paid = paid.plus(v.usd);
  }
  return paid.lt(above);
}
