/**
 * The digest's thin shell around the pure builder: it reads the transactions, the withdrawal
 * requests and the balances, keeps the daily balance snapshot, posts the scheduled digest
 * through the outbox (keyed by its slot's day in the schedule's zone: one per day, whatever restarts happen) and
 * uploads its chart once.
 *
 * The chart upload is not an outbox post (the outbox sends messages, not files), so it keeps
 * its own durable state on the digest's record: `pending` → `uploading` (written before the
 * upload goes out) → `sent`. An `uploading` found later (a crash, a lost answer) is first
 * looked up in the channel's history: a file with the chart's title means it landed.
 */
import type { WebClient } from '@slack/web-api';
import { ALERT_COLLECTIONS } from '../alerts/types.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { Store } from '../store/index.js';
import { incompleteNote, readAllTransactions, type PagedWallet } from '../wallet/pager.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import type { WithdrawalService } from '../withdrawals/index.js';
import { dayIn, type SlotTime } from '../schedule/slots.js';
import { allowlistPayee } from '../transactions/booking.js';
import { buildDigest, utcDayOf } from './build.js';
import { BATCHES } from '../batches/service.js';
import { renderChart } from './chart.js';
import { chartAltText } from './message.js';
import {
  type BalanceLine,
  type BalanceSnapshot,
  CHART_DAYS,
  DIGEST_COLLECTIONS,
  type Digest,
  type ScheduledDigest,
} from './types.js';
import type { PolicySource } from '../policy/source.js';
import type { PriceSnapshot } from '../prices/types.js';

export const DIGEST_RENDERER = 'digest.daily';
const DAY = 86_400_000;
/** 5,000 transactions: far more than a month of a treasury's movements; beyond, the digest says so. */
const MAX_RECORDS = 5_000;
/** Upload attempts of one chart before it is given up (logged; the text was posted). */
const MAX_CHART_ATTEMPTS = 3;
/** How long the chart upload waits for the digest's text to be posted first, so it reads below it. */
const WAIT_FOR_TEXT_MS = 15_000;

export type DigestSlack = Pick<WebClient, 'files' | 'conversations'>;

/** What the digest reads and writes. `policy` is read at the moment of use (it can change at run time). */
export interface DigestOptions {
  store: Store;
  wallet: PagedWallet;
  withdrawals: Pick<WithdrawalService, 'list'>;
  policy: PolicySource;
  outbox: Pick<Outbox, 'enqueue' | 'registerRenderer' | 'message'>;
  logger: Logger;
  now: () => number;
  /** The origin accounts' balances; absent or failing: the digest says they are unavailable. */
  balances?: () => Promise<BalanceLine[]>;
  /** For the chart upload of the scheduled digest (the outbox's client). */
  slack: DigestSlack;
  /** The price cache (src/prices): values in USD beside the totals; absent: none shown. */
  prices?: () => PriceSnapshot;
}

export interface DigestService {
  /** Builds the digest of the last `days` days (and writes today's balance snapshot). */
  build(days: number): Promise<Digest>;
  /**
   * The scheduled digest: posted to the alerts channel once per day, with its chart. The day is
   * the slot's in the schedule's zone (default: now, UTC). Throws if a chart upload failed (the
   * scheduler warns and retries; the upload is looked up before it is sent again).
   */
  runDaily(at?: SlotTime): Promise<void>;
  /** Draws the chart and uploads it to a channel; throws what Slack answered. */
  uploadChart(digest: Digest, channel: string, title: string): Promise<void>;
}

