/**
 * The digest end to end: transactions in the sandbox (seeded, and a deposit over HTTP), a
 * signed `/treasury digest 14`, the fake Slack's record of the answer and the uploaded chart;
 * the scheduled `digest.daily` job posting once per day across a restart (real store).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS } from '../../src/alerts/index.js';
import { formatAmount } from '../../src/format/amount.js';
import { until } from '../helpers/wait.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { parsePolicy } from '../../src/policy/load.js';
import { CHANNELS, startTestApp, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { pngInfo } from './png.js';

/** The text without the values beside amounts (issue 24; the sandbox's prices drift): the amounts as before. */
const withoutValues = (text: string) =>
  text.replace(/ \(≈ \$[\d,]+\.\d\d\)|: ≈ \$[\d,]+\.\d\d(?: \(without [^)]*\))? in all/g, '');

const DAY = 86_400_000;

function seed(t: TestApp, now: number): void {
  t.app.sandbox!.resetTransactions([
    // The last 24 hours.
    { transactionType: 'Deposit', currency: 'USDT', network: 'BSC', amount: '0.1', transactionTimeStamp: now - 60_000 },
    {
      transactionType: 'Deposit',
      currency: 'USDT',
      network: 'BSC',
      amount: '2500.05',
      transactionTimeStamp: now - 120_000,
      clientEmail: 'big.client@acme.test',
    },
    {
      transactionType: 'Withdrawal',
      currency: 'USDT',
      network: 'BSC',
      amount: '1000.5',
      transactionTimeStamp: now - 180_000,
    },
    {
      transactionType: 'Deposit',
      transactionStatus: 'FAILED',
      currency: 'ETH',
      network: 'ETH',
      amount: '5',
      transactionTimeStamp: now - 300_000,
    },
    // Earlier in the 14 days.
    {
      transactionType: 'Deposit',
      currency: 'USDT',
      network: 'BSC',
      amount: '300',
      transactionTimeStamp: now - 3 * DAY,
    },
    {
      transactionType: 'Deposit',
      currency: 'ETH',
      network: 'ETH',
      amount: '0.000000000000000001',
      transactionTimeStamp: now - 5 * DAY,
    },
    {
      transactionType: 'Withdrawal',
      currency: 'ETH',
      network: 'ETH',
      amount: '1.25',
      transactionTimeStamp: now - 10 * DAY,
    },
    // Older than 14 days: not counted.
    {
      transactionType: 'Deposit',
      currency: 'USDT',
      network: 'BSC',
      amount: '99999',
      transactionTimeStamp: now - 20 * DAY,
    },
  ]);
}

