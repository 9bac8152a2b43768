/**
 * Decimal arithmetic for the sandbox's balances and fees. decimal.js defaults to 20
 * significant digits, which would round a large balance plus an 18-decimal amount; the
 * sandbox must keep every digit a client sends, so it uses its own wide configuration.
 */
import { Decimal } from 'decimal.js';
import type { CurrencyMember } from '../wallet/enums.js';

export const Money = Decimal.clone({
  precision: 200,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});
export type Money = Decimal;

/** Parses exact decimal text; undefined for anything that is not a finite decimal. */
export function parseMoney(text: string): Decimal | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim())) return undefined;
  const d = new Money(text.trim());
  return d.isFinite() ? d : undefined;
}

/** Plain notation, no exponent, no trailing zeros: the text the sandbox writes as a JSON number. */
export function formatMoney(d: Decimal): string {
  return new Money(d).toFixed();
}

/**
 * Withdrawal fee: a fixed amount per currency, charged in the withdrawn currency on top of
 * the amount (the real fee schedule is unpublished; a flat fee is enough to make
 * "amount + fee > balance" reachable and visible in the result).
 */
const FEES: Readonly<Record<string, string>> = {
  BTC: '0.0001',
  LTC: '0.001',
  BNB: '0.0005',
  ETH: '0.0005',
  MATIC: '0.1',
  CELO: '0.01',
  TRX: '1',
};
const DEFAULT_FEE = '1';

export function withdrawalFee(currency: CurrencyMember): string {
  return FEES[currency.name] ?? DEFAULT_FEE;
}
