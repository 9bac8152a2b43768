/**
 * The value of an amount in USD from a price snapshot: pure, exact (decimal), and unknown when
 * there is no fresh price (invariant 16: never zero). Exported for every part that shows or
 * limits by value (cards, alerts, balances; the digest and exports in a later pass).
 */
import { Dec } from '../money/decimal.js';
import { utcMinute } from '../format/time.js';
import type { PriceSnapshot, Valuation } from './types.js';

/**
 * The value of `amount` of `currency` in the snapshot: known only with a quote younger than max_age,
 * and then at the policy price (the higher of the quote and snapshot.policy's), with the market
 * value beside it when they differ.
 */
export function valueAt(snapshot: PriceSnapshot, currency: string, amount: string): Valuation {
  const q = snapshot.quotes[currency];
  const held = snapshot.held?.[currency];
  // A large move not yet confirmed: neither the new price nor the old one is believed (strictest case).
  if (held) return { kind: 'unknown', reason: `price held back: ${held}`, since: q?.at ?? null };
  if (!q) {
    return {
      kind: 'unknown',
      reason: snapshot.lastProblem ? `no price yet (${snapshot.lastProblem})` : `no price for ${currency} yet`,
      since: null,
    };
  }
  const age = snapshot.now - Date.parse(q.at);
  if (!(age <= snapshot.maxAgeMs)) {
    return { kind: 'unknown', reason: `no price since ${utcMinute(Date.parse(q.at))}`, since: q.at };
  }
  let amountDec: Dec;
  try {
    amountDec = new Dec(amount);
    if (!amountDec.isFinite()) throw new Error('not finite');
  } catch {
    return { kind: 'unknown', reason: `"${amount}" is not an amount`, since: q.at };
  }
  // Policy judges at the higher of the current price and the window's high, the peg or the floor
  // (snapshot.policy): no single outside price lowers a limit (invariant 16).
  const judged = snapshot.policy?.[currency];
  const usd = (price: string) => amountDec.times(price).toFixed(2, Dec.ROUND_UP);
  if (judged && new Dec(judged.price).gt(q.price))
    return {
      kind: 'known',
      usd: usd(judged.price),
      price: judged.price,
      at: q.at,
      source: q.source,
      market: { usd: usd(q.price), price: q.price },
      judged: judged.judged,
    };
  return { kind: 'known', usd: usd(q.price), price: q.price, at: q.at, source: q.source };
}

/**
 * The value at the current price alone: what the money is worth now, for what people read (alerts,
 * balances, /tx, the digest) and for accounting (exports). Never for a limit: limits use valueAt.
 */
export function currentValueAt(snapshot: PriceSnapshot, currency: string, amount: string): Valuation {
  const { policy: _policy, ...current } = snapshot;
  return valueAt(current, currency, amount);
}

/** A recorded valuation at its current (market) price only: what it was worth, for accounting, not what policy judged. */
export function currentOf(v: Valuation): Valuation {
  if (v.kind !== 'known' || !v.market) return v;
  const { market, judged: _judged, ...rest } = v;
  return { ...rest, usd: market.usd, price: market.price };
}

/** The value a person reads as "current": the market value where policy judged higher, else the value itself. */
export const marketUsd = (v: Extract<Valuation, { kind: 'known' }>): string => v.market?.usd ?? v.usd;

/** Sum of values; unknown as soon as one part is (a total that leaves a part out would be wrong). */
export function sumValues(values: readonly Valuation[]): Valuation {
  let total = new Dec(0);
  for (const v of values) {
    if (v.kind === 'unknown') return v;
    total = total.plus(v.usd);
  }
  const first = values[0];
  return first?.kind === 'known'
    ? { ...first, usd: total.toFixed(2) }
    : { kind: 'known', usd: total.toFixed(2), price: '0', at: new Date(0).toISOString(), source: 'sum' };
}

/** A snapshot with no price at all: every value unknown (tests, and parts built without prices). */
export const NO_PRICES: PriceSnapshot = Object.freeze({ now: 0, maxAgeMs: 0, quotes: Object.freeze({}) });

/**
 * `amount` × `price` to the cent, half-up: the books' rounding (an accountant's figure, never a
 * limit's: valueAt rounds up so a limit never loosens by a cent). Undefined when either is no number.
 */
export function accountingUsd(amount: string, price: string): string | undefined {
  try {
    const v = new Dec(amount).abs().times(price);
    return v.isFinite() ? v.toFixed(2, Dec.ROUND_HALF_UP) : undefined;
  } catch {
    return undefined;
  }
}

/** The value at the current price, rounded for the books (accountingUsd): what the exports write. */
export function accountingValueAt(snapshot: PriceSnapshot, currency: string, amount: string): Valuation {
  const v = currentValueAt(snapshot, currency, amount);
  if (v.kind !== 'known') return v;
  const usd = accountingUsd(amount, v.price);
  return usd === undefined ? v : { ...v, usd };
}
