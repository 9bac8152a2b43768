/**
 * `GET /api/v2/analytics/transaction-record`: every filter of the spec, combinable (AND),
 * most recent first, Page/PageSize (any case) with defaults 1/30. A PageSize above the
 * sandbox's maximum (default 50, the size the spec documents as accepted; configurable) is
 * clamped to it, and the answer's `pageSize`/`totalPages` say the size used, so a client that
 * assumes it got what it asked for misses records. Timestamps on the wire are in the
 * configured unit (ms by default).
 */
import { CURRENCIES, NETWORKS, TX_STATUSES, TX_TYPES, lookup } from '../wallet/enums.js';
import { jsonDecimal } from '../wallet/json.js';
import { v2Fail, v2Ok, type Reply } from './envelopes.js';
import { queryMap } from './body.js';
import { requireBearer, type AuthDeps } from './auth.js';
import type { SandboxRequest } from './http.js';
import { addressKey, type TransactionRecord } from './state.js';
import { Money, formatMoney } from './money.js';

export const DEFAULT_PAGE_SIZE = 30;
/** Default cap on PageSize: larger requests are answered with pages of this size. */
export const MAX_PAGE_SIZE = 50;

export type TimestampUnit = 'ms' | 's';

export const toUnit = (ms: number, unit: TimestampUnit) => (unit === 's' ? Math.floor(ms / 1000) : ms);

/** The record as the service sends it: only the spec's fields, amount as an exact JSON number. */
export function wireRecord(tx: TransactionRecord, unit: TimestampUnit): Record<string, unknown> {
  return {
    transactionStatus: tx.transactionStatus,
    transactionType: tx.transactionType,
    transactionHash: tx.transactionHash,
    transactionHashUrl: tx.transactionHashUrl,
    toAddress: tx.toAddress,
    fromAddress: tx.fromAddress,
    toAddressUrl: tx.toAddressUrl,
    fromAddressUrl: tx.fromAddressUrl,
    amount: jsonDecimal(formatMoney(new Money(tx.amount))),
    network: tx.network,
    currency: tx.currency,
    transactionTimeStamp: toUnit(tx.transactionTimeStamp, unit),
    reference: tx.reference,
    createdAt: tx.createdAt,
  };
}

type Filter = (tx: TransactionRecord) => boolean;

function positiveInt(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined || text.trim() === '') return fallback;
  return /^\d+$/.test(text.trim()) && Number(text) >= 1 ? Number(text) : undefined;
}

export function listTransactions(
  deps: AuthDeps & { unit: TimestampUnit; transactions: () => readonly TransactionRecord[]; maxPageSize?: number },
  req: SandboxRequest,
): Reply {
  const auth = requireBearer(deps, req, { allowApiKey: true });
  if (!auth.ok) return auth.reply;
  const q = queryMap(req.query);
  const filters: Filter[] = [(tx) => tx.merchantEmail.toLowerCase() === auth.merchant.email.toLowerCase()];
  const given = (name: string) => {
    const v = q.get(name.toLowerCase());
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  const currency = given('Currency');
  if (currency !== undefined) {
    const c = lookup(CURRENCIES, currency);
    if (!c) return v2Fail(400, `Invalid Currency: ${currency}`);
    filters.push((tx) => lookup(CURRENCIES, tx.currency)?.code === c.code);
  }
  const network = given('NetworkChain');
  if (network !== undefined) {
    const n = lookup(NETWORKS, network);
    if (!n) return v2Fail(400, `Invalid NetworkChain: ${network}`);
    filters.push((tx) => lookup(NETWORKS, tx.network)?.code === n.code);
  }
  const status = given('Status');
  if (status !== undefined) {
    const s = lookup(TX_STATUSES, status);
    if (!s) return v2Fail(400, `Invalid Status: ${status} (1 = Successful, 2 = Failed)`);
    filters.push((tx) => tx.transactionStatus === s.name);
  }
  const type = given('TransactionType');
  if (type !== undefined) {
    const t = lookup(TX_TYPES, type);
    if (!t) return v2Fail(400, `Invalid TransactionType: ${type} (1 = Deposit, 2 = Withdrawal)`);
    filters.push((tx) => tx.transactionType === t.name);
  }
  const hash = given('TransactionHash');
  if (hash !== undefined) filters.push((tx) => tx.transactionHash.toLowerCase() === hash.toLowerCase());
  const wallet = given('WalletAddress');
  if (wallet !== undefined) {
    const key = addressKey(wallet);
    filters.push((tx) => addressKey(tx.toAddress) === key || addressKey(tx.fromAddress) === key);
  }
  for (const [name, keep] of [
    ['StartTimeStamp', (ts: number, bound: number) => ts >= bound],
    ['EndTimeStamp', (ts: number, bound: number) => ts <= bound],
  ] as const) {
    const raw = given(name);
    if (raw === undefined) continue;
    const bound = Number(raw);
    if (!Number.isFinite(bound)) return v2Fail(400, `Invalid ${name}: ${raw}`);
    filters.push((tx) => keep(toUnit(tx.transactionTimeStamp, deps.unit), bound));
  }

  const page = positiveInt(q.get('page'), 1);
  if (page === undefined) return v2Fail(400, `Invalid Page: ${q.get('page')} (a whole number from 1)`);
  const asked = positiveInt(q.get('pagesize'), DEFAULT_PAGE_SIZE);
  if (asked === undefined) return v2Fail(400, `Invalid PageSize: ${q.get('pagesize')} (a whole number from 1)`);
  const pageSize = Math.min(asked, deps.maxPageSize ?? MAX_PAGE_SIZE);

  const all = deps.transactions();
  const matching = all
    .map((tx, index) => ({ tx, index }))
    .filter(({ tx }) => filters.every((f) => f(tx)))
    // Most recent first; among equal timestamps the later-recorded one first.
    .sort((a, b) => b.tx.transactionTimeStamp - a.tx.transactionTimeStamp || b.index - a.index)
    .map(({ tx }) => tx);
  const totalRecords = matching.length;
  const records = matching.slice((page - 1) * pageSize, page * pageSize).map((tx) => wireRecord(tx, deps.unit));
  return v2Ok({ records, pageSize, currentPage: page, totalPages: Math.ceil(totalRecords / pageSize), totalRecords });
}
