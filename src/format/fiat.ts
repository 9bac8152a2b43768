/**
 * The one way a value in fiat money (USD) is written for people, beside formatAmount for
 * crypto amounts: "≈ $1,234,567.00" (approximate: a price moves), two decimals, rounded half
 * up to the cent. `exact: true` drops the "≈" (a policy threshold is exact). A unit price is
 * written by formatPrice below (four significant digits under $10).
 */
import { Decimal } from 'decimal.js';
import { formatAmount } from './amount.js';

const D = Decimal.clone({ precision: 60, toExpNeg: -100, toExpPos: 100 });

/** The number, or undefined when it is none (shown then as it came: never a made-up $0.00). */
function parse(usd: string | number): Decimal | undefined {
  try {
    const d = new D(usd);
    return d.isFinite() ? d : undefined;
  } catch {
    return undefined;
  }
}

export function formatFiat(usd: string | number, o: { approx?: boolean } = {}): string {
  const d = parse(usd);
  if (!d) return String(usd);
  const fixed = d.abs().toFixed(2, D.ROUND_HALF_UP);
  const [int = '0', cents = '00'] = fixed.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const sign = d.isNegative() && !d.isZero() ? '-' : '';
  return `${o.approx ? '≈ ' : ''}${sign}$${grouped}.${cents}`;
}

/**
 * A unit price in USD for people ("at $0.9984"), beside formatFiat for values and totals. From
 * $10 up, as formatFiat writes money ("$64,000.00"); below, four significant digits, since cents
 * would turn a stablecoin's $0.9984 into "$1.00" and a small token's price into "$0.00": "$1.234",
 * "$0.9984", "$0.00001235". Never fewer than two decimals ("$1.00", "$0.50", one look for every
 * price under $10) and never in exponent notation, however small. Rounded half up, as values are;
 * a price that rounds up to $10 ($9.99995) is written as one of $10.
 */
export function formatPrice(usd: string | number): string {
  const d = parse(usd);
  if (!d) return String(usd);
  const rounded = d.abs().toSignificantDigits(4, D.ROUND_HALF_UP);
  if (d.isZero() || rounded.gte(10)) return formatFiat(d.toFixed());
  // toFixed() with no argument: every digit the rounding kept, in fixed notation however small.
  const [int = '0', decimals = ''] = rounded.toFixed().split('.');
  const sign = d.isNegative() ? '-' : '';
  return `${sign}$${int}.${decimals.padEnd(2, '0')}`;
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
