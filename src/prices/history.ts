/**
 * The accepted prices of the trailing window, kept in the store so a restart or a failover keeps
 * them: per currency, the highest accepted price of each hour, and the last accepted quote (the
 * reference a large move is measured from, so the first answer after a restart is judged against
 * the price before it, not believed on its own).
 *
 * Policy judges at the highest of these (value.ts): a rise counts at once, a fall only once it
 * has left the window. Pure functions here; index.ts reads and writes the record in one commit.
 */
import { collection } from '../store/collection.js';
import { Dec } from '../money/decimal.js';
import type { Quote } from './types.js';

const HOUR_MS = 3_600_000;

/** One currency's record: hour start (ISO) → the highest price accepted in that hour; the last accepted quote. */
export interface PriceHistory {
  currency: string;
  hours: Readonly<Record<string, string>>;
  last: Quote;
}

export const PRICE_HISTORY = collection<PriceHistory>('price_history');

export const hourOf = (ms: number): string => new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString();

/**
 * The record after one accepted quote: the hour's high raised if the price is above it, hours
 * wholly older than the window dropped (the one that straddles its start is kept: it may hold
 * a price inside it, and keeping it can only make policy stricter).
 */
export function recordQuote(
  prev: PriceHistory | undefined,
  currency: string,
  quote: Quote,
  lookbackMs: number,
): PriceHistory {
  const at = Date.parse(quote.at);
  const hour = hourOf(at);
  const oldest = Date.parse(hourOf(at - lookbackMs));
  const hours: Record<string, string> = {};
  for (const [h, p] of Object.entries(prev?.hours ?? {})) if (Date.parse(h) >= oldest) hours[h] = p;
  const high = hours[hour];
  if (high === undefined || new Dec(quote.price).gt(high)) hours[hour] = quote.price;
  // The later of the two is the reference (an answer may carry an older source time).
  const last = prev && Date.parse(prev.last.at) > at ? prev.last : quote;
  return { currency, hours, last };
}

/**
 * The highest accepted price within `lookbackMs` of `now` (by hour), with the hour it was seen;
 * undefined when none. An hour counts while any part of it is inside the window.
 */
export function highIn(
  h: Pick<PriceHistory, 'hours'> | undefined,
  now: number,
  lookbackMs: number,
): { price: string; at: string } | undefined {
  if (!h) return undefined;
  const oldest = Date.parse(hourOf(now - lookbackMs));
  let best: { price: string; at: string } | undefined;
  for (const [hour, price] of Object.entries(h.hours)) {
    if (Date.parse(hour) < oldest) continue;
    if (!best || new Dec(price).gt(best.price)) best = { price, at: hour };
  }
  return best;
}
