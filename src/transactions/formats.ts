/**
 * Accounting formats of `/tx export format=…`: the columns, dates and signs each tool's import
 * documents. `csv` is our own (export.ts). Amounts are exact decimal text (decimal.js, never a
 * float), with every digit the service gave, in plain notation, no thousands separator.
 *
 * Every line reconciles with what the app showed: a withdrawal with a fee is two lines for Xero
 * and QuickBooks (the delivered amount and the fee, summing to what was debited: "Debited
 * 5,001.00 USDT · delivered 5,000.00 · fee 1.00" is -5000 and -1), and one line with its fee
 * columns for Cryptio. The booking facts (client, note, requester, approvers, references;
 * booking.ts) go where each tool has room without breaking its import: the Description (Xero,
 * QuickBooks) or the note (Cryptio); the Date is the value date (the day the money moved, UTC).
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
import { formatAmount } from '../format/amount.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import type { Booking } from './booking.js';

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

import { ddmmyyyy, exactAmount, mmddyyyy, utcSeconds, whenOf } from './values.js';

export { ddmmyyyy, exactAmount, mmddyyyy, utcSeconds, whenOf };

const currencyOf = (r: TransactionRecord) => r.currency?.name ?? r.currencyName;
const networkOf = (r: TransactionRecord) => r.network?.name ?? r.networkName;

/** A person's name for a file; their Slack id when no name is known. */
export type NameOf = (userId: string) => string;
const asIs: NameOf = (id) => id;

/** Who paid us (deposit: the sending address) or whom we paid (withdrawal: the allowlist's label, else the destination). */
const otherParty = (b: Booking) => (b.r.type === 'deposit' ? b.r.fromAddress : b.payee || b.r.toAddress) ?? '';

function description(b: Booking, fee = false): string {
  const { r } = b;
  const what = r.type === 'deposit' ? 'deposit' : fee ? 'withdrawal fee' : 'withdrawal';
  // A labelled payee stands in the Payee column: the address it names is kept here.
  const to = b.payee && r.toAddress ? ` to ${r.toAddress}` : '';
  return `${currencyOf(r)} ${what} on ${networkOf(r)}${to}${r.hash ? ` (tx ${r.hash})` : ''}`;
}

/**
 * The booking facts in words, for the tools whose import has no column for them (Xero and
 * QuickBooks read a fixed set of columns; Cryptio has one note). `skip`: a reference already
 * in a column of its own.
 */
export function bookingFacts(b: Booking, nameOf: NameOf = asIs, skip?: string): string[] {
  const out: string[] = [];
  if (b.client) out.push(`client ${b.client}`);
  if (b.note) out.push(`note: ${b.note}`);
  if (b.requester) out.push(`requested by ${nameOf(b.requester)}`);
  if (b.approvers.length) out.push(`approved by ${b.approvers.map(nameOf).join(', ')}`);
  if (b.merchantReference && b.merchantReference !== skip) out.push(`merchant reference ${b.merchantReference}`);
  if (b.serviceReference && b.serviceReference !== skip) out.push(`service reference ${b.serviceReference}`);
  return out;
}

const withFacts = (text: string, facts: string[]) => [text, ...facts].join(' · ');

/** A record that can go to an accounting tool: money that moved, with an amount and a date. */
interface Movement {
  b: Booking;
  r: TransactionRecord;
  amount: string;
  signed: string;
  at: Date;
  /** A fee in the record's own currency: its own line where the tool books one account. */
  fee?: string;
}

const negative = (amount: string) => (/^0(\.0*)?$/.test(amount) ? amount : `-${amount}`);

function movement(b: Booking): Movement | undefined {
  const { r } = b;
  if (r.status !== 'successful' || (r.type !== 'deposit' && r.type !== 'withdrawal')) return undefined;
  const amount = exactAmount(r.amount);
  const at = whenOf(r);
  if (amount === undefined || !at) return undefined;
  // Money out is negative where the tool expects a signed amount; "-0" would read oddly.
  const signed = r.type === 'withdrawal' ? negative(amount) : amount;
  const fee = r.type === 'withdrawal' && b.fee && b.feeCurrency === currencyOf(r) ? b.fee : undefined;
  return { b, r, amount, signed, at, ...(fee ? { fee } : {}) };
}

