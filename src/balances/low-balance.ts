/**
 * Low-balance alerts as a pure function: given the policy's thresholds (`alerts.low_balance`,
 * per currency, applying to each network of it), a reading and what was last announced per
 * asset, which alerts to post now. One alert when a balance falls below its threshold, one when
 * it is back at or above it, nothing in between: the state is what was last announced, so a
 * restart (the state is stored) repeats nothing.
 */
import { Decimal } from 'decimal.js';
import { formatAmount } from '../format/amount.js';
import type { OriginBalance } from '../wallet/client/types.js';
import { valueAt, type PriceSnapshot } from '../prices/index.js';
import { entryFor } from '../policy/entries.js';

export interface LowBalanceState {
  /** What was last announced for this asset (false also when it was first seen, above its threshold). */
  low: boolean;
  /** ISO time of that announcement. */
  since: string;
  /** The asset (absent in records written before they carried it): a known asset missing from a reading is 0. */
  currency?: string;
  network?: string;
}

export interface LowBalanceChange {
  key: string;
  kind: 'low' | 'recovered';
  currency: string;
  network: string;
  balance: string;
  threshold: string;
}

export const assetKey = (currency: string, network: string) => `${currency}:${network}`;

export function lowBalanceChanges(
  thresholds: Readonly<Record<string, string>>,
  rows: readonly OriginBalance[],
  announced: (key: string) => LowBalanceState | undefined,
): LowBalanceChange[] {
  const out: LowBalanceChange[] = [];
  for (const r of rows) {
    const threshold = thresholds[r.currency];
    if (threshold === undefined) continue;
    const key = assetKey(r.currency, r.network);
    const low = new Decimal(r.balance).lt(threshold);
    const was = announced(key)?.low ?? false;
    if (low === was) continue;
    out.push({
      key,
      kind: low ? 'low' : 'recovered',
      currency: r.currency,
      network: r.network,
      balance: r.balance,
      threshold,
    });
  }
  return out;
}

/**
 * A reading as the alerts see it: an asset seen before (it has a record) that the service no
 * longer lists counts as 0, so its threshold can say it is low. An asset never seen and not
 * listed says nothing (for a request, unlisted is "unknown": src/balances/book.ts balanceIn).
 */
export function withMissingAsZero(
  rows: readonly OriginBalance[],
  known: ReadonlyArray<Pick<OriginBalance, 'currency' | 'network'>>,
): OriginBalance[] {
  const listed = new Set(rows.map((r) => assetKey(r.currency, r.network)));
  const missing = known
    .filter((k) => !listed.has(assetKey(k.currency, k.network)))
    .map((k) => ({ currency: k.currency, network: k.network, balance: '0' }));
  return [...rows, ...missing];
}

/** Listed assets with a threshold that have no record yet, or one without the asset: to record as seen (not low). */
export function unrecorded(
  thresholds: Readonly<Record<string, string>>,
  rows: readonly OriginBalance[],
  announced: (key: string) => LowBalanceState | undefined,
): OriginBalance[] {
  return rows.filter(
    (r) => thresholds[r.currency] !== undefined && !announced(assetKey(r.currency, r.network))?.currency,
  );
}

/** An amount in the currency's display format, without repeating the currency ("850.00"). */
const figure = (amount: string, currency: string) => formatAmount(amount, currency).replace(/ \S+$/, '');

/** "Low balance: USDT on BSC is 850.00 (below 1,000.00)" / "Balance recovered: USDT on BSC is 5,000.00 (threshold 1,000.00)". */
export function lowBalanceText(
  c: Pick<LowBalanceChange, 'kind' | 'currency' | 'network' | 'balance' | 'threshold'>,
): string {
  const is = `${c.currency} on ${c.network} is ${figure(c.balance, c.currency)}`;
  return c.kind === 'low'
    ? `⚠️ Low balance: ${is} (below ${figure(c.threshold, c.currency)})`
    : `✅ Balance recovered: ${is} (threshold ${figure(c.threshold, c.currency)})`;
}

/**
 * The thresholds in each listed currency's own units: its native entry, else the `value` entry
 * (USD) divided by its fresh price. A currency whose price is unknown has no threshold this time
 * (nothing is announced either way until a price is known again; what was announced stays).
 */
export function nativeThresholds(
  rec: Readonly<Record<string, string>>,
  rows: ReadonlyArray<Pick<OriginBalance, 'currency'>>,
  prices: PriceSnapshot | undefined,
): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const { currency } of rows) {
    const chosen = entryFor(rec, currency);
    if (!chosen) continue;
    if (chosen.basis === 'native') {
      out[currency] = chosen.entry;
      continue;
    }
    const unit = prices ? valueAt(prices, currency, '1') : undefined;
    if (unit?.kind === 'known')
      out[currency] = new Decimal(chosen.entry).div(unit.price).toSignificantDigits(8).toFixed();
  }
  return out;
}
