/**
 * Export every transaction matching a filter as CSV (RFC 4180, safe to open in a spreadsheet: csv.ts).
 * Amounts are written exactly as the service sent them, never re-formatted.
 */
import type { TransactionRecord } from '../wallet/schemas.js';
import { incompleteNote, readAllTransactions, type PagedWallet } from '../wallet/pager.js';
import type { TxQuery } from './filters.js';
import { csvFile } from './csv.js';
import { ACCOUNTING_FORMATS, accountingRows, type ExportFormat } from './formats.js';

/** A guard against an export that would not fit in one upload (Slack caps files at 1 GB; people at far less). */
export const EXPORT_MAX_RECORDS = 200_000;

export const CSV_COLUMNS = [
  'createdAt',
  'timestamp',
  'type',
  'status',
  'amount',
  'currency',
  'network',
  'fromAddress',
  'toAddress',
  'transactionHash',
  'reference',
  'explorerUrl',
] as const;

export function toCsvRow(r: TransactionRecord): string[] {
  return [
    r.createdAt ?? '',
    r.timestamp ? r.timestamp.toISOString() : '',
    r.type,
    r.status,
    r.amount,
    r.currency?.name ?? r.currencyName,
    r.network?.name ?? r.networkName,
    r.fromAddress ?? '',
    r.toAddress ?? '',
    r.hash ?? '',
    r.reference ?? '',
    r.hashUrl ?? '',
  ];
}

export function toCsv(records: TransactionRecord[]): string {
  return csvFile([[...CSV_COLUMNS], ...records.map(toCsvRow)], ['amount']);
}

export interface ExportProgress {
  page: number;
  totalPages: number;
  records: number;
  totalRecords: number;
}

export class ExportTooLargeError extends Error {
  constructor(readonly totalRecords: number) {
    super(
      `${totalRecords} records match; narrow the filters (for example with from= and to=) to at most ${EXPORT_MAX_RECORDS}`,
    );
    this.name = 'ExportTooLargeError';
  }
}

export interface ExportResult {
  csv: string;
  /** Records read from the service. */
  records: number;
  /** Rows written (for `csv`, every record). */
  exported: number;
  /** Accounting formats: records left out (failed, of unknown type, or without a date). */
  left: number;
  /** Cryptio: records left out for want of a transaction hash (its import needs one on every line). */
  noHash: number;
  /** Accounting formats: the currencies in the file. */
  currencies: string[];
  /** The service's own count of matching records. */
  totalRecords: number;
  /** Set when not every record could be read: "incomplete: 1,200 of 1,450 records (…)". */
  incomplete?: string;
}

/**
 * Read every page of the filter (src/wallet/pager.ts: by the service's own totals); the
 * page/pageSize of the query are ignored. A read that could not finish still gives its file,
 * with `incomplete` saying how much is missing. `csv` (the default) is our own columns; the
 * others are accounting tools' imports.
 */
export async function exportTransactions(
  wallet: PagedWallet,
  query: TxQuery,
  onProgress: (p: ExportProgress) => void | Promise<void> = () => undefined,
  format: ExportFormat = 'csv',
): Promise<ExportResult> {
  const { page: _page, pageSize: _size, ...filters } = query;
  const read = await readAllTransactions(wallet, filters, {
    onPage: async (p) => {
      if (p.page === 1 && p.totalRecords > EXPORT_MAX_RECORDS) throw new ExportTooLargeError(p.totalRecords);
      await onProgress(p);
    },
  });
  const { records } = read;
  const note = incompleteNote(read);
  const about = { totalRecords: read.totalRecords, ...(note ? { incomplete: note } : {}) };
  if (format === 'csv')
    return {
      csv: toCsv(records),
      records: records.length,
      exported: records.length,
      left: 0,
      noHash: 0,
      currencies: [],
      ...about,
    };
  const out = accountingRows(format, records);
  return {
    csv: csvFile(out.rows, ACCOUNTING_FORMATS[format].amounts),
    records: records.length,
    exported: out.exported,
    left: out.left,
    noHash: out.noHash,
    currencies: out.currencies,
    ...about,
  };
}
