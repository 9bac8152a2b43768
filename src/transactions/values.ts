/**
 * The values every export writes the same way: exact decimal amounts and dates in UTC.
 */
import { Decimal } from 'decimal.js';
import type { TransactionRecord } from '../wallet/schemas.js';

// Plain notation for any exponent, no rounding: the service's digits, exactly.
const Exact = Decimal.clone({ precision: 1000, toExpNeg: -9e15, toExpPos: 9e15 });

/** The amount as exact plain decimal text; undefined when the service sent something that is not a number. */
export function exactAmount(text: string): string | undefined {
  try {
    const d = new Exact(text.trim());
    return d.isFinite() ? d.abs().toFixed() : undefined;
  } catch {
    return undefined;
  }
}

const pad = (n: number) => String(n).padStart(2, '0');

/** When the transaction happened: the service's timestamp, else its createdAt (ISO without a zone: UTC). */
export function whenOf(r: TransactionRecord): Date | undefined {
  if (r.timestamp && !Number.isNaN(r.timestamp.getTime())) return r.timestamp;
  if (r.createdAt) {
    const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(r.createdAt) ? r.createdAt : `${r.createdAt}Z`);
    if (!Number.isNaN(d.getTime())) return d;
  }
  return undefined;
}

export const ddmmyyyy = (d: Date) => `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
export const mmddyyyy = (d: Date) => `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()}`;
export const utcSeconds = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
