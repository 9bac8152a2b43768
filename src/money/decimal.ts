/**
 * Decimal helpers for amounts (a leaf: every folder that counts money imports it, it imports none): parsing what a person typed, comparing, summing,
 * displaying. Never a binary float on the way.
 */
import { Decimal } from 'decimal.js';

// Precision high enough for any sum of 18-decimal amounts we will ever see.
export const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN, toExpNeg: -100, toExpPos: 100 });
export type Dec = Decimal;

const PLAIN = /^\d+(\.\d+)?$/;
// "1,234,567.5": commas only as thousands separators, in groups of exactly three. Anything
// else with a comma ("0,5", "2,50", "1.000,50") is ambiguous between locales and refused.
const GROUPED = /^\d{1,3}(,\d{3})+(\.\d+)?$/;

export type ParsedAmount = { ok: true; text: string; decimals: number } | { ok: false; message: string };

/**
 * A plain positive decimal ("12.5", "0.000000000000000001", "1,250.5"). Thousands commas are
 * dropped; leading zeros of the integer part are removed; the fraction is kept as typed, so
 * the text that is approved is the text that is sent.
 */
export function parseAmount(input: string): ParsedAmount {
  const trimmed = String(input).trim();
  if (trimmed.includes(',') && !GROUPED.test(trimmed)) {
    return {
      ok: false,
      message: `"${input}" is ambiguous: use a point for decimals (12.5) and commas only between groups of three digits (1,250.5)`,
    };
  }
  const cleaned = trimmed.replace(/,/g, '');
  if (!PLAIN.test(cleaned)) {
    return { ok: false, message: `"${input}" is not an amount: write a plain positive number such as 250 or 12.5` };
  }
  const [intPart = '0', frac] = cleaned.split('.');
  const int = intPart.replace(/^0+(?=\d)/, '');
  const text = frac === undefined ? int : `${int}.${frac}`;
  if (!new Dec(text).gt(0)) return { ok: false, message: 'the amount must be greater than zero' };
  return { ok: true, text, decimals: frac?.length ?? 0 };
}

export function sumAmounts(amounts: readonly string[]): Decimal {
  return amounts.reduce((acc, a) => acc.plus(a), new Dec(0));
}
