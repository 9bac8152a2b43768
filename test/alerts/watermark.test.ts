/** First start against a wallet account with weeks of history: the history is not alerted one by one. */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, readWatermark } from '../../src/alerts/index.js';
import { WATERMARK } from '../../src/alerts/watermark.js';
import { depositSample, send, startPipeline, type Pipeline } from './setup.js';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const SIX_WEEKS_MS = 42 * 24 * 3_600_000;

describe('the watermark', () => {
  it('a first start against a sandbox with weeks of history: one summary line, no alert per past deposit; later finds are alerted, once', async () => {
    // The sandbox's seed data: ~60 transactions spread over six weeks, most of them deposits.
    p = await startPipeline({ sandbox: { seed: true } });
    const history = await p.wallet.listTransactions({ type: 'deposit', from: new Date(Date.now() - SIX_WEEKS_MS), to: new Date(), page: 1, pageSize: 100 });
    expect(history.totalRecords).toBeGreaterThan(20);

    // Reconciliation looking back over all of it (the old behaviour alerted each one).
    const first = await p.alerts.reconcile({ lookbackMs: SIX_WEEKS_MS, pages: 2, pageSize: 100 });
    expect(first.created).toEqual([]);
    expect(first.history).toBe(history.totalRecords);
    await p.outbox.drain();
    expect(p.store.count(ALERT_COLLECTIONS.alerts)).toBe(0);
    const msgs = p.fake.channel('C0ALERTS');
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.text).toBe(`${history.totalRecords} deposits in the 42 days before the app was connected: see \`/tx type=deposit\``);
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
});
