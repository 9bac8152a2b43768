/**
 * A day's treasury in numbers: deposits and withdrawals per currency from the service's
 * own transaction list (summed as decimals), for /treasury digest.
 */
import type { WalletClient } from '../wallet/client.js';
import { Dec } from '../withdrawals/money.js';

export interface DigestLine {
  currency: string;
  deposits: { count: number; total: string };
  withdrawals: { count: number; total: string };
  failed: number;
}

const PAGE_SIZE = 100;
const MAX_PAGES = 20;

export async function dailyDigest(
  wallet: Pick<WalletClient, 'listTransactions'>,
  now: number,
): Promise<{ lines: DigestLine[]; records: number; truncated: boolean }> {
  const from = new Date(now - 86_400_000);
  const to = new Date(now);
  const by = new Map<string, { dep: Dec; depN: number; wd: Dec; wdN: number; failed: number }>();
  let records = 0;
  let page = 1;
  let totalPages = 1;
  do {
    const res = await wallet.listTransactions({ from, to, page, pageSize: PAGE_SIZE });
    totalPages = res.totalPages;
    for (const r of res.records) {
      records++;
      const cur = r.currency?.name ?? (r.currencyName || '?');
      const acc = by.get(cur) ?? { dep: new Dec(0), depN: 0, wd: new Dec(0), wdN: 0, failed: 0 };
      if (r.status === 'failed') acc.failed++;
      else if (r.type === 'deposit') {
        acc.dep = acc.dep.plus(r.amount);
        acc.depN++;
      } else if (r.type === 'withdrawal') {
        acc.wd = acc.wd.plus(r.amount);
        acc.wdN++;
      }
      by.set(cur, acc);
    }
    if (res.records.length < PAGE_SIZE) break;
    page++;
  } while (page <= Math.min(totalPages, MAX_PAGES));
  const lines = [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, a]) => ({
      currency,
      deposits: { count: a.depN, total: a.dep.toFixed() },
      withdrawals: { count: a.wdN, total: a.wd.toFixed() },
      failed: a.failed,
    }));
  return { lines, records, truncated: totalPages > MAX_PAGES };
}
