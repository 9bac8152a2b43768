/** The transaction list (v2, with the session token; a read, so retried). */
import { fromWireTimestamp, PATHS, toWireTimestamp } from '../assumptions.js';
import { inputError, rejection, shapeError } from '../failures.js';
import {
  toTransactionRecord,
  transactionFilterSchema,
  transactionPageResponseSchema,
  type TransactionPage,
} from '../schemas.js';
import { is2xx, refusal, resolveCurrency, resolveNetwork, type WalletCalls } from './calls.js';
import type { TransactionFilter } from './types.js';

export function listTransactions(c: WalletCalls, f: TransactionFilter): Promise<TransactionPage> {
  return c.guard('listTransactions', async () => {
    const input = transactionFilterSchema.safeParse(f);
    if (!input.success) throw inputError('listTransactions', input.error);
    const q = input.data;
    const unit = c.assumptions.timestampUnit;
    const params: Record<string, string | number> = {};
    if (f.currency !== undefined) params.Currency = resolveCurrency('listTransactions', f.currency).code;
    if (f.network !== undefined) params.NetworkChain = resolveNetwork('listTransactions', f.network).code;
    if (q.status) params.Status = q.status === 'successful' ? 1 : 2;
    if (q.hash) params.TransactionHash = q.hash;
    if (q.address) params.WalletAddress = q.address;
    if (q.type) params.TransactionType = q.type === 'deposit' ? 1 : 2;
    if (q.page !== undefined) params.Page = q.page;
    if (q.pageSize !== undefined) params.PageSize = q.pageSize;
    if (q.from) params.StartTimeStamp = toWireTimestamp(q.from, unit);
    if (q.to) params.EndTimeStamp = toWireTimestamp(q.to, unit);
    const res = await c.withSession(
      'listTransactions',
      (authorization) => ({
        method: 'GET',
        path: PATHS.transactions,
        params,
        headers: { Accept: 'application/json', Authorization: authorization },
      }),
      c.deadlineFromNow(),
    );
    if (!is2xx(res.status)) refusal('listTransactions', res, 'none');
    const parsed = transactionPageResponseSchema.safeParse(res.body);
    if (!parsed.success) throw shapeError('listTransactions', res, parsed.error);
    if (parsed.data.isSuccessful === false) throw rejection('listTransactions', res);
    const page = parsed.data.data;
    const rawRecords = ((res.body as { data: { records: unknown[] } }).data.records ?? []) as Record<string, unknown>[];
    return {
      records: page.records.map((r, idx) =>
        toTransactionRecord(r, rawRecords[idx] ?? {}, (n) => fromWireTimestamp(n, unit)),
      ),
      currentPage: page.currentPage,
      pageSize: page.pageSize,
      totalPages: page.totalPages,
      totalRecords: page.totalRecords,
    };
  });
}
