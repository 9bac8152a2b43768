/**
 * Prices and values as the rest of the app sees them: a quote per currency (the price in USD,
 * where it came from and when), and a value that is either known (with the quote it used) or
 * unknown with the reason. Plain JSON, so a value is stored on a request and its audit entry.
 */

/** One accepted price: exact decimal text in USD per unit, its source and the time it was fetched. */
export interface Quote {
  price: string;
  at: string;
  source: string;
}

/** The value of an amount: known (USD text, exact, and the quote it came from) or unknown and why. */
export type Valuation =
  | { kind: 'known'; usd: string; price: string; at: string; source: string }
  | {
      kind: 'unknown';
      /** In words: "no price since 00:12 UTC", "the price source does not list XEND". */
      reason: string;
      /** The last good price's time, if any ever came. */
      since: string | null;
    };

/** What the app knows of prices at one moment: a pure fact for the decider (no clock, no network inside). */
export interface PriceSnapshot {
  /** When the snapshot was taken (ms). */
  now: number;
  /** Older quotes count as unknown (the policy's valuation.max_age). */
  maxAgeMs: number;
  quotes: Readonly<Record<string, Quote>>;
  /** Why there is no fresh price, for the unknown value's words (the feed's last failure, if any). */
  lastProblem?: string;
  /** Currencies whose last answer moved too far to believe on its own: unknown until confirmed, and why. */
  held?: Readonly<Record<string, string>>;
}

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
}

/** The price part as the app uses it: a snapshot of the cache (never a network call) and its state. */
export interface Prices {
  snapshot(): PriceSnapshot;
  state(): PriceSourceState;
  /** One refresh of every asset (the job's work); never throws. */
  refresh(): Promise<void>;
}
