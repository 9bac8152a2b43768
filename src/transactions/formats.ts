/**
 * Accounting formats of `/tx export format=…`: the columns, dates and signs each tool's import
 * documents. `csv` is our own (export.ts, unchanged). Amounts are exact decimal text (decimal.js,
 * never a float), with every digit the service gave, in plain notation, no thousands separator.
 *
 * Only money that moved is exported to an accounting tool: failed transactions, and records
 * of a type the service did not name, are left out (the export's message counts them); so is a
 * record with no time at all (every tool needs a date).
 *
 * Sources (read 2026-11):
 * - Xero, bank statement import (CSV), Xero's statement template: columns Date, Amount, Payee,
 *   Description, Reference (Date and Amount required, the rest optional, read by position;
 *   headings unchanged); "Date: use the format DD/MM/YYYY"; "Amount: for money spent use a
 *   minus sign" (as quoted in https://online.flippingbook.com/view/399081/34/; the same
 *   columns in several import guides).
 * - QuickBooks Online, "Format CSV files in Excel to get bank transactions into QuickBooks",
 *   the 3-column format: Date, Description, Amount ("the only columns QuickBooks can handle
 *   and this order"); negative amounts are money out, positive money in; no currency symbols,
 *   no parentheses for negatives; one date format throughout (we write MM/DD/YYYY, QuickBooks
 *   Online's US default; the upload asks which format the file uses).
 *   https://quickbooks.intuit.com/learn-support/en-uk/help-article/bank-transactions/format-csv-files-excel-get-bank-transactions/L4BjLWckq_GB_en_GB
 *   and https://community.intuit.com/articles/1773081-how-to-import-bank-transactions-using-excel-csv-files
 * - Cryptio, custom transaction import (CSV template): transactionDate, orderType, txhash,
 *   incomingAsset, incomingVolume, incomingUnitRate, incomingTransactionValue, outgoingAsset,
 *   outgoingVolume, outgoingUnitRate, outgoingTransactionValue, feeAsset, feeVolume,
 *   feeUnitRate, feeTransactionValue, otherParties, note; transactionDate in UTC as
 *   `YYYY-MM-DD HH:MM:SS`; orderType lower case `deposit` (incoming columns only) or
 *   `withdraw` (outgoing columns only); volumes positive.
 *   https://cryptio.support.site/article/how-to-import-transactions-using-the-custom-csv-template
 *
 * Xero and QuickBooks import into one bank account, which has one currency: a file mixing
 * currencies must be split (the export's message says so; `currency=` does it).
 *
 * Xero imports at most 1,000 statement lines per file ("split the file if it contains more than
 * 1,000 bank transactions", Xero's CSV statement import help); QuickBooks Online's upload is
 * capped too (350 KB, about 1,000 rows): a longer file is still written, whole, and its message
 * says to split it. Cryptio needs a txhash on every line: a record without one is left out and
 * counted in the message.
 */
import { Decimal } from 'decimal.js';
import { formatAmount } from '../format/amount.js';
import type { TransactionRecord } from '../wallet/schemas.js';

export const EXPORT_FORMATS = ['csv', 'xero', 'quickbooks', 'cryptio'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type AccountingFormat = Exclude<ExportFormat, 'csv'>;

/** The tools' names, for people. */
export const FORMAT_NAMES: Record<ExportFormat, string> = {
  csv: 'CSV',
  xero: 'Xero',
  quickbooks: 'QuickBooks Online',
  cryptio: 'Cryptio',
};

/** The most lines one import takes, where the tool caps it. */
export const IMPORT_MAX_LINES: Partial<Record<AccountingFormat, number>> = { xero: 1000, quickbooks: 1000 };

export function isExportFormat(x: string): x is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(x);
}

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

const currencyOf = (r: TransactionRecord) => r.currency?.name ?? r.currencyName;
const networkOf = (r: TransactionRecord) => r.network?.name ?? r.networkName;

/** Who paid us (deposit: the sending address) or whom we paid (withdrawal: the destination). */
const otherParty = (r: TransactionRecord) => (r.type === 'deposit' ? r.fromAddress : r.toAddress) ?? '';

function description(r: TransactionRecord): string {
  const what = r.type === 'deposit' ? 'deposit' : 'withdrawal';
  return `${currencyOf(r)} ${what} on ${networkOf(r)}${r.hash ? ` (tx ${r.hash})` : ''}`;
}

/** A record that can go to an accounting tool: money that moved, with an amount and a date. */
interface Movement {
  r: TransactionRecord;
  amount: string;
  signed: string;
  at: Date;
}

