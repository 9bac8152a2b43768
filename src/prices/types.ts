import type { DayPrices } from './day-prices.js';

/**
 * The price source's own types (its state for /treasury status, its interface). The value types
 * every folder reads (Quote, Valuation, PriceSnapshot) are in the leaf src/money/value.ts.
 */
import type { JudgedPrice, PriceSnapshot } from '../money/value.js';

export type { JudgedPrice, PriceSnapshot, Quote, Valuation } from '../money/value.js';

/** The state of the price source, for `/treasury status` and the App Home. */
export interface PriceSourceState {
  source: string;
  /** Last successful refresh (ms), if any. */
  lastOkAt: number | undefined;
  /** Last refused or failed refresh: when and why. */
  lastProblem: { at: number; reason: string } | undefined;
  /** Refreshes attempted (calls made) since start. */
  calls: number;
  /** Currencies with a fresh price now, and those without. */
  fresh: string[];
  stale: string[];
  /** Per priced currency: the current price and the policy price, with their times (for /treasury status). */
  assets: AssetPrice[];
}

export interface AssetPrice {
  currency: string;
  /** The last accepted price and when it was fetched (absent: none yet). */
  current?: { price: string; at: string };
  /** What policy judges at now, when above the current price (the window's high, the peg, a floor). */
  policy?: { price: string; judged: JudgedPrice };
}

/** The price part as the app uses it: a snapshot of the cache (never a network call) and its state. */
export interface Prices {
  snapshot(): PriceSnapshot;
  state(): PriceSourceState;
  /** One refresh of every asset (the job's work); never throws. */
  refresh(): Promise<void>;
  /** Prices of past days, for the exports (day-prices.ts); absent: today's price only. */
  days?: DayPrices;
}
