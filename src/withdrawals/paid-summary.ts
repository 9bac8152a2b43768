/**
 * What the completed payments that have left memory (the store's history, src/history/) still
 * tell the rules, kept small and for good: per destination, the amounts paid to it by currency;
 * per client, that a withdrawal from it completed; per currency and network, the latest fee the
 * service charged. A completed request is folded in by the same commit that takes it out of
 * memory, so at every moment each completed payment counts exactly once: in memory, or here.
 *
 * Why: "paid before" (the new-destination rule), the card's "never paid before", a known client
 * and the fee estimate read every completed payment with no window. Reading these instead lets a
 * completed request leave memory like any other closed one, so start and takeover stay flat as
 * the years of payouts grow. Without a summary (a reader given none) nothing is known paid:
 * the strict reading (one more approval, "never paid before", "new client").
 */
import { Dec } from '../money/decimal.js';
import { collection, type Reads, type Tx } from '../store/index.js';
import { destinationKey } from './destinations.js';
import { chargedFee, laterFee, type FeeEstimate } from './fees.js';
import type { WithdrawalRequest } from './types.js';

export interface PaidDestination {
  /** destinationKey: one key for an EVM address on every EVM network. */
  id: string;
  /** Total amount paid per currency (decimal strings). */
  amounts: Record<string, string>;
  payments: number;
  lastAt: string;
  /** The address and network of the latest payment (what look-alike screening compares with). */
  destination: string;
  network: string;
}
export interface PaidClient {
  /** The client's e-mail, trimmed and lowercased. */
  id: string;
  lastAt: string;
}
export type PaidFee = FeeEstimate & { id: string };

/** Persisted names: never change them. */
export const PAID_DESTINATIONS = collection<PaidDestination>('paid_destinations');
export const PAID_CLIENTS = collection<PaidClient>('paid_clients');
export const PAID_FEES = collection<PaidFee>('paid_fees');

const clientKey = (email: string) => email.trim().toLowerCase();
const feeKey = (currency: string, network: string) => `${currency}|${network}`;
const paidAt = (r: WithdrawalRequest) => r.history.at(-1)?.at ?? r.sendStartedAt ?? r.createdAt;

/**
 * Inside the commit that takes `r` out of memory: adds it to the summaries. Only a completed
 * request counts; call it once per request (the commit that evicts it is the only caller).
 */
export function foldPaid(tx: Tx, r: WithdrawalRequest): void {
  if (r.state !== 'completed') return;
  const at = paidAt(r);
  const key = destinationKey(r);
  const d = tx.get(PAID_DESTINATIONS, key);
  const before = d?.amounts[r.currency] ?? '0';
  tx.put(PAID_DESTINATIONS, key, {
    id: key,
    amounts: { ...d?.amounts, [r.currency]: new Dec(before).plus(r.amount).toFixed() },
    payments: (d?.payments ?? 0) + 1,
    ...(d && d.lastAt > at
      ? { lastAt: d.lastAt, destination: d.destination, network: d.network }
      : { lastAt: at, destination: r.destination, network: r.network }),
  });
  const c = tx.get(PAID_CLIENTS, clientKey(r.clientEmail));
  if (!c || c.lastAt < at) tx.put(PAID_CLIENTS, clientKey(r.clientEmail), { id: clientKey(r.clientEmail), lastAt: at });
  const fee = chargedFee(r);
  if (fee) {
    const id = feeKey(r.currency, r.network);
    const kept = tx.get(PAID_FEES, id);
    if (laterFee(kept, fee) === fee) tx.put(PAID_FEES, id, { id, ...fee });
  }
}

/** What the summaries answer; the rules read them beside the requests still in memory. */
export interface PaidSummary {
  destination(d: Pick<WithdrawalRequest, 'network' | 'destination'>): PaidDestination | undefined;
  client(email: string): boolean;
  fee(currency: string, network: string): FeeEstimate | undefined;
  /** Destinations last paid after `since` (ms): look-alike screening's references beyond memory. */
  paidSince(since: number): PaidDestination[];
}

export const paidSummary = (read: Pick<Reads, 'get' | 'all'>): PaidSummary => ({
  paidSince: (since) => read.all(PAID_DESTINATIONS).filter((d) => Date.parse(d.lastAt) > since),
  destination: (d) => read.get(PAID_DESTINATIONS, destinationKey(d)),
  client: (email) => !!read.get(PAID_CLIENTS, clientKey(email)),
  fee: (currency, network) => {
    const f = read.get(PAID_FEES, feeKey(currency, network));
    return f ? { fee: f.fee, feeCurrency: f.feeCurrency, mode: f.mode, chargedAt: f.chargedAt } : undefined;
  },
});
