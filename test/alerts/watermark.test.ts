/** First start against a wallet account with weeks of history: the history is not alerted one by one. */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, readWatermark } from '../../src/alerts/index.js';
import { WATERMARK } from '../../src/alerts/watermark.js';
import { depositSample, HASH_A, HASH_B, send, startPipeline, type Pipeline } from './setup.js';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const SIX_WEEKS_MS = 42 * 24 * 3_600_000;
const DAY_MS = 24 * 3_600_000;
const HASH_C = `0x${'c'.repeat(64)}`;
const HASH_D = `0x${'d'.repeat(64)}`;

describe('the watermark', () => {
  it('a first start against a sandbox with weeks of history: one summary line, no alert per past deposit; later finds are alerted, once', async () => {
    // The sandbox's seed data: ~60 transactions spread over six weeks, most of them deposits.
    p = await startPipeline({ sandbox: { seed: true } });
    const history = await p.wallet.listTransactions({
      type: 'deposit',
      from: new Date(Date.now() - SIX_WEEKS_MS),
      to: new Date(),
      page: 1,
      pageSize: 100,
    });
    expect(history.totalRecords).toBeGreaterThan(20);

    // Reconciliation looking back over all of it (the old behaviour alerted each one).
    const first = await p.alerts.reconcile({ lookbackMs: SIX_WEEKS_MS, pages: 2, pageSize: 100 });
    expect(first.created).toEqual([]);
    expect(first.history).toBe(history.totalRecords);
    await p.outbox.drain();
    expect(p.store.count(ALERT_COLLECTIONS.alerts)).toBe(0);
    const msgs = p.fake.channel('C0ALERTS');
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.text).toBe(
      `${history.totalRecords} deposits in the 42 days before the app was connected: see \`/tx type=deposit\``,
    );
    expect(p.fake.channels()).toEqual(['C0ALERTS']);
    expect(readWatermark(p.store)).toMatchObject({ historyReported: true, historyCount: history.totalRecords });

    // A deposit after the watermark that no webhook brought is a finding, alerted once.
    p.sandbox.setBalance('late@example.com', 'BTC', 'BSC', '0');
    const tx = await p.sandbox.deposit({ to: 'late@example.com', amount: '0.25', currency: 'BTC', network: 'BSC' });
    const second = await p.alerts.reconcile({ lookbackMs: SIX_WEEKS_MS, pages: 2, pageSize: 100 });
    expect(second.created).toHaveLength(1);
    await p.outbox.drain();
    expect(p.fake.channel('C0ALERTS')).toHaveLength(2);
    expect(JSON.stringify(p.fake.channel('C0ALERTS')[1]!.blocks)).toContain(tx.transactionHash!);

    // A restart on the same data keeps the watermark: no second summary, no alert for history.
    const dir = p.dir;
    const at = readWatermark(p.store)!.at;
    await p.close();
    p = await startPipeline({ dir, sandbox: { seed: true } });
    const again = await p.alerts.reconcile({ lookbackMs: SIX_WEEKS_MS, pages: 2, pageSize: 100 });
    expect(again.created).toEqual([]);
    await p.outbox.drain();
    expect(p.fake.calls('chat.postMessage')).toHaveLength(0);
    expect(readWatermark(p.store)!.at).toBe(at);
  });

  it('no history at all: no summary line', async () => {
    p = await startPipeline();
    const r = await p.alerts.reconcile();
    expect(r).toMatchObject({ created: [], history: 0 });
    await p.outbox.drain();
    expect(p.fake.calls('chat.postMessage')).toHaveLength(0);
    expect(readWatermark(p.store)).toMatchObject({ historyReported: true, historyCount: 0 });
  });

  it('a data directory from before watermarks (it holds alerts): the watermark is its first alert, and there is no history line', async () => {
    p = await startPipeline({ sandbox: { seed: true } });
    expect((await send(p.webhookUrl, depositSample({ status: 3 }))).status).toBe(200);
    await p.outbox.drain();
    const alertAt = p.store.all<{ createdAt: number }>(ALERT_COLLECTIONS.alerts)[0]!.createdAt;
    await p.store.commit((tx) => tx.delete(WATERMARK.collection, WATERMARK.key));
    const dir = p.dir;
    await p.close();

    p = await startPipeline({ dir, sandbox: { seed: true } });
    const r = await p.alerts.reconcile({ lookbackMs: SIX_WEEKS_MS, pages: 2, pageSize: 100 });
    expect(r.created).toEqual([]);
    await p.outbox.drain();
    expect(p.fake.calls('chat.postMessage')).toHaveLength(0);
    expect(readWatermark(p.store)).toEqual({ at: alertAt, historyReported: true, historyCount: 0 });
  });

  it('replayed notifications from before the watermark are counted in the history line, not alerted; settled after it, they are news', async () => {
    p = await startPipeline();
    const wm = await p.alerts.watermark();
    const deliver = async (o: Parameters<typeof depositSample>[0]) => {
      expect((await send(p!.webhookUrl, depositSample(o))).status).toBe(200);
      await p!.outbox.drain();
    };
    // The service replays old notifications when the URL is first registered: its time in
    // either form it may take (ISO without a zone, as the transaction list writes it; Unix ms).
    const iso = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '');
    await deliver({ hash: HASH_A, status: 2, extra: { createdAt: iso(wm.at - 3 * DAY_MS) } });
    await deliver({ hash: HASH_B, status: 3, extra: { transactionTimeStamp: wm.at - 2 * DAY_MS } });
    expect(p.fake.calls('chat.postMessage')).toHaveLength(0);
    expect(p.store.count(ALERT_COLLECTIONS.alerts)).toBe(2); // stored all the same

    // The history line counts them (the list's own count of the day before is empty here).
    await p.alerts.reconcile();
    await p.outbox.drain();
    expect(p.fake.channel('C0ALERTS').map((m) => m.text)).toEqual([
      '2 deposits in the 24 h before the app was connected: see `/tx type=deposit`',
    ]);
    // One more replayed later: the line is edited, not posted again.
    await deliver({
      hash: HASH_C,
      status: 3,
      extra: { transactionTimeStamp: Math.floor((wm.at - 5 * DAY_MS) / 1000) },
    });
    expect(p.fake.channel('C0ALERTS').map((m) => m.text)).toEqual([
      '3 deposits in the 24 h before the app was connected: see `/tx type=deposit`',
    ]);
    expect(p.fake.calls('chat.update')).toHaveLength(1);

    // A's confirmation comes now (no time: live): pending before the watermark, settled after it, it is news.
    await deliver({ hash: HASH_A, status: 3 });
    // B's confirmation replayed again: history still. A new deposit with no time at all: live.
    await deliver({ hash: HASH_B, status: 3, extra: { transactionTimeStamp: wm.at - 2 * DAY_MS } });
    await deliver({ hash: HASH_D, status: 2 });
    const usdt = p.fake.channel('C0USDT').map((m) => JSON.stringify(m.blocks));
    expect(usdt).toHaveLength(2);
    expect(usdt[0]).toContain(HASH_A);
    // Reported confirmed; the wallet's history (empty here) does not show it: a claim, checking.
    expect(usdt[0]).toContain('Reported by the wallet service · checking');
    expect(usdt[1]).toContain(HASH_D);
    expect(p.fake.channels().sort()).toEqual(['C0ALERTS', 'C0USDT']);
    expect(readWatermark(p.store)).toMatchObject({ historyReported: true, historyCount: 3, replayedBefore: 3 });
  });
});
