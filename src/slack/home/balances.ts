/**
 * The App Home's balances section: the origin accounts' balances, one line per currency and
 * network (the last reading if it is recent, else read now), flagged below the policy's
 * low-balance threshold. A failed read says so in one line; it never keeps the Home from showing.
 */
import type { KnownBlock } from '@slack/types';
import { nativeThresholds } from '../../balances/low-balance.js';
import { formatFiat } from '../../format/fiat.js';
import { currentValueAt, sumValues, type PriceSnapshot } from '../../prices/index.js';
import { Decimal } from 'decimal.js';
import { formatAmount } from '../../format/amount.js';
import type { OriginBalance } from '../../wallet/index.js';
import { utcMinute } from '../../format/time.js';
import { context, section } from '../blocks.js';
import type { CommandDeps } from '../deps.js';
import { outside } from '../../format/outside.js';
import { ALERT_COLLECTIONS } from '../../alerts/index.js';
import { WITHDRAWALS } from '../../withdrawals/index.js';

/** "*USDT* on BSC: 12,500.00 USDT", flagged when below the policy's low-balance threshold. */
export function balanceLines(
  rows: readonly OriginBalance[],
  configured: Readonly<Record<string, string>>,
  prices?: PriceSnapshot,
): string[] {
  // `value` thresholds in each currency's own units at its fresh price (as the low-balance watch reads them).
  const thresholds = nativeThresholds(configured, rows, prices);
  return [...rows]
    .sort((a, b) => a.currency.localeCompare(b.currency) || a.network.localeCompare(b.network))
    .map((r) => {
      const threshold = thresholds[r.currency];
      const low = threshold !== undefined && new Decimal(r.balance).lt(threshold);
      const value = prices ? currentValueAt(prices, r.currency, r.balance) : undefined;
      const worth = value
        ? ` · ${value.kind === 'known' ? formatFiat(value.usd, { approx: true }) : 'value unknown'}`
        : '';
      return `${low ? ':warning: ' : ''}*${outside(r.currency, 30)}* on ${outside(r.network, 30)}: ${outside(formatAmount(r.balance, r.currency))}${low ? ` (below ${outside(formatAmount(threshold, r.currency))})` : ''}${worth}`;
    });
}

/** "Total ≈ $1,234.50" over every balance, or why it cannot be known (one asset without a fresh price). */
export function balancesTotal(rows: readonly OriginBalance[], prices: PriceSnapshot): string {
  const total = sumValues(rows.map((r) => currentValueAt(prices, r.currency, r.balance)));
  return total.kind === 'known'
    ? `*Total ${formatFiat(total.usd, { approx: true })}*`
    : `*Total:* value unknown (${outside(total.reason, 200)})`;
}

/** The Home is not held back longer than this by a slow wallet service (the read goes on, for the next opening). */
const MAX_WAIT_MS = 3_000;

function withinWait<T>(p: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), MAX_WAIT_MS);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** A reading younger than this is shown as it is, unless money moved since; an older one is read again. */
const FRESH_MS = 5 * 60_000;
const MAX_LINES = 12;

/**
 * When money last moved as far as the app knows: a deposit or withdrawal alert received or
 * changed, a withdrawal sent. A reading older than that is read again, so the Home never shows
 * a balance from before a deposit that `/treasury balances` (which always reads) already shows.
 */
export function lastMovement(store: CommandDeps['store']): number {
  let at = 0;
  for (const a of store.all(ALERT_COLLECTIONS.alerts)) if (a.updatedAt > at) at = a.updatedAt;
  for (const r of store.all(WITHDRAWALS))
    if (r.state === 'completed' || r.state === 'executing')
      at = Math.max(at, Date.parse(r.history.at(-1)?.at ?? '') || 0);
  return at;
}

export async function balancesBlocks(
  deps: Pick<CommandDeps, 'balances' | 'policy' | 'now' | 'store'> & { prices?: CommandDeps['prices'] },
): Promise<KnownBlock[]> {
  const last = deps.balances.book.latest();
  const fresh = last?.ok && deps.now() - last.at < FRESH_MS && last.at >= lastMovement(deps.store);
  const reading = fresh ? last : await withinWait(deps.balances.book.refresh());
  if (!reading?.ok) return [section('*Balances*\n_Unavailable right now: the wallet service could not be read._')];
  const lines = balanceLines(reading.rows, deps.policy.current().alerts.low_balance, deps.prices?.snapshot());
  const shown = lines.slice(0, MAX_LINES).map((l) => `• ${l}`);
  if (lines.length > MAX_LINES) shown.push(`…and ${lines.length - MAX_LINES} more: \`/treasury balances\``);
  return [
    section(`*Balances*\n${shown.join('\n') || '_None listed._'}`),
    context(`Read from the wallet service at ${utcMinute(reading.at)}`),
  ];
}
