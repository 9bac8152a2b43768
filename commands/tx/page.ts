import { readClientTransactions } from '../../src/transactions/client-read.js';
import { ALERT_COLLECTIONS } from '../../src/alerts/types.js';
import { feeOf, notificationFees, requestsByReference } from '../../src/transactions/fee.js';
import type { RawFilters, TxQuery } from '../../src/transactions/filters.js';
import type { TransactionPage, TransactionRecord } from '../../src/wallet/schemas.js';
import type { CommandDeps } from '../deps.js';
import { txFacts } from './facts.js';
import { renderPage } from './render.js';

/** A client's records read whole are at most this many (a page of them is shown). */
const CLIENT_MAX_RECORDS = 5_000;

/** A client's page: their records read through their known addresses, paged here. */
async function clientPage(deps: CommandDeps, q: TxQuery & { client: string }) {
  const { page: p, pageSize, ...filters } = q;
  const read = await readClientTransactions(deps.wallet, txFacts(deps).book, filters, {
    maxRecords: CLIENT_MAX_RECORDS,
  });
  const totalPages = Math.ceil(read.records.length / pageSize);
  const current = Math.min(p, Math.max(totalPages, 1));
  const page: TransactionPage = {
    records: read.records.slice((current - 1) * pageSize, current * pageSize),
    currentPage: current,
    pageSize,
    totalPages,
    totalRecords: read.records.length,
  };
  return { page, addresses: read.addresses, complete: read.complete };
}

/** One page from the wallet service, rendered; a page past the end shows the last one and says so. */
export async function showPage(deps: CommandDeps, raw: RawFilters, q: TxQuery) {
  const requestOf = requestsByReference(deps.withdrawals.list());
  const notified = notificationFees(deps.store.all(ALERT_COLLECTIONS.alerts));
  const facts = { prices: deps.prices.snapshot(), feeOf: (r: TransactionRecord) => feeOf(r, requestOf(r), notified) };
  if (q.client) {
    const { page, addresses, complete } = await clientPage(deps, { ...q, client: q.client });
    return renderPage(raw, q, page, { asked: q.page, client: { addresses, complete }, ...facts });
  }
  const { page: p, pageSize, client: _client, ...filters } = q;
  let page = await deps.wallet.listTransactions({ ...filters, page: p, pageSize });
  if (page.records.length === 0 && page.totalPages >= 1 && p > page.totalPages)
    page = await deps.wallet.listTransactions({ ...filters, page: page.totalPages, pageSize });
  return renderPage(raw, q, page, { asked: p, ...facts });
}
