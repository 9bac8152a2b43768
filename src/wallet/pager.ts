/**
 * The one way to read every page of the transaction list (docs/wallet-service-choices.md,
 * "Paging"). `Page`/`PageSize` are asked with a page size known to be accepted (50 unless
 * WALLET_PAGE_SIZE says otherwise), and the read is driven by what the service says, never by
 * what we asked:
 *
 * - the page size is the one the service says it used (a service that clamps 100 to 50 is
 *   then asked for 50, and its page numbers keep meaning what it means by them);
 * - the read goes on while the service's `totalPages` or `totalRecords` says more is to come,
 *   and stops when both say it is done, or when a page comes back empty (the records ran out);
 * - a record seen on an earlier page (the list moved under us: newest first) is kept once; a
 *   page of nothing but records already seen means the service is not paging, and stops the read.
 *
 * A read that cannot finish (a page that fails after its retries, a record limit, a service whose
 * totals contradict what it sent) is returned as incomplete, with what was read and the service's
 * total, so that whatever is made from it can say "incomplete: 1,200 of 1,450 records" instead
 * of looking complete. Only a failure of the first page is thrown: then nothing was read.
 */
import { WalletError } from './errors.js';
import { stringifyJson } from './json.js';
import type { TransactionFilter, WalletClient } from './client/types.js';
import type { TransactionPage, TransactionRecord } from './schemas.js';

/** A page size the spec documents as accepted (its Limits: "A PageSize of 50 is accepted"). */
export const DEFAULT_WALLET_PAGE_SIZE = 50;
/** A guard against a service that never says it is done. */
const MAX_PAGES = 10_000;

/** Anything with the transaction list; its configured page size when it has one. */
export type PagedWallet = Pick<WalletClient, 'listTransactions'> & { readonly pageSize?: number };

export interface PageProgress {
  /** Pages read so far (this one included). */
  page: number;
  /** The service's page count, as it last said. */
  totalPages: number;
  /** Distinct records read so far. */
  records: number;
  /** The service's record count, as it last said. */
  totalRecords: number;
}

export interface ReadAllOptions {
  /** Default: the wallet's configured page size, else 50. */
  pageSize?: number;
  /** Stop (incomplete) once this many records are read and more remain. */
  maxRecords?: number;
  /** After each page; what it throws ends the read and is thrown (e.g. "too large to export"). */
  onPage?: (p: PageProgress) => void | Promise<void>;
}

export type StopReason = 'error' | 'limit' | 'inconsistent';

export interface PagedRead {
  /** Distinct records, in the service's order. */
  records: TransactionRecord[];
  /** True only when the service's own totals say every record was read. */
  complete: boolean;
  /** The service's record count, as it last said. */
  totalRecords: number;
  pagesRead: number;
  /** The page size the service said it used. */
  pageSize: number;
  /** Why the read is incomplete. */
  stoppedBy?: StopReason;
  /** The page that could not be read and why (already free of secrets: a WalletError's message). */
  failedPage?: number;
  error?: string;
}

/** The wallet's configured page size, else the default. */
export function pageSizeOf(wallet: PagedWallet, requested?: number): number {
  const n = requested ?? wallet.pageSize ?? DEFAULT_WALLET_PAGE_SIZE;
  return Number.isInteger(n) && n >= 1 ? n : DEFAULT_WALLET_PAGE_SIZE;
}

const identity = (r: TransactionRecord) => stringifyJson(r.raw);

/**
 * Every page of the filter, one at a time (for a search that may stop at the first hit).
 * Errors are thrown as they come; `page`/`pageSize` of the filter are ignored.
 */
