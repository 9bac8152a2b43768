/**
 * Prices and values as every folder sees them: a quote per currency (the price in USD, where it
 * came from and when), and a value that is either known (with the quote it used) or unknown with
 * the reason. Plain JSON, so a value is stored on a request and its audit entry. A leaf beside
 * decimal.ts: src/prices computes these, the rules and the words read them.
 */

/** One accepted price: exact decimal text in USD per unit, its source and the time it was fetched. */
export interface Quote {
  price: string;
  at: string;
  source: string;
}

/** The value of an amount: known (USD text, exact, and the quote it came from) or unknown and why. */
export type Valuation =
  | {
      kind: 'known';
      /** The policy value (what every limit judges): the amount at `price`, the policy price. */
      usd: string;
      /** The policy price: the current one, or higher (`judged` says why). */
      price: string;
      at: string;
      source: string;
      /** The current (market) value and price, when policy judged at a higher price than the current one. */
      market?: { usd: string; price: string };
      /** Why policy judged above the current price: the window's high, the peg, or the admin's floor. */
      judged?: JudgedPrice;
    }
  | {
      kind: 'unknown';
      /** In words: "no price since 00:12 UTC", "the price source does not list XEND". */
      reason: string;
      /** The last good price's time, if any ever came. */
      since: string | null;
    };

/** Why the policy price is above the current one: the highest accepted price of the lookback window, the peg, or a floor. */
export type JudgedPrice = { basis: 'high'; lookbackMs: number; seenAt: string } | { basis: 'peg' } | { basis: 'floor' };

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
  /**
   * Per currency, the price policy judges at when it is above the current quote (the lookback
   * window's high, the peg, the admin's floor): a fall counts for limits only once it has left
   * the window, a stablecoin never below its peg. Absent: the current quote is the policy price.
   */
  policy?: Readonly<Record<string, { price: string; judged: JudgedPrice }>>;
}
