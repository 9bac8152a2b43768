/**
 * Deposit alerts show their value (issue 24, point 4): recorded on the alert when the webhook
 * is ingested (the price cache then, the one its @here is decided with) and drawn beside the
 * amount in the alert's message. Signed webhook over HTTP in, the fake Slack out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { renderAlertBatch } from '../../src/slack/alert-messages.js';
import { HASH_A, HASH_B, depositSample, send, startPipeline, type Pipeline } from './setup.js';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const snapshot = (quotes: PriceSnapshot['quotes']): PriceSnapshot => ({ now: Date.now(), maxAgeMs: 300_000, quotes });
const QUOTE = (price: string) => ({ price, at: new Date().toISOString(), source: 'test' });
const alerts = () => p!.store.all<Alert>(ALERT_COLLECTIONS.alerts);
const top = (channel: string) => p!.fake.channel(channel).filter((m) => !m.thread_ts);

describe('deposit alerts show their value', () => {
  it('records the value at ingestion and shows "≈ $…" beside the amount', async () => {
    let prices = snapshot({ USDT: QUOTE('1.0002') });
    p = await startPipeline({ alerts: { prices: () => prices } });
    expect((await send(p.webhookUrl, depositSample({ status: 2 }))).status).toBe(200);
    expect(alerts()[0]!.value).toMatchObject({ kind: 'known', usd: '150.29', price: '1.0002', source: 'test' });
    await p.outbox.drain();
    expect(JSON.stringify(top('C0USDT')[0]!.blocks)).toContain('150.25 USDT ≈ $150.29');

    // A later status redraws the message with the value it had when it came, whatever the price now.
    prices = snapshot({ USDT: QUOTE('2') });
    expect((await send(p.webhookUrl, depositSample({ status: 3 }))).status).toBe(200);
    await p.outbox.drain();
    expect(JSON.stringify(top('C0USDT')[0]!.blocks)).toContain('150.25 USDT ≈ $150.29');
  });

  it('without a fresh price says the value is unknown, never $0', async () => {
    const stale = { price: '1', at: new Date(Date.now() - 3_600_000).toISOString(), source: 'test' };
    p = await startPipeline({ alerts: { prices: () => snapshot({ USDT: stale }) } });
    expect((await send(p.webhookUrl, depositSample({ status: 2, hash: HASH_B }))).status).toBe(200);
    expect(alerts()[0]!.value).toMatchObject({ kind: 'unknown' });
    await p.outbox.drain();
    const shown = JSON.stringify(top('C0USDT')[0]!.blocks);
    expect(shown).toContain('150.25 USDT (value unknown)');
    expect(shown).not.toContain('$0');
  });

  it("a batch shows each line's value and a total in value only when every counted line has one", () => {
    const base = (id: string, amount: string, currency: string, usd?: string): Alert => ({
      id,
      kind: 'deposit',
      status: 'CONFIRMED',
      amount,
      currency,
      network: 'BSC',
      hash: `${HASH_A.slice(0, -1)}${id.slice(-1)}`,
      channel: 'C0ALERTS',
      mention: false,
      source: 'reconciliation',
      verification: { state: 'confirmed', attempts: 1 },
      history: [],
      messageKey: `alert:${id}`,
      createdAt: 0,
      updatedAt: 0,
      ...(usd
        ? { value: { kind: 'known' as const, usd, price: '1', at: '2026-01-01T00:00:00Z', source: 'test' } }
        : {}),
    });
    const known = renderAlertBatch([base('a1', '100', 'USDT', '100.00'), base('a2', '0.5', 'ETH', '1500.00')]);
    expect(known.text).toBe('2 deposits: 100.00 USDT, 0.5 ETH, ≈ $1,600.00 in all');
    expect(JSON.stringify(known.blocks)).toContain('*0.5 ETH* ≈ $1,500.00');
    const partial = renderAlertBatch([base('a1', '100', 'USDT', '100.00'), base('a2', '0.5', 'ETH')]);
    expect(partial.text).toBe('2 deposits: 100.00 USDT, 0.5 ETH');
  });
});