function movement(r: TransactionRecord): Movement | undefined {
  if (r.status !== 'successful' || (r.type !== 'deposit' && r.type !== 'withdrawal')) return undefined;
  const amount = exactAmount(r.amount);
  const at = whenOf(r);
  if (amount === undefined || !at) return undefined;
  // Money out is negative where the tool expects a signed amount; "-0" would read oddly.
  const signed = r.type === 'withdrawal' && !/^0(\.0*)?$/.test(amount) ? `-${amount}` : amount;
  return { r, amount, signed, at };
}

interface FormatSpec {
  header: readonly string[];
  /** Columns holding amounts: a leading minus there is a sign, not a formula (csv.ts). */
  amounts: readonly string[];
  row(m: Movement): string[];
}

export const ACCOUNTING_FORMATS: Record<AccountingFormat, FormatSpec> = {
  xero: {
    header: ['Date', 'Amount', 'Payee', 'Description', 'Reference'],
    amounts: ['Amount'],
    row: ({ r, signed, at }) => [ddmmyyyy(at), signed, otherParty(r), description(r), r.reference ?? r.hash ?? ''],
  },
  quickbooks: {
    header: ['Date', 'Description', 'Amount'],
    amounts: ['Amount'],
    row: ({ r, signed, at }) => [mmddyyyy(at), description(r), signed],
  },
  cryptio: {
    header: [
      'transactionDate',
      'orderType',
      'txhash',
      'incomingAsset',
      'incomingVolume',
      'incomingUnitRate',
      'incomingTransactionValue',
      'outgoingAsset',
      'outgoingVolume',
      'outgoingUnitRate',
      'outgoingTransactionValue',
      'feeAsset',
      'feeVolume',
      'feeUnitRate',
      'feeTransactionValue',
      'otherParties',
      'note',
    ],
    amounts: ['incomingVolume', 'outgoingVolume'],
    row: ({ r, amount, at }) => {
      const asset = currencyOf(r);
      const deposit = r.type === 'deposit';
      return [
        utcSeconds(at),
        deposit ? 'deposit' : 'withdraw',
        r.hash ?? '',
        deposit ? asset : '',
        deposit ? amount : '',
        '',
        '',
        deposit ? '' : asset,
        deposit ? '' : amount,
        '',
        '',
        // Fee and valuation columns stay empty: the service's transaction list gives no fee
        // and no rate; Cryptio values the movements itself.
        '',
        '',
        '',
        '',
        otherParty(r),
        [`${networkOf(r)}`, r.reference ? `reference ${r.reference}` : ''].filter(Boolean).join(', '),
      ];
    },
  },
};

/** The rows of an accounting format (header first), and how many records were left out. */
export function accountingRows(
  format: AccountingFormat,
  records: readonly TransactionRecord[],
): { rows: string[][]; exported: number; left: number; noHash: number; currencies: string[] } {
  const spec = ACCOUNTING_FORMATS[format];
  const currencies = new Set<string>();
  const moved: Movement[] = [];
  let left = 0;
  let noHash = 0;
  for (const r of records) {
    const m = movement(r);
    if (!m) {
      left++;
      continue;
    }
    if (format === 'cryptio' && !r.hash?.trim()) {
      noHash++;
      continue;
    }
    currencies.add(currencyOf(r));
    moved.push(m);
  }
  // Oldest first, as a statement reads (the service lists newest first).
  moved.sort((a, b) => a.at.getTime() - b.at.getTime());
  const rows: string[][] = [[...spec.header], ...moved.map((m) => spec.row(m))];
  return { rows, exported: moved.length, left, noHash, currencies: [...currencies].sort() };
}

/**
 * What a person must know before importing an accounting file: what was left out, mixed
 * currencies, and a file longer than the tool imports at once.
 */
export function accountingNotes(
  format: AccountingFormat,
  r: { left: number; currencies: string[]; exported?: number; noHash?: number },
): string {
  const notes: string[] = [];
  if (r.left)
    notes.push(
      `${r.left} record${r.left === 1 ? ' was' : 's were'} left out: failed, of an unknown type, or without a date (no money moved, or nothing to book).`,
    );
  if (r.noHash)
    notes.push(
      `${r.noHash} record${r.noHash === 1 ? ' was' : 's were'} left out: without a transaction hash, which ${FORMAT_NAMES[format]} needs on every line.`,
    );
  const max = IMPORT_MAX_LINES[format];
  if (max !== undefined && (r.exported ?? 0) > max)
    notes.push(
      `${FORMAT_NAMES[format]} imports at most ${formatAmount(String(max))} lines at a time: split this file (for example with \`from=\` and \`to=\`).`,
    );
  if (format !== 'cryptio' && r.currencies.length > 1)
    notes.push(
      `The file holds ${r.currencies.join(', ')}: ${FORMAT_NAMES[format]} imports one bank account (one currency) per file, so export each with \`currency=\`.`,
    );
  return notes.length ? `\n${notes.join('\n')}` : '';
}
