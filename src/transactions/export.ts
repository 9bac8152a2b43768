/**
 * Export every transaction matching a filter as CSV (RFC 4180, safe to open in a spreadsheet: csv.ts).
 * Amounts are written exactly as the service sent them, never re-formatted.
 */
import { type DayLookup, type DayPrices, dayKey } from '../prices/day-prices.js';
import { accountingUsd, accountingValueAt, currentOf, type PriceSnapshot, type Valuation } from '../prices/index.js';
import { incompleteNote, type PagedRead, readAllTransactions, type PagedWallet } from '../wallet/pager.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';
import { type Booking, bookings, peopleIn } from './booking.js';
import { FEE_FROM_NOTIFICATION, FEE_NOT_REPORTED, type NotifiedFees } from './fee.js';
import { readClientTransactions } from './client-read.js';
import { type ClientBook, clientBook } from './clients.js';
import { csvFile } from './csv.js';
import type { TxQuery } from './filters.js';
import { ACCOUNTING_FORMATS, accountingRows, type ExportFormat, type NameOf } from './formats.js';

/** A guard against an export that would not fit in one upload (Slack caps files at 1 GB; people at far less). */
export const EXPORT_MAX_RECORDS = 200_000;

/**
 * A record's value in USD for the plain CSV, and the time of the price it used:
 * - a withdrawal the app made: the value recorded on its request (at sending, else at the
 *   request), the price of that moment;
 * - anything else (deposits, withdrawals made elsewhere) of a past day: at the price of its UTC
 *   date (issue 40: the books want the price of the transaction's date), where the price source
 *   has one (src/prices/day-prices.ts); `value_usd_at` is then that date, 00:00 UTC;
 * - otherwise at the cached price at export time, and `value_usd_at` says so beside the price's
 *   time, with why the date's price was not used;
 * - no fresh price: both empty, never 0.
 */
export interface RecordValue {
  valuation: Valuation | undefined;
  /** Words for `value_usd_at` beside the price's time, when the price is not of the transaction's date. */
  note?: string;
}

export function recordValue(
  b: Booking,
  prices: PriceSnapshot | undefined,
  days?: ReadonlyMap<string, DayLookup>,
): RecordValue {
  const recorded = b.request?.sendValuation ?? b.request?.valuation;
  // At the price of that moment, never the higher price policy may have judged it at (the books want what it was worth).
  if (recorded?.kind === 'known') return { valuation: currentOf(recorded) };
  const currency = b.r.currency?.name ?? b.r.currencyName;
  const day = b.valueDate && currency ? days?.get(dayKey(currency, b.valueDate)) : undefined;
  if (day?.kind === 'known' && b.r.amount) {
    const usd = accountingUsd(b.r.amount, day.usd);
    if (usd !== undefined) return { valuation: { kind: 'known', usd, price: day.usd, at: day.at, source: day.source } };
  }
  // Rounded half-up as the date's price is (one rounding for the books), not up as a limit's value.
  const today = prices && currency && b.r.amount ? accountingValueAt(prices, currency, b.r.amount) : undefined;
  // Only a past day's record is looked up: today's is at today's price, as it should be.
  const note = day?.kind === 'unknown' ? `today's price: none for ${b.valueDate} (${day.reason})` : undefined;
  return { valuation: today, ...(note ? { note } : {}) };
}

/** The (currency, day) pairs whose price of the day the plain CSV would use. */
export function dayNeeds(list: readonly Booking[]): Array<{ currency: string; day: string }> {
  return list.flatMap((b) => {
    const recorded = b.request?.sendValuation ?? b.request?.valuation;
    const currency = b.r.currency?.name ?? b.r.currencyName;
    return recorded?.kind === 'known' || !b.valueDate || !currency ? [] : [{ currency, day: b.valueDate }];
  });
}

type Cell = (b: Booking, nameOf: NameOf, value: RecordValue) => string;

/**
 * The plain CSV's columns, in order: a name and how a booking fills it. A column is one entry
 * here. Amount columns keep a numeric lead (csv.ts).
 */
