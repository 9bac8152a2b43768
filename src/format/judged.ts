/**
 * A value judged at more than the current price, in words: the card and the form show the current
 * value first (what the money is worth now) and, in one more clause, the price policy used
 * ("judged at $3,000.00, the highest price of the last 7 days"), so an approver sees why a
 * request needs more approvals than its current value would.
 */
import type { JudgedPrice, Valuation } from '../money/value.js';
import { formatFiat, formatPrice } from './fiat.js';

type Known = Extract<Valuation, { kind: 'known' }>;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** "7 days", "36 hours", "1 day". */
export function windowWords(ms: number): string {
  const [n, unit] = ms % DAY_MS === 0 ? [ms / DAY_MS, 'day'] : [Math.round(ms / HOUR_MS), 'hour'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Why the policy price is what it is: "the highest price of the last 7 days", "the peg of USDT". */
export function basisWords(j: JudgedPrice, currency: string): string {
  switch (j.basis) {
    case 'high':
      return `the highest price of the last ${windowWords(j.lookbackMs)}`;
    case 'peg':
      return `the peg of ${currency}`;
    case 'floor':
      return `the floor the policy sets for ${currency}`;
    default: {
      const unhandled: never = j;
      return String(unhandled);
    }
  }
}

/** "judged at $3,000.00, the highest price of the last 7 days", or undefined when policy used the current price. */
export function judgedWords(v: Known, currency: string): string | undefined {
  if (!v.judged || !v.market) return undefined;
  return `judged at ${formatPrice(v.price)}, ${basisWords(v.judged, currency)}`;
}

/** The value a person reads: the current value, and the policy value beside it when higher. */
export function currentAndJudged(v: Known, currency: string): string {
  const judged = judgedWords(v, currency);
  const now = formatFiat(v.market?.usd ?? v.usd, { approx: true });
  return judged ? `${now} (${formatFiat(v.usd, { approx: true })} for limits: ${judged})` : now;
}
