/**
 * The policy's per-currency sections (tiers, thresholds, limits): which entry applies to a
 * currency (its own, else `value` in USD, else `default`), and whether an amount is above one.
 * Here, under the policy, so every folder that reads a threshold (withdrawals, step-up, alerts,
 * balances) reads it the same way without importing the withdrawals domain.
 */
import { formatFiat } from '../format/fiat.js';
import { Dec } from '../money/decimal.js';
import type { Valuation } from '../money/value.js';

/** Which entry of a per-currency section applies: the currency's own, else `value`, else `default`. */
export function entryFor<T>(
  rec: Readonly<Record<string, T>>,
  currency: string,
): { basis: 'native'; entry: T } | { basis: 'value'; entry: T } | undefined {
  const own = rec[currency];
  if (own !== undefined) return { basis: 'native', entry: own };
  if (rec.value !== undefined) return { basis: 'value', entry: rec.value };
  if (rec.default !== undefined) return { basis: 'native', entry: rec.default };
  return undefined;
}

/** Whether an amount is above a per-currency threshold (native or value); an unknown value is above any value threshold. */
export function isAbove(
  rec: Readonly<Record<string, string>>,
  currency: string,
  amount: string,
  valuation: Valuation | undefined,
): boolean {
  const chosen = entryFor(rec, currency);
  if (!chosen) return false;
  if (chosen.basis === 'native') return new Dec(amount).gt(chosen.entry);
  return valuation?.kind !== 'known' || new Dec(valuation.usd).gt(chosen.entry);
}

/** The threshold in words: "1,000 USDT" or "≈ $1,000.00". */
export function thresholdWords(
  rec: Readonly<Record<string, string>>,
  currency: string,
  native: (a: string) => string,
): string {
  const chosen = entryFor(rec, currency);
  if (!chosen) return '';
  return chosen.basis === 'value' ? formatFiat(chosen.entry) : native(chosen.entry);
}