export const CSV_TABLE: ReadonlyArray<readonly [name: string, cell: Cell]> = [
  ['createdAt', ({ r }) => r.createdAt ?? ''],
  ['timestamp', ({ r }) => (r.timestamp ? r.timestamp.toISOString() : '')],
  ['valueDate', (b) => b.valueDate],
  ['type', ({ r }) => r.type],
  // The app's one vocabulary (confirmed, failed…), never the service's "successful".
  ['status', (b) => b.status],
  ['amount', ({ r }) => r.amount],
  // Never a blank that reads as "no fee": the fee the service reported ('0' when it charged
  // none), or that it reported none (its transaction history carries no fee: src/transactions/fee.ts).
  ['fee', ({ feeFact }) => (feeFact.kind === 'reported' ? feeFact.fee : FEE_NOT_REPORTED)],
  ['feeCurrency', ({ feeFact }) => (feeFact.kind === 'reported' ? feeFact.currency : '')],
  // Deposits debit nothing; a withdrawal without a reported fee: what left the wallet is not known.
  // A fee from the service's notification says so here (the fee cell stays a number to import).
  [
    'debited',
    ({ r, feeFact }) =>
      r.type === 'deposit'
        ? ''
        : feeFact.kind !== 'reported'
          ? FEE_NOT_REPORTED
          : feeFact.from === 'notification'
            ? `not reported (fee ${FEE_FROM_NOTIFICATION})`
            : (feeFact.debited ?? ''),
  ],
  // USD, exact to the cent; the price's time beside it (recordValue above).
  ['value_usd', (_b, _n, { valuation: v }) => (v?.kind === 'known' ? v.usd : '')],
  [
    'value_usd_at',
    (_b, _n, { valuation: v, note }) => (v?.kind === 'known' ? (note ? `${v.at} (${note})` : v.at) : ''),
  ],
  ['currency', ({ r }) => r.currency?.name ?? r.currencyName],
  ['network', ({ r }) => r.network?.name ?? r.networkName],
  ['client', (b) => b.client],
  ['payee', (b) => b.payee],
  ['fromAddress', ({ r }) => r.fromAddress ?? ''],
  ['toAddress', ({ r }) => r.toAddress ?? ''],
  ['transactionHash', ({ r }) => r.hash ?? ''],
  ['merchantReference', (b) => b.merchantReference],
  ['serviceReference', (b) => b.serviceReference],
  ['requester', (b, nameOf) => (b.requester ? nameOf(b.requester) : '')],
  ['approvers', (b, nameOf) => b.approvers.map(nameOf).join(', ')],
  ['note', (b) => b.note],
  ['explorerUrl', ({ r }) => r.hashUrl ?? ''],
  // A row of a batch payout (src/batches/): the batch it belongs to, so a file's rows can be found together.
  ['batchId', (b) => b.request?.batch?.id ?? ''],
];

export const CSV_COLUMNS = CSV_TABLE.map(([name]) => name);
const CSV_AMOUNTS = ['amount', 'fee', 'debited', 'value_usd'];

export function toCsvRow(
  b: Booking,
  nameOf: NameOf = (id) => id,
  prices?: PriceSnapshot,
  days?: ReadonlyMap<string, DayLookup>,
): string[] {
  const value = recordValue(b, prices, days);
  return CSV_TABLE.map(([, cell]) => cell(b, nameOf, value));
}

export function toCsv(
  list: readonly Booking[],
  nameOf?: NameOf,
  prices?: PriceSnapshot,
  days?: ReadonlyMap<string, DayLookup>,
): string {
  return csvFile([[...CSV_COLUMNS], ...list.map((b) => toCsvRow(b, nameOf, prices, days))], CSV_AMOUNTS);
}

/** What the app knows beside the wallet's list (booking.ts); none: the list alone. */
export interface ExportFacts {
  requests: readonly WithdrawalRequest[];
  /** Whose transaction it is; also how `client=` is read. */
  book?: ClientBook;
  payeeOf?: (network: string, address: string) => string | undefined;
  /** The people named in the file, resolved once (Slack ids to names); absent: their ids. */
  names?: (ids: string[]) => Promise<ReadonlyMap<string, string>>;
  /** The price cache at export time: the plain CSV's value_usd (recordValue). */
  prices?: PriceSnapshot;
  /** Prices of past days (src/prices/day-prices.ts): the plain CSV values a movement at its date's price. */
  days?: DayPrices;
  /** The fees the service's notifications carried (fee.ts notificationFees). */
  notified?: NotifiedFees;
  /**
   * Our requests for these merchant references that `requests` lacks: closed ones that left
   * memory for the store's history (src/store/history.ts), read once the records are known.
   */
  closedRequests?: (references: string[]) => Promise<WithdrawalRequest[]>;
}