export async function* transactionPages(
  wallet: PagedWallet,
  filter: Omit<TransactionFilter, 'page' | 'pageSize'> = {},
  o: { pageSize?: number } = {},
): AsyncGenerator<TransactionPage & { fresh: TransactionRecord[] }, PagedRead> {
  const { page: _p, pageSize: _s, ...rest } = filter as TransactionFilter;
  let size = pageSizeOf(wallet, o.pageSize);
  const seen = new Set<string>();
  const records: TransactionRecord[] = [];
  let totalRecords = 0;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const res = await wallet.listTransactions({ ...rest, page, pageSize: size });
    const fresh = res.records.filter((r) => {
      const key = identity(r);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    records.push(...fresh);
    totalRecords = res.totalRecords;
    // From now on, ask for the size the service says it used.
    if (Number.isInteger(res.pageSize) && res.pageSize >= 1) size = res.pageSize;
    yield { ...res, fresh };
    const base = { records, totalRecords, pagesRead: page, pageSize: size };
    if (res.records.length === 0) {
      // The records ran out: complete if the service's own count was reached.
      return records.length >= totalRecords ? { ...base, complete: true } : incomplete(base, 'inconsistent');
    }
    if (fresh.length === 0) return incomplete(base, 'inconsistent');
    const lastPage = Math.max(page, res.currentPage) >= res.totalPages;
    if (lastPage && records.length >= totalRecords) return { ...base, complete: true };
    // The totals disagree (pages say done, the count says more, or the reverse): read on until
    // the records run out; a short last page is the service saying it has no more.
    if (lastPage && res.records.length < size) return incomplete(base, 'inconsistent');
  }
  return incomplete({ records, totalRecords, pagesRead: MAX_PAGES, pageSize: size }, 'limit');
}

function incomplete(base: Omit<PagedRead, 'complete'>, stoppedBy: StopReason): PagedRead {
  return { ...base, complete: false, stoppedBy };
}

/**
 * Every record of the filter, or as many as could be read, saying which. A failure of the first
 * page is thrown (nothing was read); a later one ends the read as incomplete.
 */
export async function readAllTransactions(
  wallet: PagedWallet,
  filter: Omit<TransactionFilter, 'page' | 'pageSize'> = {},
  o: ReadAllOptions = {},
): Promise<PagedRead> {
  const pages = transactionPages(wallet, filter, o.pageSize !== undefined ? { pageSize: o.pageSize } : {});
  let pagesRead = 0;
  let last: { totalRecords: number; totalPages: number; pageSize: number } | undefined;
  const records: TransactionRecord[] = [];
  for (;;) {
    let step: IteratorResult<TransactionPage & { fresh: TransactionRecord[] }, PagedRead>;
    try {
      step = await pages.next();
    } catch (err) {
      if (!last) throw err;
      return {
        records,
        complete: false,
        totalRecords: last.totalRecords,
        pagesRead,
        pageSize: last.pageSize,
        stoppedBy: 'error',
        failedPage: pagesRead + 1,
        error: err instanceof WalletError ? err.message : 'the wallet client failed',
      };
    }
    if (step.done) return step.value;
    pagesRead++;
    last = step.value;
    records.push(...step.value.fresh);
    await o.onPage?.({
      page: pagesRead,
      totalPages: step.value.totalPages,
      records: records.length,
      totalRecords: step.value.totalRecords,
    });
    if (o.maxRecords !== undefined && records.length >= o.maxRecords && records.length < step.value.totalRecords) {
      await pages.return(undefined as never);
      return {
        records,
        complete: false,
        totalRecords: step.value.totalRecords,
        pagesRead,
        pageSize: step.value.pageSize,
        stoppedBy: 'limit',
      };
    }
  }
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * "incomplete: 1,200 of 1,450 records (page 25 could not be read: …)", or undefined for a
 * complete read. For messages, file titles and comments alike.
 */
export function incompleteNote(read: PagedRead): string | undefined {
  if (read.complete) return undefined;
  const of = read.totalRecords > read.records.length ? ` of ${count(read.totalRecords)}` : '';
  const why =
    read.stoppedBy === 'error'
      ? `page ${read.failedPage} could not be read${read.error ? `: ${read.error}` : ''}`
      : read.stoppedBy === 'limit'
        ? 'the read stops at this many'
        : 'the wallet service stopped sending records before its own total';
  return `incomplete: ${count(read.records.length)}${of} records (${why})`;
}
