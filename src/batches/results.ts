/**
 * The batch's rows file, posted in its card's thread when it is requested (every row as validated,
 * with the merchant reference it will be sent with and its value), and its result file, posted in its card's thread once the rows are settled: one line per
 * row, in file order, with our merchant reference and the wallet service's own, so it reconciles
 * line by line with the service's transaction list. Written by the one CSV writer of the exports
 * (src/transactions/csv.ts: formula-safe, RFC 4180).
 */
import { csvFile } from '../transactions/csv.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';
import { rowReference, rowRequestId } from './reference.js';
import type { Batch } from './types.js';

export const RESULT_COLUMNS = [
  'row',
  'batch_id',
  'merchant_reference',
  'service_reference',
  'status',
  'amount',
  'currency',
  'network',
  'address',
  'fee',
  'fee_currency',
  'transaction_hash',
  'reason',
] as const;

/** A row's status in the words of the file: sent, failed, unknown (being checked), not sent, waiting, sending. */
export function rowStatus(r: WithdrawalRequest | undefined): string {
  if (!r) return 'waiting';
  switch (r.state) {
    case 'pending':
    case 'approved':
      return 'waiting';
    case 'executing':
      return 'sending';
    case 'completed':
      return 'sent';
    case 'failed':
      return 'failed';
    case 'unknown':
      return 'unknown';
    case 'rejected':
    case 'expired':
      return 'not sent';
    default: {
      const unhandled: never = r.state;
      return String(unhandled);
    }
  }
}

const reasonOf = (r: WithdrawalRequest | undefined): string =>
  r?.error?.message ?? r?.rejection?.reason ?? (r?.state === 'unknown' ? (r.unknownReason ?? '') : '');

export function resultCsv(b: Batch, get: (id: string) => WithdrawalRequest | undefined): string {
  const lines = b.rows.map((row) => {
    const r = get(rowRequestId(b.id, row.row));
    return [
      String(row.row),
      b.id,
      r?.merchantReference ?? '',
      r?.result?.serviceReference ?? '',
      rowStatus(r),
      row.amount,
      row.currency,
      row.network,
      row.address,
      r?.result?.fee ?? '',
      r?.result?.feeCurrency ?? '',
      r?.result?.transactionHash ?? r?.confirmation?.transactionHash ?? '',
      reasonOf(r),
    ];
  });
  return csvFile([[...RESULT_COLUMNS], ...lines], ['amount', 'fee']);
}

export const ROWS_COLUMNS = [
  'row',
  'address',
  'amount',
  'currency',
  'network',
  'client_email',
  'note',
  'label',
  'reference',
  'value_usd',
  'merchant_reference',
] as const;

/** Every row of the batch as the approvers judge it: what the card's five largest rows stand for. */
export function rowsCsv(b: Batch): string {
  const lines = b.rows.map((r) => [
    String(r.row),
    r.address,
    r.amount,
    r.currency,
    r.network,
    r.clientEmail,
    r.note,
    r.label,
    r.reference,
    r.valuation.kind === 'known' ? r.valuation.usd : '',
    rowReference(b.id, r.row),
  ]);
  return csvFile([[...ROWS_COLUMNS], ...lines], ['amount', 'value_usd']);
}
