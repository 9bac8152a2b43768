/**
 * What makes two payouts the same, and two files the same payouts: each row in a canonical form
 * (an EVM address lower-cased, as checksum casing means nothing; the amount as a number, so "600"
 * and "600.00" match; the client e-mail lower-cased), and the file's fingerprint the sha256 of its
 * sorted canonical rows, whatever their order, spacing, quoting or line endings. Pure.
 */
import { createHash } from 'node:crypto';
import { Dec } from '../money/decimal.js';
import { addressFamily } from '../wallet/addresses.js';
import type { BatchRow } from './types.js';

export type PayoutFields = Pick<BatchRow, 'address' | 'amount' | 'currency' | 'network' | 'clientEmail' | 'reference'>;

/** One payout as compared: the within-file duplicate check and the file fingerprint both use it. */
export function canonicalRow(r: PayoutFields): string {
  const address = addressFamily({ name: r.network }) === 'evm' ? r.address.toLowerCase() : r.address;
  return JSON.stringify([
    address,
    new Dec(r.amount).toFixed(),
    r.currency,
    r.network,
    r.clientEmail.toLowerCase(),
    r.reference,
  ]);
}

/** The payouts' fingerprint: the same rows in any order, written any way, give the same one. */
export function payoutsFingerprint(rows: readonly PayoutFields[]): string {
  const sorted = rows.map(canonicalRow).sort();
  return createHash('sha256').update(sorted.join('\n'), 'utf8').digest('hex');
}
