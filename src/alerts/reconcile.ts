/**
 * Missed webhooks: the transaction list is the service's record of what happened. Recent
 * deposits in it that no webhook told us about become alerts marked `reconciliation`; a
 * deposit we know as PENDING but the list shows settled moves forward. Same key space as
 * the webhooks, so a transaction is never alerted twice whichever way it arrives first.
 */
import type { DepositScreening } from './sanctions.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PriceSnapshot } from '../prices/types.js';
import type { Store } from '../store/index.js';
import { transactionPages, type PagedWallet } from '../wallet/pager.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import { ingestEvent, type IngestResult } from './ingest.js';
import { walletLink } from './links.js';
import type { WebhookEvent } from './parse.js';
import { HISTORY_MESSAGE_KEY, HISTORY_RENDERER, WATERMARK, WATERMARK_SLACK_MS, type Watermark } from './watermark.js';
import type { PolicySource } from '../policy/source.js';

export interface ReconcileDeps {
  /** Deposits from sanctioned senders are flagged (sanctions.ts). */
  screening?: DepositScreening;
  store: Store;
  outbox: Pick<Outbox, 'enqueue' | 'kick' | 'reprioritize'>;
  wallet: PagedWallet;
  policy: PolicySource;
  /** The price cache (src/prices), for `@here` by value. */
  prices?: () => PriceSnapshot;
  logger: Logger;
  now?: () => number;
  /** The watermark (recorded on the first run); what happened before it is history. */
  watermark: () => Promise<Watermark>;
}

export interface ReconcileOptions {
  lookbackMs?: number;
  pages?: number;
  pageSize?: number;
}

export interface ReconcileReport {
  seen: number;
  created: string[];
  advanced: string[];
  /** Transactions in the list from before the watermark: history, never alerted one by one. */
  history: number;
}

export function eventFromRecord(r: TransactionRecord): WebhookEvent | undefined {
  if (!r.hash || r.type !== 'deposit' || r.status === 'unknown') return undefined;
  return {
    kind: 'deposit',
    typeName: 'DEPOSIT',
    statusName: r.status === 'successful' ? 'CONFIRMED' : 'FAILED',
    hash: r.hash,
    amount: r.amount,
    ...(r.currency ? { currency: r.currency.name } : r.currencyName ? { currency: r.currencyName } : {}),
    currencyKnown: !!r.currency,
    ...(r.network ? { network: r.network.name } : r.networkName ? { network: r.networkName } : {}),
    networkKnown: !!r.network,
    ...(r.toAddress ? { receiveAddress: r.toAddress } : {}),
    ...(r.fromAddress ? { depositAddress: r.fromAddress } : {}),
    ...(r.reference ? { reference: r.reference } : {}),
    extra: {},
    body: { source: 'transaction-list', hash: r.hash, status: r.status },
  };
}

export async function reconcileDeposits(deps: ReconcileDeps, o: ReconcileOptions = {}): Promise<ReconcileReport> {
  const now = deps.now ?? Date.now;
  const lookbackMs = o.lookbackMs ?? 24 * 3_600_000;
  const pages = o.pages ?? 2;
  const pageSize = o.pageSize;
  const wm = await deps.watermark();
  const to = new Date(now());
  const from = new Date(to.getTime() - lookbackMs);
  if (!wm.historyReported) await reportHistory(deps, wm, lookbackMs);

  // Paged by the service's own totals (src/wallet/pager.ts), at most `pages` pages a run.
  const records: TransactionRecord[] = [];
  let read = 0;
  for await (const res of transactionPages(deps.wallet, { type: 'deposit', from, to }, pageSize ? { pageSize } : {})) {
    records.push(...res.fresh);
    if (++read >= pages) {
      if (records.length < res.totalRecords)
        deps.logger.info(
          { read: records.length, total: res.totalRecords },
          'reconciliation read its page limit; the rest is left to the webhooks and the next run',
        );
      break;
    }
  }
  // Oldest first, so alerts (and their Slack messages) come out in the order things happened.
  records.sort((a, b) => (a.timestamp?.getTime() ?? 0) - (b.timestamp?.getTime() ?? 0));
  const isHistory = (r: TransactionRecord) => !!r.timestamp && r.timestamp.getTime() < wm.at - WATERMARK_SLACK_MS;
  const history = records.filter(isHistory).length;

  const results = await deps.store.commit((tx) => {
    const out: IngestResult[] = [];
    for (const r of records) {
      if (isHistory(r)) continue;
      const event = eventFromRecord(r);
      if (!event) continue;
      const hashUrl = walletLink(r.hashUrl);
      const verification = {
        state: 'confirmed' as const,
        attempts: 0,
        checkedAt: now(),
        ...(hashUrl ? { hashUrl } : {}),
        listStatus: r.status,
      };
      out.push(
        ingestEvent(
          tx,
          { event, source: 'reconciliation', verification },
          {
            outbox: deps.outbox,
            policy: deps.policy.current(),
            now: now(),
            ...(deps.prices ? { prices: deps.prices() } : {}),
            ...(deps.screening ? { screening: deps.screening } : {}),
          },
        ),
      );
    }
    return out;
  });
  const report: ReconcileReport = {
    seen: records.length,
    created: results.filter((r) => r.outcome === 'created').map((r) => r.alertId),
    advanced: results.filter((r) => r.outcome === 'advanced').map((r) => r.alertId),
    history,
  };
  if (report.created.length || report.advanced.length) {
    deps.outbox.kick();
    deps.logger.warn(
      { created: report.created.length, advanced: report.advanced.length },
      'reconciliation found deposits no webhook reported',
    );
  }
  return report;
}

/**
 * Once per watermark: counts the deposits of the day before it and, if there were any, says
 * so in one line in the alerts channel. Counting is one small request (the list's total); a
 * failure leaves the watermark unreported and the next run tries again.
 */
async function reportHistory(deps: ReconcileDeps, wm: Watermark, windowMs: number): Promise<void> {
  const policy = deps.policy.current();
  const page = await deps.wallet.listTransactions({
    type: 'deposit',
    from: new Date(wm.at - windowMs),
    to: new Date(wm.at - WATERMARK_SLACK_MS),
    page: 1,
    pageSize: 1,
  });
  const count = page.totalRecords;
  await deps.store.commit((tx) => {
    const cur = tx.get(WATERMARK.collection, WATERMARK.key);
    if (!cur || cur.historyReported) return;
    // Replayed webhooks older than the window were counted while the report was pending.
    const total = count + (cur.replayedBefore ?? 0);
    tx.put(WATERMARK.collection, WATERMARK.key, {
      ...cur,
      historyReported: true,
      historyCount: total,
      historyWindowMs: windowMs,
    });
    if (total > 0) {
      deps.outbox.enqueue(tx, {
        op: 'post',
        renderer: HISTORY_RENDERER,
        ref: WATERMARK.key,
        key: HISTORY_MESSAGE_KEY,
        channel: policy.channels.alerts,
        priority: 'reconciliation',
      });
    }
  });
  if (count > 0) deps.logger.info({ count }, 'history before the watermark: one summary line, no alerts');
}
