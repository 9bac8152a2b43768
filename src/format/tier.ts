/**
 * A withdrawal tier in words, as finance staff read it (issue 40): its range, then the approvals
 * it needs: "up to $10,000.00: 2 approvals", "above $50,000.00: 3 approvals", "up to 1,000.00
 * USDT: 1 approval". A tier chosen by value is in USD (one fiat format); a tier by amount in
 * the request's currency. A request stored before `above` was kept reads "the top tier".
 */
import { formatAmount } from './amount.js';
import { formatFiat } from './fiat.js';

export interface TierLike {
  index: number;
  max: string | null;
  above?: string;
  approvals: number;
  basis?: 'value';
}

export const approvalCount = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

export function tierRange(t: TierLike, currency: string): string {
  const amount = (a: string) => (t.basis === 'value' ? formatFiat(a) : formatAmount(a, currency));
  if (t.max !== null) return `up to ${amount(t.max)}`;
  if (t.above !== undefined) return `above ${amount(t.above)}`;
  // The only tier has no limit at all; a top tier without `above` was stored before it was kept.
  return t.index === 0 ? 'any amount' : 'the top tier';
}

export function tierWords(t: TierLike, currency: string): string {
  return `${tierRange(t, currency)}: ${approvalCount(t.approvals)}`;
}
