/**
 * The one way a value in fiat money (USD) is written for people, beside formatAmount for
 * crypto amounts: "≈ $1,234,567.00" (approximate: a price moves), two decimals, rounded half
 * up to the cent. `exact: true` drops the "≈" (a policy threshold is exact).
 */
import { Decimal } from 'decimal.js';
import { formatAmount } from './amount.js';

const D = Decimal.clone({ precision: 60, toExpNeg: -100, toExpPos: 100 });

export function formatFiat(usd: string | number, o: { approx?: boolean } = {}): string {
  let d: Decimal;
  try {
    d = new D(usd);
    if (!d.isFinite()) return String(usd);
  } catch {
    return String(usd);
  }
  const fixed = d.abs().toFixed(2, D.ROUND_HALF_UP);
  const [int = '0', cents = '00'] = fixed.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const sign = d.isNegative() && !d.isZero() ? '-' : '';
  return `${o.approx ? '≈ ' : ''}${sign}$${grouped}.${cents}`;
}

/** A value as shown beside an amount: "≈ $1,234.50", or the words of an unknown value. */
export function valueWords(
  v: { kind: 'known'; usd: string } | { kind: 'unknown'; reason: string } | undefined,
): string {
  if (!v) return 'value unknown';
  return v.kind === 'known' ? formatFiat(v.usd, { approx: true }) : `value unknown: ${v.reason}`;
}

/**
 * A per-currency policy threshold in words, whatever its key: "1,000.00 USDT", "$1,000.00 in value"
 * (`value`: USD across every currency), "1,000 in any other currency" (`default`).
 */
export function thresholdAmount(key: string, amount: string): string {
  if (key === 'value') return `${formatFiat(amount)} in value`;
  if (key === 'default') return `${formatAmount(amount)} in any other currency`;
  return formatAmount(amount, key);
}
