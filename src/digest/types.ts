/**
 * The digest's data: what the pure builder (build.ts) produces from its inputs, what the store
 * keeps for a scheduled digest (so the outbox renders it at send time, after a restart too),
 * and the daily balance snapshots the change of balances is measured against.
 */
import { collection } from '../store/collection.js';
import type { DigestBatches } from './batches.js';

/** One origin-account balance, as the wallet client's `originBalances()` gives it. */
export interface BalanceLine {
  currency: string;
  network: string;
  /** Exact decimal text. */
  balance: string;
}

export interface DigestLine {
  currency: string;
  deposits: { count: number; total: string };
  withdrawals: { count: number; total: string };
  failed: number;
  /**
   * Records whose status the app does not recognise: neither confirmed nor failed, so left out
   * of the sums, the chart and the largest movements (as the exports leave them out). Absent in
   * digests stored before it was counted.
   */
  unrecognised?: number;
  /** The totals in USD at the price of the digest's time (issue 24); absent without a fresh price. */
  value?: { deposits: string; withdrawals: string };
}

export interface DigestBalance extends BalanceLine {
  /** Exact decimal difference since the previous snapshot (signed), null when there is none to compare with. */
  change: string | null;
  /** USD at the price of the digest's time; absent without a fresh price. */
  value?: string;
}

export interface DigestMovement {
  type: 'deposit' | 'withdrawal';
  currency: string;
  network: string;
  amount: string;
  /** The client (deposits) or the destination address shortened (withdrawals); never an internal id. */
  party: string;
  /**
   * Withdrawals (absent in digests stored before): the destination shortened, the allowlist's
   * label for it (the payee), and the client whose wallet the money left from.
   */
  to?: { address: string; payee?: string; client?: string };
  /** Epoch ms, when the service gave a time. */
  at?: number;
  /** USD at the price of the digest's time; absent without a fresh price. */
  value?: string;
}

/** Deposits against withdrawals per UTC day, exact decimal text, for the chart. */
export interface ChartPanel {
  /** The panel's label: a currency, or the USD panel's words (with `value`). */
  currency: string;
  /** The panel of every currency in USD (issue 24), the chart's first. */
  value?: true;
  deposits: string[];
  withdrawals: string[];
}

export interface Digest {
  /** The period summed: [from, to) in epoch ms; `days` whole days back from `to`. */
  period: { from: number; to: number; days: number };
  lines: DigestLine[];
  /** Transactions of the period read from the service. */
  records: number;
  /** The read of the transaction list did not finish (a page failed, or a limit): the totals are partial. */
  truncated: boolean;
  /** The reader's own words for what is missing (src/wallet/pager.ts incompleteNote). */
  incomplete?: string;
  /** undefined: balances unavailable (no source, or it failed). */
  balances?: { lines: DigestBalance[]; since?: number; value?: DigestValueTotal };
  approvals: { pending: number; expired: number; unknown: number };
  /** Batch payouts of the period (batches.ts); absent when there were none, and in digests stored before. */
  batches?: DigestBatches;
  largest: DigestMovement[];
  /**
   * How `largest` was ranked (issue 40): `value`, by USD value across currencies at the digest's
   * price; `currency`, without prices, each currency's largest in turn (amounts of different
   * currencies do not compare), and the message says so. `unpriced`: currencies without a price
   * whose largest are listed after the ranked ones. Absent in digests stored before: `currency`.
   */
  largestBy?: { by: 'value' | 'currency'; unpriced: string[] };
  chart: { days: string[]; panels: ChartPanel[] };
  /**
   * Money in and out across every currency in USD (issue 24), at the cached price when the
   * digest was built (the cache holds current prices only: a past movement is valued at that
   * price, and the message says so). Absent in digests built without prices or stored before.
   */
  value?: { deposits: DigestValueTotal; withdrawals: DigestValueTotal; at: number };
}

/** A total in USD over the currencies with a fresh price; those without one are named, never counted as 0. */
export interface DigestValueTotal {
  usd: string;
  unpriced: string[];
}

/** A day's balances, written when the digest runs (one per UTC day, the latest run of the day wins). */
export interface BalanceSnapshot {
  day: string;
  at: number;
  lines: BalanceLine[];
}

export type ChartState = 'pending' | 'uploading' | 'sent' | 'failed';

/** A scheduled digest, keyed by its UTC day: at most one per day, whatever restarts happen. */
export interface ScheduledDigest {
  key: string;
  day: string;
  channel: string;
  createdAt: number;
  digest: Digest;
  chart: {
    state: ChartState;
    attempts: number;
    /** When the latest upload attempt was marked (durably, just before it went out). */
    markedAt?: number;
    title: string;
    error?: string;
  };
}

export const DIGEST_COLLECTIONS = {
  snapshots: collection<BalanceSnapshot>('digest_balance_snapshots'),
  scheduled: collection<ScheduledDigest>('digests'),
};

/** The chart covers this many UTC days, whatever period the text sums. */
export const CHART_DAYS = 14;
/** At most this many currency panels in one chart (the busiest); the text lists every currency. */
export const CHART_MAX_PANELS = 10;
/** How many of the largest movements the digest lists. */
export const LARGEST_COUNT = 5;