/** `facts.requests`, with the closed requests the records name that it lacks (ExportFacts.closedRequests). */
async function requestsFor(records: readonly TransactionRecord[], facts: ExportFacts): Promise<WithdrawalRequest[]> {
  if (!facts.closedRequests) return [...facts.requests];
  const known = new Set(facts.requests.map((w) => w.merchantReference));
  const missing = new Set<string>();
  for (const r of records) if (r.type !== 'deposit' && r.reference && !known.has(r.reference)) missing.add(r.reference);
  return missing.size ? [...facts.requests, ...(await facts.closedRequests([...missing]))] : [...facts.requests];
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
  /** Accounting formats: the lines written (a withdrawal with a fee is two for Xero and QuickBooks). */
  lines: number;
  /** Accounting formats: the currencies in the file. */
  currencies: string[];
  /** The service's own count of matching records. */
  totalRecords: number;
  /** With client=: how many of the client's known addresses were read (0: the app knows none). */
  clientAddresses?: number;
  /** Set when not every record could be read: "incomplete: 1,200 of 1,450 records (…)". */
  incomplete?: string;
}

/**
 * Read every page of the filter (src/wallet/pager.ts: by the service's own totals; with
 * `client=`, through the client's known addresses: client-read.ts); the page/pageSize of the
 * query are ignored. A read that could not finish still gives its file, with `incomplete`
 * saying how much is missing. `csv` (the default) is our own columns; the others are
 * accounting tools' imports. Each record is joined with what the app knows of it (`facts`).
 */
export async function exportTransactions(
  wallet: PagedWallet,
  query: TxQuery,
  onProgress: (p: ExportProgress) => void | Promise<void> = () => undefined,
  format: ExportFormat = 'csv',
  facts: ExportFacts = { requests: [] },
): Promise<ExportResult> {
  const { page: _page, pageSize: _size, client, ...filters } = query;
  const onPage = async (p: ExportProgress) => {
    if (p.page === 1 && p.totalRecords > EXPORT_MAX_RECORDS) throw new ExportTooLargeError(p.totalRecords);
    await onProgress(p);
  };
  const book = facts.book ?? clientBook({ find: () => [], all: () => [] }, facts.requests);
  const read: PagedRead & { addresses?: number } = client
    ? await readClientTransactions(wallet, book, { ...filters, client }, { maxRecords: EXPORT_MAX_RECORDS, onPage })
    : await readAllTransactions(wallet, filters, { onPage });
  const { records } = read;
  book.learn(records);
  const requests = await requestsFor(records, facts);
  // A closed request's client, as the book tells ours by reference (it was built before they were read).
  const closedClient = new Map(requests.map((w) => [w.merchantReference, w.clientEmail]));
  const list = bookings(records, {
    requests,
    clientOf: (r) =>
      book.clientOf(r) ?? (r.type !== 'deposit' && r.reference ? closedClient.get(r.reference) : undefined),
    ...(facts.payeeOf ? { payeeOf: facts.payeeOf } : {}),
    ...(facts.notified ? { notified: facts.notified } : {}),
  });
  const names = facts.names ? await facts.names(peopleIn(list)) : new Map<string, string>();
  const nameOf: NameOf = (id) => names.get(id) ?? id;
  const note = incompleteNote(read);
  const about = {
    totalRecords: read.totalRecords,
    ...(note ? { incomplete: note } : {}),
    ...(read.addresses !== undefined ? { clientAddresses: read.addresses } : {}),
  };
  if (format === 'csv') {
    const days = facts.days ? await facts.days.lookup(dayNeeds(list)) : undefined;
    return {
      csv: toCsv(list, nameOf, facts.prices, days),
      records: records.length,
      exported: records.length,
      lines: records.length,
      left: 0,
      noHash: 0,
      currencies: [],
      ...about,
    };
  }
  const out = accountingRows(format, list, nameOf);
  return {
    csv: csvFile(out.rows, ACCOUNTING_FORMATS[format].amounts),
    records: records.length,
    exported: out.exported,
    lines: out.lines,
    left: out.left,
    noHash: out.noHash,
    currencies: out.currencies,
    ...about,
  };
}
