/**
 * The policy's `value` entries (USD, across every currency) beside its native ones, for
 * withdrawals: the tier, the note, the daily value used; and the strictest reading when the
 * value is unknown (invariant 16): the last tier, a note and a code required, the daily value
 * limit counted as over. Which entry applies to a currency is src/policy/entries.ts. Pure: the
 * value is a fact (src/prices), computed by the shell.
 */
import { entryFor, isAbove, thresholdWords } from '../policy/entries.js';
import type { Policy, Tier } from '../policy/schema.js';
import { valueAt, type PriceSnapshot, type Valuation } from '../prices/index.js';
import { formatAmount } from '../format/amount.js';
import { Dec } from '../money/decimal.js';
import { NOT_COUNTED_STATES, type WithdrawalRequest } from './types.js';

export type TierChoice = {
  index: number;
  max: string | null;
  /** The tier below's max: the amount (or USD value, with `basis`) this tier starts above; absent for the first. */
  above?: string;
  approvals: number;
  mustInclude: string[];
  basis?: 'value';
  /** A rolling limit with `action: escalate` was crossed: the top tier's approvals (pattern-rules.ts). */
  escalated?: true;
  /** Approvals asked for beyond the tier's: a new destination (pattern-rules.ts), a look-alike (screening-rules.ts). */
  extra?: number;
  /** The part of `extra` the new destination asked: kept apart so it alone is never lowered. */
  newDestinationExtra?: number;
};

/**
 * Every must_include entry of the tier list that applies to the currency: whom an approver may
 * satisfy under any tier the rules may ask for (a limit may raise a request to the top tier), so
 * the shell resolves group membership once for all of them; the decider keeps the tier's own.
 */
export function mustIncludeEntries(policy: Policy, currency: string): string[] {
  const chosen = entryFor<Tier[]>(policy.withdrawals.tiers, currency);
  return [...new Set((chosen?.entry ?? []).flatMap((t) => t.must_include))];
}

/** The tier for an amount: native tiers by amount; `value` tiers by USD value, the last one when the value is unknown. */
export function tierFor(
  policy: Policy,
  currency: string,
  amount: string,
  valuation: Valuation | undefined,
): TierChoice | undefined {
  const chosen = entryFor<Tier[]>(policy.withdrawals.tiers, currency);
  if (!chosen) return undefined;
  const tiers = chosen.entry;
  let index: number;
  if (chosen.basis === 'value') {
    index =
      valuation?.kind === 'known'
        ? tiers.findIndex((t) => t.max === undefined || new Dec(t.max).gte(valuation.usd))
        : tiers.length - 1;
  } else index = tiers.findIndex((t) => t.max === undefined || new Dec(t.max).gte(amount));
  const t = tiers[index];
  if (!t) return undefined;
  const below = index > 0 ? tiers[index - 1]?.max : undefined;
  return {
    index,
    max: t.max ?? null,
    ...(below !== undefined ? { above: below } : {}),
    approvals: t.approvals,
    mustInclude: [...t.must_include],
    ...(chosen.basis === 'value' ? { basis: 'value' as const } : {}),
  };
}

/** Value used in the rolling 24 h across every currency; unknown when one counted request's value cannot be known. */
export function dailyValueUsed(
  existing: readonly WithdrawalRequest[],
  prices: PriceSnapshot,
  nowMs: number,
): { kind: 'known'; usd: string } | { kind: 'unknown'; reason: string } {
  const since = nowMs - 24 * 3_600_000;
  let used = new Dec(0);
  for (const r of existing) {
    if (NOT_COUNTED_STATES.includes(r.state) || !(Date.parse(r.createdAt) > since)) continue;
    // At its policy value now, as the rule table counts it (rule-table.ts): not as recorded in a low-price window.
    const v = valueAt(prices, r.currency, r.amount);
    if (v.kind !== 'known')
      return { kind: 'unknown', reason: `the value of an earlier request is unknown (${v.reason})` };
    used = used.plus(v.usd);
  }
  return { kind: 'known', usd: used.toFixed(2) };
}

/** The note rule (also the form's field check, input.ts): the words when a note is required and missing. */
export function noteMissing(
  policy: Policy,
  r: Pick<WithdrawalRequest, 'note' | 'currency' | 'amount'>,
  valuation: Valuation | undefined,
): string | undefined {
  const above = policy.withdrawals.note_required_above;
  if (r.note.trim() || !isAbove(above, r.currency, r.amount, valuation)) return undefined;
  const unknown =
    valuation?.kind === 'unknown' && !above[r.currency] ? ` (its value is unknown: ${valuation.reason})` : '';
  return `A note is required above ${thresholdWords(above, r.currency, (a) => formatAmount(a, r.currency))}${unknown}: say what this payout is for (the approvers read it).`;
}
