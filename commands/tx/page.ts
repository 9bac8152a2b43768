import type { RawFilters, TxQuery } from '../../src/transactions/filters.js';
import type { CommandDeps } from '../deps.js';
import { renderPage } from './render.js';

/** One page from the wallet service, rendered. */
export async function showPage(deps: CommandDeps, raw: RawFilters, q: TxQuery) {
  const { page: p, pageSize, ...filters } = q;
  const page = await deps.wallet.listTransactions({ ...filters, page: p, pageSize });
  return renderPage(raw, q, page);
}
