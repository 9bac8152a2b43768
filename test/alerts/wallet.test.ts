import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import { scheduleJobs } from '../../src/jobs/table.js';
import { Scheduler } from '../../src/jobs/scheduler.js';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { depositSample, logger, send, startPipeline, type Pipeline } from './setup.js';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const alerts = () => p!.store.all<Alert>(ALERT_COLLECTIONS.alerts);

async function until(pred: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('alerts against the sandbox wallet service', () => {
  it('a real sandbox deposit: webhooks PENDING then CONFIRMED, verified against the transaction list in the background', async () => {
    p = await startPipeline();
    await p.wallet.setWebhookUrl(p.webhookUrl);
    p.sandbox.setBalance('payer@example.com', 'USDT', 'BSC', '0');
    const tx = await p.sandbox.deposit({
      to: 'payer@example.com',
      amount: '20000.5',
      currency: 'USDT',
      network: 'BSC',
    });
    await until(() => alerts()[0]?.status === 'CONFIRMED' && alerts()[0]?.verification.state === 'confirmed');
    await p.alerts.idle();
    await p.outbox.drain();
    const a = alerts()[0]!;
    expect(alerts()).toHaveLength(1);
    expect(a).toMatchObject({ hash: tx.transactionHash, amount: '20000.5', mention: true, source: 'webhook' });
    expect(a.verification.hashUrl).toBe(tx.transactionHashUrl);
    // The alert, then (large, and confirmed by the history) one short post with the @here.
    const msgs = p.fake.channel('C0USDT').filter((m) => !m.thread_ts);
    expect(msgs).toHaveLength(2);
    const shown = JSON.stringify(msgs[0]!.blocks);
    expect(shown).toContain("checked against the wallet's history");
    expect(shown).toContain(tx.transactionHashUrl);
    expect(shown).not.toContain('<!here>');
    expect(msgs[1]!.text).toMatch(/^<!here> Large deposit confirmed by the wallet's history: \*20,000\.50 USDT\*/);
    // The look-up reads the list by time window (many hashes per call), not hash by hash.
    const lists = p.sandbox.stats.requests.filter((r) => r.path.includes('transaction-record'));
    expect(lists.some((r) => r.path.includes('StartTimeStamp='))).toBe(true);
    expect(lists.some((r) => r.path.includes('TransactionHash='))).toBe(false);
  });

  it('reconciliation finds a deposit whose webhook never arrived, once, through the scheduler job', async () => {
    p = await startPipeline();
    // No webhook URL registered: the sandbox cannot tell us.
    p.sandbox.setBalance('quiet@example.com', 'BTC', 'BSC', '0');
    const tx = await p.sandbox.deposit({ to: 'quiet@example.com', amount: '0.25', currency: 'BTC', network: 'BSC' });
    const scheduler = new Scheduler(logger);
    scheduleJobs(scheduler, { alerts: p.alerts });
    await scheduler.runNow('alerts.reconcile-deposits');
    await scheduler.runNow('alerts.reconcile-deposits');
    const second = await p.alerts.reconcile();
    expect(second.created).toEqual([]);
    await p.outbox.drain();
    expect(alerts()).toHaveLength(1);
    expect(alerts()[0]).toMatchObject({
      source: 'reconciliation',
      hash: tx.transactionHash,
      status: 'CONFIRMED',
      amount: '0.25',
      currency: 'BTC',
    });
    const msgs = p.fake.channel('C0ALERTS');
    expect(msgs).toHaveLength(1);
    expect(JSON.stringify(msgs[0]!.blocks)).toContain("Found in the wallet's history, no notification received");

    // The webhook turning up late is the same transaction: no second alert.
    await p.wallet.setWebhookUrl(p.webhookUrl);
    const tx2 = await p.sandbox.deposit({ to: 'quiet@example.com', amount: '0.3', currency: 'BTC', network: 'BSC' });
    await until(() => alerts().length === 2 && alerts()[1]!.status === 'CONFIRMED');
    expect((await p.alerts.reconcile()).created).toEqual([]);
    expect(alerts().map((a) => a.hash)).toEqual([tx.transactionHash, tx2.transactionHash]);
    await scheduler.stop();
  });

  it('a deposit whose webhook delivery keeps failing is recovered by reconciliation', async () => {
    p = await startPipeline();
    await p.wallet.setWebhookUrl(`${p.http.url}/webhooks/wallet/not-the-secret`);
    p.sandbox.setBalance('lost@example.com', 'USDT', 'TRON', '0');
    const tx = await p.sandbox.deposit({ to: 'lost@example.com', amount: '5', currency: 'USDT', network: 'TRON' });
    await until(() => p!.sandbox.webhook.deliveries.filter((d) => d.transactionStatus === 'CONFIRMED').length >= 3);
    expect(p.sandbox.webhook.deliveries.every((d) => d.status === 404)).toBe(true);
    expect(alerts()).toHaveLength(0);
    const report = await p.alerts.reconcile();
    expect(report.created).toHaveLength(1);
    await p.outbox.drain();
    expect(alerts()[0]).toMatchObject({ hash: tx.transactionHash, source: 'reconciliation', network: 'TRON' });
    expect(p.fake.channel('C0USDT')).toHaveLength(1);
    expect(SANDBOX_MERCHANT.email).toBeTruthy();
  });

  it("the wallet's explorer links: a line already in a batch message keeps the link it was drawn with; a message of its own takes a sensible one", async () => {
    p = await startPipeline({ startOutbox: false, alerts: { verifyRetryDelaysMs: [] } });
    const hashes = [1, 2, 3, 4].map((i) => `0x${String(i).repeat(64)}`);
    // The list does not know them yet: the first check finds nothing.
    for (const hash of hashes.slice(0, 3))
      expect((await send(p.webhookUrl, depositSample({ hash, status: 2 }))).status).toBe(200);
    await p.alerts.idle();
    p.outbox.start();
    await p.outbox.drain();
    expect(p.fake.channel('C0USDT')).toHaveLength(1); // one batch message, three lines
    expect((await send(p.webhookUrl, depositSample({ hash: hashes[3]!, status: 2, amount: '20000' }))).status).toBe(
      200,
    );
    await p.alerts.idle();
    await p.outbox.drain();
    expect(p.fake.channel('C0USDT')).toHaveLength(2); // large: a message of its own

    // Now the list has them, each with a long (but valid) link, and one with a link that is no URL at all.
    const longUrl = (h: string) =>
      `https://explorer.example.com/a/very/long/path/to/the/transaction/page/${h}?ref=wallet`;
    p.sandbox.resetTransactions(
      hashes.map((h, i) => ({
        transactionHash: h,
        transactionHashUrl: i === 3 ? longUrl(h) : i === 0 ? 'javascript:alert(1)' : longUrl(h),
        amount: i === 3 ? '20000' : '150.25',
        transactionTimeStamp: Date.now(),
      })),
    );
    await p.alerts.verifyPending();
    await p.outbox.drain();
    const byHash = (h: string) => alerts().find((a) => a.hash === h)!;
    for (const h of hashes) expect(byHash(h).verification.state).toBe('confirmed');
    for (const h of hashes.slice(0, 3)) expect(byHash(h).verification.hashUrl).toBeUndefined();
    expect(byHash(hashes[3]!).verification.hashUrl).toBe(longUrl(hashes[3]!));
    const [batch, own] = p.fake.channel('C0USDT').map((m) => JSON.stringify(m.blocks));
    expect(batch).not.toContain('explorer.example.com');
    expect(batch).toContain(`https://bscscan.com/tx/${hashes[1]}`);
    expect(own).toContain(longUrl(hashes[3]!));
  });
});
