/**
 * A row's merchant reference and request id, derived from the batch and the row alone: the same
 * row always gets the same reference (a crash, a resume or a second process can never give a row
 * a second one, so the wallet service's status by reference always finds what was sent), and two
 * rows never share one. Written as a UUID, the form the service prefers (sha256-based, RFC 9562
 * version 8: custom).
 */
import { createHash } from 'node:crypto';

function uuidOf(text: string): string {
  const b = createHash('sha256').update(text).digest().subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x80;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const rowReference = (batchId: string, row: number): string =>
  uuidOf(`batch-payout/reference/${batchId}/${row}`);
export const rowRequestId = (batchId: string, row: number): string => uuidOf(`batch-payout/request/${batchId}/${row}`);

/** The file's fingerprint: the same bytes, the same file. */
export const fileSha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The batch's reference for people: the first 8 characters of its id (`/tx batch <reference>`, the card). */
export const batchRef = (b: { id: string }): string => b.id.slice(0, 8);
