/**
 * Issue 40: the plain CSV values a movement at the price of its date, through the whole app:
 * `/tx export` against the embedded sandbox, whose CoinGecko-shaped `GET /coins/{id}/history`
 * answers over HTTP. `value_usd_at` is that date (00:00 UTC, the time CoinGecko's daily price is
 * taken); a date with no price, or a source that is down, is valued at today's price and the
 * column says so and why. A past day's price is kept: the same export again asks nothing. The
 * fee columns say "fee not reported by the service" where the service's history gives none.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import { DEFAULT_PRICE_IDS } from '../../src/prices/ids.js';
import { sandboxDayPrice } from '../../src/sandbox/prices.js';
import { FEE_NOT_REPORTED } from '../../src/transactions/fee.js';
import { setPrices } from '../helpers/price-control.js';
import { startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
const OCT_19 = Date.parse('2026-10-19T14:30:00Z');
const OCT_20 = Date.parse('2026-10-20T09:00:00Z');
const LONG_AGO = Date.parse('2019-06-01T12:00:00Z');

beforeAll(async () => {
  t = await startTestApp();
  await setPrices(t, { prices: { USDT: 1, ETH: 3000 }, drift: false });
  await t.app.deps.scheduler.runNow('prices.refresh');
  t.app.sandbox!.resetTransactions([
    { reference: 'dep-oct19', amount: '1000', currency: 'USDT', network: 'BSC', transactionTimeStamp: OCT_19 },
    { reference: 'eth-oct19', amount: '2', currency: 'ETH', network: 'ETH', transactionTimeStamp: OCT_19 + 60_000 },
    {
      reference: 'wd-oct20',
      transactionType: 'Withdrawal',
      amount: '400',
      currency: 'USDT',
      network: 'BSC',
      transactionTimeStamp: OCT_20,
    },
    { reference: 'old', amount: '5', currency: 'USDT', network: 'BSC', transactionTimeStamp: LONG_AGO },
    { reference: 'today', amount: '7', currency: 'USDT', network: 'BSC', transactionTimeStamp: Date.now() - 1000 },
  ]);
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

async function exportCsv(): Promise<Array<Record<string, string>>> {
  const before = new Set(t.fake.files().map((f) => f.id));
  const { responseUrl } = await t.command('/tx', 'export', USERS.viewer);
  await t.repliesUntil(responseUrl, (r) => /Export finished|:warning:/.test(String(r.text)), 15_000);
  const file = t.fake.files().find((f) => !before.has(f.id))!;
  return parseCsv(file.content.toString('utf8'), { columns: true }) as Array<Record<string, string>>;
}

const historyAnswers = async () => ((await setPrices(t, {})) as { historyAnswers: number }).historyAnswers;
const byRef = (rows: Array<Record<string, string>>, ref: string) =>
  rows.find((r) => r.merchantReference === ref || r.serviceReference === ref)!;
const valueOn = (amount: string, currency: string, base: number, day: string) =>
  new Decimal(amount).times(sandboxDayPrice(base, DEFAULT_PRICE_IDS[currency]!, day)).toFixed(2);

describe('exports at the price of the transaction date', () => {
  it('values each movement at its date’s price, with value_usd_at that date; a date without one says so', async () => {
    const rows = await exportCsv();
    const dep = byRef(rows, 'dep-oct19');
    expect(dep.value_usd_at).toBe('2026-10-19T00:00:00.000Z');
    expect(dep.value_usd).toBe(valueOn('1000', 'USDT', 1, '2026-10-19'));
    // Not today's price (exactly $1 here): the day's, moved a little.
    expect(dep.value_usd).not.toBe('1000.00');
    const eth = byRef(rows, 'eth-oct19');
    expect(eth.value_usd).toBe(valueOn('2', 'ETH', 3000, '2026-10-19'));
    const wd = byRef(rows, 'wd-oct20');
    expect(wd.value_usd_at).toBe('2026-10-20T00:00:00.000Z');
    expect(wd.value_usd).toBe(valueOn('400', 'USDT', 1, '2026-10-20'));
    // Before the source's history: today's price, and the column says so and why.
    const old = byRef(rows, 'old');
    expect(old.value_usd).toMatch(/^[45]\.\d\d$/);
    expect(old.value_usd_at).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z \(today's price: none for 2019-06-01 \(the embedded sandbox has no price of USDT for 2019-06-01\)\)$/,
    );
  });

  it('a movement of today is at today’s price, with no note: it is the day’s price', async () => {
    const today = byRef(await exportCsv(), 'today');
    expect(today.value_usd).toMatch(/^\d\.\d\d$/);
    expect(today.value_usd_at).toBe(t.app.deps.prices.snapshot().quotes.USDT!.at);
  });

  it('a past day’s price is kept: the same export again asks the source nothing', async () => {
    const before = await historyAnswers();
    const rows = await exportCsv();
    expect(await historyAnswers()).toBe(before);
    expect(byRef(rows, 'dep-oct19').value_usd_at).toBe('2026-10-19T00:00:00.000Z');
  });

  it('a source that is down: today’s price, and the column says why; nothing is kept, so it is asked again later', async () => {
    t.app.sandbox!.resetTransactions([
      {
        reference: 'dep-oct21',
        amount: '10',
        currency: 'USDT',
        network: 'BSC',
        transactionTimeStamp: OCT_20 + 86_400_000,
      },
    ]);
    await setPrices(t, { feed: 'down' });
    const rows = await exportCsv();
    expect(byRef(rows, 'dep-oct21').value_usd_at).toMatch(
      /\(today's price: none for 2026-10-21 \(the price source answered HTTP 503\)\)$/,
    );
    await setPrices(t, { feed: 'up' });
    const again = await exportCsv();
    expect(byRef(again, 'dep-oct21').value_usd_at).toBe('2026-10-21T00:00:00.000Z');
  });

  it('no blank fee: a withdrawal from the service’s history says the service reported none', async () => {
    t.app.sandbox!.resetTransactions([
      {
        reference: 'wd-x',
        transactionType: 'Withdrawal',
        amount: '400',
        currency: 'USDT',
        transactionTimeStamp: OCT_20,
      },
    ]);
    const wd = byRef(await exportCsv(), 'wd-x');
    expect([wd.fee, wd.feeCurrency, wd.debited]).toEqual([FEE_NOT_REPORTED, '', FEE_NOT_REPORTED]);
    const { responseUrl } = await t.command('/tx', '', USERS.viewer);
    const page = await t.repliesUntil(responseUrl, (r) => /Transactions/.test(String(r.text)), 15_000);
    expect(JSON.stringify(page.at(-1))).toMatch(/400\.00 USDT\* ≈ \$[\d,.]+ · fee not reported by the service · BSC/);
  });

  it('a fee the service’s notification carried (a confirmed alert, joined by hash) is shown, said to be from it', async () => {
    const hash = `0x${'f'.repeat(64)}`;
    const other = `0x${'e'.repeat(64)}`;
    t.app.sandbox!.resetTransactions([
      {
        reference: 'wd-n',
        transactionType: 'Withdrawal',
        amount: '250',
        currency: 'USDT',
        transactionHash: hash,
        transactionTimeStamp: OCT_20,
      },
      {
        reference: 'wd-u',
        transactionType: 'Withdrawal',
        amount: '260',
        currency: 'USDT',
        transactionHash: other,
        transactionTimeStamp: OCT_20,
      },
    ]);
    const alert = (id: string, h: string, state: string) =>
      ({
        id,
        kind: 'withdrawal',
        hash: h,
        amount: '250',
        charge: '1.5',
        currency: 'USDT',
        network: 'BSC',
        verification: { state, attempts: 1 },
      }) as unknown as Alert;
    await t.app.deps.store.commit((tx) => {
      tx.put(ALERT_COLLECTIONS.alerts, 'alert-n', alert('alert-n', hash, 'confirmed'));
      // Not confirmed by the wallet's history: a claim, its charge not shown.
      tx.put(ALERT_COLLECTIONS.alerts, 'alert-u', alert('alert-u', other, 'unverified'));
    });
    const rows = await exportCsv();
    const wd = byRef(rows, 'wd-n');
    expect([wd.fee, wd.feeCurrency, wd.debited]).toEqual([
      '1.5',
      'USDT',
      "not reported (fee from the service's notification)",
    ]);
    const u = byRef(rows, 'wd-u');
    expect([u.fee, u.debited]).toEqual([FEE_NOT_REPORTED, FEE_NOT_REPORTED]);
    const { responseUrl } = await t.command('/tx', '', USERS.viewer);
    const page = await t.repliesUntil(responseUrl, (r) => /Transactions/.test(String(r.text)), 15_000);
    expect(JSON.stringify(page.at(-1))).toMatch(
      /250\.00 USDT\* ≈ \$[\d,.]+ · fee 1\.50 USDT \(from the service's notification\) · BSC/,
    );
  });
});