interface FormatSpec {
  header: readonly string[];
  /** Columns holding amounts: a leading minus there is a sign, not a formula (csv.ts). */
  amounts: readonly string[];
  /** The lines of one movement (a withdrawal with a fee: the delivered amount, then the fee). */
  lines(m: Movement, nameOf: NameOf): string[][];
}

/** The reference a statement line carries: ours for a withdrawal, the service's for a deposit, else the hash. */
const referenceOf = (b: Booking) => b.merchantReference || b.serviceReference || b.r.hash || '';

export const ACCOUNTING_FORMATS: Record<AccountingFormat, FormatSpec> = {
  xero: {
    header: ['Date', 'Amount', 'Payee', 'Description', 'Reference'],
    amounts: ['Amount'],
    lines: ({ b, signed, at, fee }, nameOf) => {
      const ref = referenceOf(b);
      const main = [ddmmyyyy(at), signed, otherParty(b), withFacts(description(b), bookingFacts(b, nameOf, ref)), ref];
      if (!fee) return [main];
      return [main, [ddmmyyyy(at), negative(fee), 'Withdrawal fee', description(b, true), ref]];
    },
  },
  quickbooks: {
    header: ['Date', 'Description', 'Amount'],
    amounts: ['Amount'],
    lines: ({ b, signed, at, fee }, nameOf) => {
      const main = [mmddyyyy(at), withFacts(description(b), bookingFacts(b, nameOf)), signed];
      if (!fee) return [main];
      const ref = referenceOf(b);
      return [main, [mmddyyyy(at), withFacts(description(b, true), ref ? [`reference ${ref}`] : []), negative(fee)]];
    },
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
    amounts: ['incomingVolume', 'outgoingVolume', 'feeVolume'],
    lines: ({ b, r, amount, at }, nameOf) => {
      const asset = currencyOf(r);
      const deposit = r.type === 'deposit';
      // The fee in its own columns, in whatever asset it was paid (gas included). Unit rates and
      // values stay empty: Cryptio values the movements itself at their date ("use only one of
      // them"), while the app's price cache holds today's prices only: a rate filled in from it
      // would book a past movement at the wrong price (the plain CSV's value_usd says its time).
      return [
        [
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
          b.fee ? b.feeCurrency : '',
          b.fee,
          '',
          '',
          otherParty(b),
          [networkOf(r), ...bookingFacts(b, nameOf)].join(', '),
        ],
      ];
    },
  },
};

/** The rows of an accounting format (header first), and how many records were left out. */
export function accountingRows(
  format: AccountingFormat,
  list: readonly Booking[],
  nameOf: NameOf = asIs,
): { rows: string[][]; exported: number; lines: number; left: number; noHash: number; currencies: string[] } {
  const spec = ACCOUNTING_FORMATS[format];
  const currencies = new Set<string>();
  const moved: Movement[] = [];
  let left = 0;
  let noHash = 0;
  for (const b of list) {
    const m = movement(b);
    if (!m) {
      left++;
      continue;
    }
    if (format === 'cryptio' && !b.r.hash?.trim()) {
      noHash++;
      continue;
    }
    currencies.add(currencyOf(b.r));
    moved.push(m);
  }
  // Oldest first, as a statement reads (the service lists newest first).
  moved.sort((a, b) => a.at.getTime() - b.at.getTime());
  const body = moved.flatMap((m) => spec.lines(m, nameOf));
  const rows: string[][] = [[...spec.header], ...body];
  return { rows, exported: moved.length, lines: body.length, left, noHash, currencies: [...currencies].sort() };
}

/**
 * What a person must know before importing an accounting file: what was left out, mixed
 * currencies, and a file longer than the tool imports at once.
 */
export function accountingNotes(
  format: AccountingFormat,
  r: { left: number; currencies: string[]; exported?: number; lines?: number; noHash?: number },
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
  if (max !== undefined && (r.lines ?? r.exported ?? 0) > max)
    notes.push(
      `${FORMAT_NAMES[format]} imports at most ${formatAmount(String(max))} lines at a time: split this file (for example with \`from=\` and \`to=\`).`,
    );
  if (format !== 'cryptio' && r.currencies.length > 1)
    notes.push(
      `The file holds ${r.currencies.join(', ')}: ${FORMAT_NAMES[format]} imports one bank account (one currency) per file, so export each with \`currency=\`.`,
    );
  return notes.length ? `\n${notes.join('\n')}` : '';
}
