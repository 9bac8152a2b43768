/**
 * Balances in the digest: the origin balances come from an input (the wallet client's
 * `originBalances()`, wired by the app once it exists); each run keeps the day's snapshot in
 * the real store, and the next day's digest shows the change since it. A failing source reads
 * "unavailable", never an error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDigests } from '../../src/digest/service.js';
import { renderDigest } from '../../src/slack/digest-message.js';
import type { BalanceLine } from '../../src/digest/types.js';
import { startTestApp, visibleText, type TestApp } from '../helpers/treasury-app.js';

const DAY = 86_400_000;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  t.app.sandbox!.resetTransactions([]);
});
afterAll(async () => {
  await t?.stop();
});

function digests(now: number, balances: () => Promise<BalanceLine[]>) {
  const d = t.app.deps;
  return createDigests({
    store: d.store,
    wallet: d.wallet,
    withdrawals: d.withdrawals,
    policy: d.policy,
    outbox: d.outbox,
    logger: d.logger,
    now: () => now,
    balances,
    slack: t.app.slack!.app.client,
  });
}

describe('digest balances', () => {
  it('shows "—" the first day, then the exact change since the previous day’s snapshot', async () => {
    const today = Date.now();
    const first = await digests(today, async () => [
      { currency: 'USDT', network: 'BSC', balance: '1000.10' },
      { currency: 'BTC', network: 'BTC', balance: '0.5' },
    ]).build(1);
    expect(visibleText(renderDigest(first))).toContain('1,000.10 USDT on BSC · —');

    const next = await digests(today + DAY, async () => [
      { currency: 'USDT', network: 'BSC', balance: '750' },
      { currency: 'BTC', network: 'BTC', balance: '0.75' },
      { currency: 'USDT', network: 'TRON', balance: '3' },
    ]).build(1);
    const text = visibleText(renderDigest(next));
    expect(text).toMatch(/\*Balances\* \(change since \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(text).toContain('750.00 USDT on BSC · −250.10 USDT');
    expect(text).toContain('0.75 BTC on BTC · +0.25 BTC');
    expect(text).toContain('3.00 USDT on TRON · —');
  });

  it('says balances are unavailable when the source fails, and still builds the digest', async () => {
    const d = await digests(Date.now(), async () => {
      throw new Error('wallet down');
    }).build(1);
    const text = visibleText(renderDigest(d));
    expect(text).toContain('*Balances*: unavailable right now.');
    expect(text).toContain('Treasury digest: last 24 hours');
  });
});