describe('/treasury digest [days]', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers with exact counts and totals for the period, and sends the 14-day chart to the person in a DM', async () => {
    seed(t, Date.now());
    // And one deposit made over HTTP, through the sandbox's own simulation endpoint.
    const res = await fetch(`${t.app.sandbox!.url}/sandbox/deposits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'big.client@acme.test', amount: '5000.2', currency: 'USDT', network: 'BSC' }),
    });
    expect(res.status).toBeLessThan(300);
    // Its notification names the client (the transaction list does not): wait for its alert,
    // confirmed by the wallet's history (a notification alone names no one's client).
    await t.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.args).includes('5,000.20 USDT'), 20_000);
    await until(
      'the alert confirmed',
      () =>
        t.app.deps.store.find(
          ALERT_COLLECTIONS.alerts,
          (a) => a.amount === '5000.2' && a.verification.state === 'confirmed',
        )[0],
    );
    // Forged notifications (no signature: whoever learns the URL): a 999,999 USDT deposit the
    // history never had, and one naming another client for a real transaction. Neither counts.
    const webhookUrl = t.app.sandbox!.webhook.url()!;
    const real = t.app.sandbox!.transactions().find((x) => x.amount === '2500.05')!;
    for (const [hash, amount, email] of [
      [`0x${'e'.repeat(64)}`, '999999', 'forger@evil.test'],
      [real.transactionHash, '2500.05', 'forger@evil.test'],
    ] as const) {
      const body = `{"TransactionType":1,"Data":{"Amount":${amount},"Currency":4,"NetworkChain":"BSC","Status":3,"MerchantClient":{"Email":"${email}"},"TransactionHash":"${hash}"}}`;
      const r = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(r.status).toBe(200);
    }

    const { res: ack, responseUrl } = await t.command('/treasury', 'digest 14', USERS.viewer);
    expect(ack.status).toBe(200);
    const [reply] = await t.replies(responseUrl);
    const shown = visibleText(reply!);
    // Issue 24: each amount's value (≈ $…, at the sandbox's drifting price) is beside it; these lines pin the amounts.
    expect(shown).toMatch(/7,800\.35 USDT \(≈ \$[\d,]+\.\d\d\) in/);
    expect(shown).toMatch(/\*All currencies\*: ≈ \$[\d,]+\.\d\d in · ≈ \$[\d,]+\.\d\d out, at the prices of /);
    const text = withoutValues(shown);
    expect(reply!.response_type).toBe('ephemeral');
    expect(text).toContain('Treasury digest: last 14 days');
    expect(text).toContain(
      '*USDT*: 4 deposits confirmed, 7,800.35 USDT in · 1 withdrawal confirmed, 1,000.50 USDT out',
    );
    expect(text).toContain(
      '*ETH*: 1 deposit confirmed, 0.000000000000000001 ETH in · 1 withdrawal confirmed, 1.25 ETH out · :x: 1 failed',
    );
    expect(text).toContain('From 8 transactions in the wallet');
    // The balances are the wallet service's own, read now (the first digest has no earlier snapshot).
    expect(text).toContain('*Balances* (change since the previous digest: none yet)');
    const usdtBsc = (await t.app.deps.wallet.originBalances()).find(
      (b) => b.currency === 'USDT' && b.network === 'BSC',
    )!;
    expect(text).toContain(`${formatAmount(usdtBsc.balance, 'USDT')} on BSC · —`);
    expect(text).toContain('*Waiting for approval*: 0 · *Expired unapproved in the period*: 0');
    // The largest first, with the client (never an internal id).
    expect(text).toContain('*Largest movements*');
    expect(text).toMatch(
      /:inbox_tray: In 5,000\.20 USDT on BSC · from big\.client@acme\.test · \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    // Without a notification, the sender's address, shortened.
    expect(text).toMatch(/:inbox_tray: In 2,500\.05 USDT on BSC · from 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4} · /);
    expect(text.indexOf('5,000.20 USDT')).toBeLessThan(text.indexOf('2,500.05 USDT on BSC'));
    expect(text).toMatch(/:outbox_tray: Out 1\.25 ETH on ETH · to 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}/);
    expect(text).not.toContain('99,999');
    expect(text).not.toContain('forger@evil.test');

    // The chart is drawn in a worker after the answer (a cold worker loads echarts first): wait for its upload.
    // A digest asked for is private: its chart goes to the person's DM, never the channel (issue 25).
    const call = await t.fake.waitFor('files.completeUploadExternal', undefined, 30_000);
    expect(call.args.channel_id).toBe(t.fake.dmChannel(USERS.viewer));
    expect(t.fake.files().filter((f) => f.channel === CHANNELS.command)).toEqual([]);
    const [file] = t.fake.files().filter((f) => f.channel === t.fake.dmChannel(USERS.viewer));
    expect(file!.name).toMatch(/^treasury-digest-chart-\d{4}-\d\d-\d\d-last-14-days-\.png$/);
    // Issue 24: the first panel is every currency in USD, then one per currency.
    expect(file!.alt_text).toMatch(
      /a bar chart of all currencies in USD at today's price, then one bar chart per currency \(ETH, USDT\), deposits in green against withdrawals/,
    );
    const png = pngInfo(file!.content);
    expect(png).toEqual({ valid: true, width: 1200, height: 56 + 3 * 300 });
    expect(file!.content.length).toBeGreaterThan(5 * 1024);
    expect(file!.content.length).toBeLessThan(2 * 1024 * 1024);
  });

  it('keeps the last 24 hours as the default', async () => {
    seed(t, Date.now());
    const uploads = t.fake.calls('files.completeUploadExternal').length;
    const { responseUrl } = await t.command('/treasury', 'digest', USERS.viewer);
    const text = withoutValues(visibleText((await t.replies(responseUrl))[0]!));
    expect(text).toContain('Treasury digest: last 24 hours');
    expect(text).toContain(
      '*USDT*: 2 deposits confirmed, 2,500.15 USDT in · 1 withdrawal confirmed, 1,000.50 USDT out',
    );
    expect(text).toContain('From 4 transactions in the wallet');
    // Its chart follows the answer (and must not be taken for one of the next test's).
    await t.fake.waitFor(
      'files.completeUploadExternal',
      () => t.fake.calls('files.completeUploadExternal').length > uploads,
      30_000,
    );
    // Titled by the chart's own span (issue 40): 14 days, not the digest's 24 hours.
    expect(t.fake.files().at(-1)!.title).toMatch(/^Treasury digest chart \d{4}-\d\d-\d\d \(last 14 days\)$/);
  });

  it.each(['0', '32', 'abc', '7 days', '-3', '1.5'])('refuses “digest %s” with the usage', async (arg) => {
    const before = t.fake.calls('files.completeUploadExternal').length;
    const { responseUrl } = await t.command('/treasury', `digest ${arg}`, USERS.viewer);
    const [reply] = await t.replies(responseUrl);
    expect(reply!.text).toMatch(/^:warning: /);
    expect(reply!.text).toContain('`/treasury digest [days]`: days from 1 to 31 (default 1, the last 24 hours)');
    expect(t.fake.calls('files.completeUploadExternal')).toHaveLength(before);
  });
});

describe('the scheduled digest (digest.daily)', () => {
  let fake: FakeSlack;
  let dataDir: string;
  let t: TestApp | undefined;
  beforeAll(async () => {
    fake = await startFakeSlack();
    dataDir = mkdtempSync(join(tmpdir(), 'digest-daily-'));
  });
  afterAll(async () => {
    await t?.stop();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const digests = () =>
    fake.channel(CHANNELS.alerts).filter((m) => m.text?.startsWith('Treasury digest (last 24 hours)'));
  const charts = () =>
    fake.files().filter((f) => f.channel === CHANNELS.alerts && f.title.startsWith('Treasury digest chart'));

  it('posts once per day to the alerts channel with its chart, not again after a restart; the next day again', async () => {
    t = await startTestApp({ fake, dataDir });
    seed(t, Date.now());
    // The first chart upload fails: it is retried at the next run, after looking in the channel.
    fake.failNext('files.completeUploadExternal', { status: 500 });
    await t.app.deps.scheduler.runNow('digest.daily');
    await t.app.deps.outbox.drain(15_000);
    expect(digests()).toHaveLength(1);
    expect(charts()).toHaveLength(0);
    await t.app.deps.scheduler.runNow('digest.daily');
    expect(digests()).toHaveLength(1);
    expect(charts()).toHaveLength(1);
    expect(withoutValues(visibleText(digests()[0]!))).toContain('*USDT*: 2 deposits confirmed, 2,500.15 USDT in');

    // A restart on the same data directory: the day's digest is not posted again.
    await t.stop();
    t = await startTestApp({ fake, dataDir });
    await t.app.deps.scheduler.runNow('digest.daily');
    await t.app.deps.outbox.drain(15_000);
    expect(digests()).toHaveLength(1);
    expect(charts()).toHaveLength(1);
    expect(
      fake.calls('chat.postMessage').filter((c) => String(c.args.text).startsWith('Treasury digest')),
    ).toHaveLength(1);

    // The next day (a later clock), one more.
    await t.stop();
    t = await startTestApp({ fake, dataDir, now: () => Date.now() + DAY });
    await t.app.deps.scheduler.runNow('digest.daily');
    await t.app.deps.scheduler.runNow('digest.daily');
    await t.app.deps.outbox.drain(15_000);
    expect(digests()).toHaveLength(2);
    expect(charts()).toHaveLength(2);
    expect(new Set(charts().map((c) => c.title)).size).toBe(2);
  }, 60_000);
});

describe('the scheduled digest chart after a lost answer', () => {
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.stop();
  });

  it('looks in the channel before uploading again: the chart that landed is not sent twice', async () => {
    t = await startTestApp();
    seed(t, Date.now());
    // Slack completes the upload, but only after the client (10 s timeout) has given up on the answer.
    t.fake.failNext('files.completeUploadExternal', { delayMs: 11_000 });
    await t.app.deps.scheduler.runNow('digest.daily');
    expect(t.logs()).toContain('the digest chart upload failed');
    const charts = () =>
      t!.fake.files().filter((f) => f.channel === CHANNELS.alerts && f.title.startsWith('Treasury digest chart'));
    for (let i = 0; i < 400 && charts().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(charts()).toHaveLength(1);
    await t.app.deps.scheduler.runNow('digest.daily');
    expect(t.fake.calls('conversations.history').some((c) => c.args.channel === CHANNELS.alerts)).toBe(true);
    expect(charts()).toHaveLength(1);
    expect(t.fake.calls('files.getUploadURLExternal')).toHaveLength(1);
  }, 60_000);
});

describe('the scheduled digest on its slots (tick with a controlled clock)', () => {
  let fake: FakeSlack;
  let dataDir: string;
  let t: TestApp | undefined;
  beforeAll(async () => {
    fake = await startFakeSlack();
    dataDir = mkdtempSync(join(tmpdir(), 'digest-slots-'));
  });
  afterAll(async () => {
    await t?.stop();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const charts = () =>
    fake.files().filter((f) => f.channel === CHANNELS.alerts && f.title.startsWith('Treasury digest chart'));
  const until = async (ok: () => boolean) => {
    for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  };

  it("names each day's digest after its slot's day in the zone: a catch-up after midnight UTC does not take the next day's; a failed chart is retried within the slot", async () => {
    const clock = { now: Date.parse('2026-11-23T22:00:00Z') };
    const policy = () => parsePolicy(TEST_POLICY_YAML.concat('\nschedule: { timezone: Asia/Tokyo }\n'));
    // No pacing gap: with the clock held still, a gap after the slot's alert would never pass, and the
    // digest's chart would wait out its 15 s for the text before every upload.
    const start = () => startTestApp({ fake, dataDir, policy: policy(), now: () => clock.now, outbox: { paceMs: 0 } });
    t = await start(); // first start: the baseline is 08:00 Tokyo on the 23rd
    await t.stop();
    // Down from 22:59 to 00:10 UTC: the 08:00 Tokyo slot of the 24th (23:00 UTC on the 23rd) runs at start.
    clock.now = Date.parse('2026-11-24T00:10:00Z');
    t = await start();
    await until(() => charts().length === 1);
    expect(charts().map((c) => c.title)).toEqual(['Treasury digest chart 2026-11-24']);
    // The next slot, 08:00 Tokyo on the 25th; its chart upload fails once.
    fake.failNext('files.completeUploadExternal', { status: 500 });
    clock.now = Date.parse('2026-11-24T23:00:00Z');
    await t.app.deps.scheduler.tick(clock.now);
    const job = () => t!.app.deps.scheduler.status().find((s) => s.name === 'digest.daily')!;
    expect(job().last?.outcome).toBe('failed');
    expect(charts()).toHaveLength(1);
    clock.now += 60_000;
    await t.app.deps.scheduler.tick(clock.now);
    expect(job().last?.outcome).toBe('ok');
    expect(charts().map((c) => c.title)).toEqual([
      'Treasury digest chart 2026-11-24',
      'Treasury digest chart 2026-11-25',
    ]);
    const posts = () =>
      fake.calls('chat.postMessage').filter((c) => String(c.args.text).startsWith('Treasury digest (last 24 hours)'));
    await until(() => posts().length >= 2);
    expect(posts()).toHaveLength(2);
  }, 60_000);
});

describe('the scheduled digest chart given up', () => {
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.stop();
  });

  it('after three failed uploads the run stays failed (no "works again") and the slot is retried a bounded number of times', async () => {
    const clock = { now: Date.parse('2026-11-23T07:00:00Z') };
    t = await startTestApp({ now: () => clock.now });
    const fake = t.fake;
    fake.failNext('files.completeUploadExternal', { status: 500, times: 3 });
    clock.now = Date.parse('2026-11-23T08:00:00Z');
    await t.app.deps.scheduler.tick(clock.now);
    for (let i = 0; i < 120; i++) {
      clock.now += 30_000;
      await t.app.deps.scheduler.tick(clock.now);
    }
    expect(fake.calls('files.completeUploadExternal')).toHaveLength(3);
    expect(fake.files().filter((f) => f.title.startsWith('Treasury digest chart'))).toHaveLength(0);
    const last = t.app.deps.scheduler.status().find((s) => s.name === 'digest.daily')!.last!;
    expect(last.outcome).toBe('failed');
    expect(last.failures).toBe(6);
    expect(last.error).toContain('given up');
    const dms = fake.channel(fake.dmChannel(USERS.erin)).map((m) => m.text ?? '');
    expect(dms.filter((d) => d.includes('Daily digest* works again'))).toHaveLength(0);
  }, 60_000);
});
