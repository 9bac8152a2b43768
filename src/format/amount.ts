/**
 * The one way amounts are written for people, everywhere (cards, alerts, /tx, digest, policy,
 * Home, refusals). The rule:
 * - thousands separated by commas: "25,000";
 * - stablecoins (pegged to a fiat currency: USDT, USDC, DAI, BUSD, TUSD, USDJ, cUSD, cEUR) show
 *   at least 2 decimals, as money does: "1,234.50 USDT", "25,000.00 USDT";
 * - every other currency shows its fraction without padding: "0.5 BTC", "12 ETH";
 * - no digit is ever dropped or rounded: a fraction longer than the minimum is shown in full
 *   ("0.000123 USDT", "0.000000000000000001 ETH"); only trailing zeros beyond the minimum go
 *   ("1.10000 BTC" → "1.1 BTC"), since they carry no value.
 * Text that is not a number (a malformed webhook field) is returned as it came, so the reader
 * still sees what was sent. Exports (CSV) do not use this: they keep the service's exact text.
 * Linear in the input: grouping is one pass, and a number written with an exponent is expanded
 * only within EXPAND_LIMIT digits (outside numbers are bounded to ±40 at the edge, src/wallet/json.ts;
 * a bigger one here is shown as it came rather than expanded to megabytes).
 */
import { Decimal } from 'decimal.js';

// Exact conversion of anything decimal.js reads ("1e-7" too): never exponent notation, never rounding.
const Exact = Decimal.clone({ precision: 1000, toExpNeg: -9e15, toExpPos: 9e15 });

/** Currencies pegged to a fiat currency: shown with cents. Upper-case names. */
const STABLECOINS = new Set(['USDT', 'USDC', 'DAI', 'BUSD', 'TUSD', 'USDJ', 'CUSD', 'CEUR']);

/** Minimum decimals shown for `currency` (its name, any case). */
export function displayDecimals(currency: string | undefined): number {
  return currency && STABLECOINS.has(currency.trim().toUpperCase()) ? 2 : 0;
}

const PLAIN = /^-?\d+(\.\d+)?$/;
/** Largest exponent (either way) expanded into plain digits. */
const EXPAND_LIMIT = 1000;

function plainText(amount: string | number | Decimal): string | undefined {
  if (typeof amount === 'string' && PLAIN.test(amount.trim())) return amount.trim();
  try {
    const d = new Exact(amount);
    return d.isFinite() && Math.abs(d.e) <= EXPAND_LIMIT ? d.toFixed() : undefined;
  } catch {
    return undefined;
  }
}

/** "1,234.50 USDT", "0.5 BTC", "25,000" (no currency given: its minimum decimals are 0). */
export function formatAmount(amount: string | number | Decimal, currency?: string): string {
  const text = plainText(amount);
  const unit = currency?.trim() ? ` ${currency.trim()}` : '';
  if (text === undefined) return `${String(amount)}${unit}`;
  const negative = text.startsWith('-');
  const [intRaw = '0', fracRaw = ''] = (negative ? text.slice(1) : text).split('.');
  const int = intRaw.replace(/^0+(?=\d)/, '');
  const min = displayDecimals(currency);
  let frac = withoutTrailingZeros(fracRaw);
  if (frac.length < min) frac = frac.padEnd(min, '0');
  const grouped = groupThousands(int);
  const isZero = /^0*$/.test(int + frac);
  return `${negative && !isZero ? '-' : ''}${grouped}${frac ? `.${frac}` : ''}${unit}`;
}

/** "1234567" → "1,234,567", in one pass (a lookahead regex is quadratic on long digit runs). */
function groupThousands(int: string): string {
  const head = int.length % 3 || 3;
  const parts = [int.slice(0, head)];
  for (let i = head; i < int.length; i += 3) parts.push(int.slice(i, i + 3));
  return parts.join(',');
}

/** "1000" → "1"; a loop, since /0+$/ backtracks quadratically on a long run of zeros before a digit. */
function withoutTrailingZeros(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 48) end--;
  return s.slice(0, end);
}
