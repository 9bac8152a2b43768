/**
 * `client=`: the wallet's transaction list cannot be filtered by client, only by address. A
 * client's transactions are read through every address the app knows as theirs (clients.ts),
 * each with the person's other filters, then merged (a transfer between two of the client's
 * own addresses appears once) and ordered newest first, as the service orders its list.
 *
 * Before that, the wallet each of the client's own withdrawals left from is looked up by its
 * hash (a few at most): a client who was only ever paid out from is found too.
 */
import { stringifyJson } from '../wallet/json.js';
import { readAllTransactions, type PagedRead, type PagedWallet, type PageProgress } from '../wallet/pager.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import type { ClientBook } from './clients.js';
import type { TxQuery } from './filters.js';
import { whenOf } from './values.js';

/** Hash look-ups made to find the wallets of a client's withdrawals. */
const MAX_HASH_LOOKUPS = 5;
/** Addresses read for one client: far more than a client holds (one per asset and network). */
export const MAX_CLIENT_ADDRESSES = 25;

export interface ClientRead extends PagedRead {
  /** How many of the client's addresses were read. */
  addresses: number;
}

async function learnWallets(wallet: PagedWallet, book: ClientBook, client: string): Promise<void> {
  for (const hash of book.hashesOf(client).slice(0, MAX_HASH_LOOKUPS)) {
    try {
      const page = await wallet.listTransactions({ hash, page: 1, pageSize: 10 });
      book.learn(page.records);
    } catch {
      // A look-up that failed only means fewer known addresses; the read says how many it used.
    }
  }
}

/** Every record of the client's known addresses matching the other filters, newest first. */
export async function readClientTransactions(
  wallet: PagedWallet,
  book: ClientBook,
  query: Omit<TxQuery, 'page' | 'pageSize'> & { client: string },
  o: { maxRecords?: number; onPage?: (p: PageProgress) => void | Promise<void> } = {},
): Promise<ClientRead> {
  const { client, ...filters } = query;
  if (!book.addressesOf(client).length || book.hashesOf(client).length) await learnWallets(wallet, book, client);
  const addresses = book.addressesOf(client).slice(0, MAX_CLIENT_ADDRESSES);
  // An address= given too narrows to that one address, if it is the client's.
  const wanted = filters.address ? addresses.filter((a) => a === filters.address!.trim().toLowerCase()) : addresses;
  const seen = new Set<string>();
  const records: TransactionRecord[] = [];
  let complete = true;
  let totalRecords = 0;
  let pagesRead = 0;
  let pageSize = 0;
  let failure: Pick<PagedRead, 'stoppedBy' | 'failedPage' | 'error'> = {};
  for (const address of wanted) {
    const read = await readAllTransactions(
      wallet,
      { ...filters, address },
      {
        ...(o.maxRecords !== undefined ? { maxRecords: o.maxRecords } : {}),
        onPage: (p) => o.onPage?.({ ...p, records: records.length + p.records }),
      },
    );
    pagesRead += read.pagesRead;
    pageSize = read.pageSize;
    for (const r of read.records) {
      const key = stringifyJson(r.raw);
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(r);
      totalRecords++;
    }
    if (!read.complete) {
      complete = false;
      totalRecords += Math.max(0, read.totalRecords - read.records.length);
      failure = { stoppedBy: read.stoppedBy, failedPage: read.failedPage, error: read.error };
    }
  }
  records.sort((a, b) => (whenOf(b)?.getTime() ?? 0) - (whenOf(a)?.getTime() ?? 0));
  return {
    records,
    complete,
    totalRecords,
    pagesRead,
    pageSize,
    addresses: wanted.length,
    ...(complete ? {} : failure),
  };
}