export function createDigests(o: DigestOptions): DigestService {
  const log = o.logger.child({ component: 'digest' });
  const { store } = o;

  // The scheduled digest's message is Slack's words: registered by src/slack/digest-message.ts.
  async function transactions(
    from: number,
    to: number,
  ): Promise<{ records: TransactionRecord[]; truncated: boolean; incomplete?: string }> {
    const read = await readAllTransactions(
      o.wallet,
      { from: new Date(from), to: new Date(to) },
      { maxRecords: MAX_RECORDS },
    );
    const note = incompleteNote(read);
    // Any read that did not finish (a limit, a page that failed) must not make a digest that looks complete.
    if (note) log.warn({ incomplete: note }, 'the digest was built from an incomplete transaction list');
    return { records: read.records, truncated: !read.complete, ...(note ? { incomplete: note } : {}) };
  }

  async function readBalances(): Promise<BalanceLine[] | undefined> {
    if (!o.balances) return undefined;
    try {
      return await o.balances();
    } catch (err) {
      log.warn({ err }, 'balances unavailable for the digest');
      return undefined;
    }
  }

  /** The latest snapshot of a day before `day`. */
  function previousSnapshot(day: string): BalanceSnapshot | undefined {
    let best: BalanceSnapshot | undefined;
    for (const s of store.find(DIGEST_COLLECTIONS.snapshots, (x) => x.day < day))
      if (!best || s.day > best.day) best = s;
    return best;
  }

  /** Who a transaction was for, by hash: from deposit notifications and our own withdrawal requests. */
  function clients(): Map<string, string> {
    const out = new Map<string, string>();
    // Only notifications the wallet's history confirmed: a forged one must not name the client of a real transaction.
    for (const a of store.find(
      ALERT_COLLECTIONS.alerts,
      (x) => Boolean(x.hash && x.clientEmail) && (x.source !== 'webhook' || x.verification.state === 'confirmed'),
    ))
      out.set(a.hash!.toLowerCase(), a.clientEmail!);
    for (const w of o.withdrawals.list())
      if (w.result?.transactionHash) out.set(w.result.transactionHash.toLowerCase(), w.clientEmail);
    return out;
  }

  async function build(days: number): Promise<Digest> {
    const now = o.now();
    const today = utcDayOf(now);
    const [tx, balances] = await Promise.all([
      transactions(now - Math.max(days, CHART_DAYS) * DAY, now),
      readBalances(),
    ]);
    const digest = buildDigest({
      now,
      days,
      records: tx.records,
      truncated: tx.truncated,
      ...(tx.incomplete ? { incomplete: tx.incomplete } : {}),
      withdrawals: o.withdrawals.list(),
      ...(balances ? { balances } : {}),
      previous: previousSnapshot(today),
      clients: clients(),
      payeeOf: allowlistPayee(o.policy.current().withdrawals.allowlist.addresses),
      ...(o.prices ? { prices: o.prices() } : {}),
      batches: o.store.all(BATCHES),
    });
    if (balances) {
      const snapshot: BalanceSnapshot = { day: today, at: now, lines: balances };
      await store.commit((t) => t.put(DIGEST_COLLECTIONS.snapshots, today, snapshot));
    }
    return digest;
  }

  async function uploadChart(digest: Digest, channel: string, title: string): Promise<void> {
    const chart = await renderChart(digest);
    await o.slack.files.uploadV2({
      channel_id: channel,
      file: chart.png,
      filename: `${title.replace(/[^A-Za-z0-9-]+/g, '-').toLowerCase()}.png`,
      title,
      alt_text: chartAltText(digest),
    });
  }

  async function setChart(key: string, patch: Partial<ScheduledDigest['chart']>): Promise<ScheduledDigest | undefined> {
    return store.commit((t) => {
      const rec = t.get(DIGEST_COLLECTIONS.scheduled, key);
      if (!rec) return undefined;
      const next = { ...rec, chart: { ...rec.chart, ...patch } };
      t.put(DIGEST_COLLECTIONS.scheduled, key, next);
      return next;
    });
  }

  /** Did an earlier attempt land? A file with the chart's title in the channel since it was marked. */
  async function landed(rec: ScheduledDigest): Promise<boolean> {
    const oldest = ((rec.chart.markedAt ?? rec.createdAt) - 60_000) / 1000;
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await o.slack.conversations.history({
        channel: rec.channel,
        oldest: oldest.toFixed(6),
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      for (const m of res.messages ?? []) if (m.files?.some((f) => f.title === rec.chart.title)) return true;
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!cursor) return false;
    }
    return false;
  }

  async function waitForText(day: string): Promise<void> {
    const deadline = Date.now() + WAIT_FOR_TEXT_MS;
    while (!o.outbox.message(`digest:${day}`)?.ts && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
  }

  /** Returns what went wrong, if the chart is not in the channel after this attempt. */
  async function deliverChart(rec: ScheduledDigest): Promise<string | undefined> {
    if (rec.chart.state === 'sent' || rec.chart.state === 'failed') return undefined;
    if (rec.chart.state === 'uploading' && (await landed(rec))) {
      await setChart(rec.key, { state: 'sent' });
      return undefined;
    }
    if (rec.chart.attempts >= MAX_CHART_ATTEMPTS) {
      log.error({ day: rec.day, error: rec.chart.error }, 'the digest chart could not be uploaded; giving up');
      await setChart(rec.key, { state: 'failed' });
      return `the chart of ${rec.day} was given up after ${rec.chart.attempts} attempts (${rec.chart.error ?? 'unknown error'})`;
    }
    await waitForText(rec.day);
    await setChart(rec.key, { state: 'uploading', attempts: rec.chart.attempts + 1, markedAt: o.now() });
    try {
      await uploadChart(rec.digest, rec.channel, rec.chart.title);
      await setChart(rec.key, { state: 'sent' });
      return undefined;
    } catch (err) {
      // Stays `uploading`: the next run looks in the channel first, so a lost answer is never a second chart.
      const message = err instanceof Error ? err.message : String(err);
      log.warn({ err, day: rec.day }, 'the digest chart upload failed; it is retried');
      await setChart(rec.key, { error: message });
      return `the chart of ${rec.day} could not be uploaded: ${message}`;
    }
  }

  async function runDaily(at?: SlotTime): Promise<void> {
    const now = o.now();
    const day = dayIn(at?.slot ?? now, at?.timezone ?? 'UTC');
    const key = `daily:${day}`;
    if (!store.get(DIGEST_COLLECTIONS.scheduled, key)) {
      const digest = await build(1);
      const channel = o.policy.current().channels.alerts;
      await store.commit((t) => {
        // Another run may have written it meanwhile: the key is the day, so one digest a day.
        if (t.get(DIGEST_COLLECTIONS.scheduled, key)) return;
        t.put(DIGEST_COLLECTIONS.scheduled, key, {
          key,
          day,
          channel,
          createdAt: now,
          digest,
          chart: { state: 'pending', attempts: 0, title: `Treasury digest chart ${day}` },
        });
        o.outbox.enqueue(t, { op: 'post', renderer: DIGEST_RENDERER, ref: key, key: `digest:${day}`, channel });
      });
    }
    // This day's chart, and any of the day before left unsent by a restart.
    const recent = store.find(DIGEST_COLLECTIONS.scheduled, (r) => r.createdAt >= now - 2 * DAY);
    const problems: string[] = [];
    for (const rec of recent.sort((a, b) => a.day.localeCompare(b.day))) {
      const problem = await deliverChart(rec);
      if (problem) problems.push(problem);
      // This day's chart given up stays a failed run (no "works again" notice while it is missing).
      else if (rec.key === key && store.get(DIGEST_COLLECTIONS.scheduled, key)?.chart.state === 'failed')
        problems.push(`the chart of ${day} was given up`);
    }
    if (problems.length) throw new Error(problems.join('; '));
  }

  return { build, runDaily, uploadChart };
}
