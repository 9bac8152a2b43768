/**
 * The monthly export job (exports.monthly) through the whole app: on the first of a month
 * (a controlled clock), last month's transactions in the policy's format go to each admin's DM
 * (user groups expanded), once per month: not again on a second run nor after a restart on the
 * same data directory; `off` sends nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { parsePolicy } from '../../src/policy/load.js';
import { DEFAULT_PRICE_IDS } from '../../src/prices/ids.js';
import { sandboxDayPrice } from '../../src/sandbox/prices.js';
import { setPrices } from '../helpers/price-control.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { FINANCE_GROUP, startTestApp, TEST_POLICY_YAML, USERS, type TestApp } from '../helpers/treasury-app.js';

const DEC_1 = Date.UTC(2026, 11, 1, 9, 0, 0);

function policy(format: string) {
  const yaml = TEST_POLICY_YAML.replace(`admins: [${USERS.erin}]`, `admins: [${USERS.erin}, ${FINANCE_GROUP}]`).concat(
    `\nexports: { monthly: ${format} }\n`,
  );
  expect(yaml).toContain(FINANCE_GROUP);
  return parsePolicy(yaml);
}

let fake: FakeSlack;
let dataDir: string;
let t: TestApp | undefined;
beforeEach(async () => {
  fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
  dataDir = mkdtempSync(join(tmpdir(), 'monthly-export-'));
});
afterEach(async () => {
  await t?.stop();
  t = undefined;
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(format: string): Promise<TestApp> {
  const app = await startTestApp({ fake, dataDir, policy: policy(format), now: () => DEC_1 + (Date.now() % 60_000) });
  app.app.sandbox!.resetTransactions([
    {
      transactionType: 'Deposit',
      currency: 'USDT',
      network: 'BSC',
      amount: '10.5',
      transactionTimeStamp: Date.UTC(2026, 10, 1, 0, 0, 0),
    },
    {
      transactionType: 'Withdrawal',
      currency: 'USDT',
      network: 'BSC',
      amount: '3.25',
      transactionTimeStamp: Date.UTC(2026, 10, 30, 23, 59, 59),
    },
    // Outside November: not exported.
    {
      transactionType: 'Deposit',
      currency: 'USDT',
      network: 'BSC',
      amount: '999',
      transactionTimeStamp: Date.UTC(2026, 9, 31, 23, 59, 59),
    },
  ]);
  return app;
}

const monthlyFiles = (user: string) =>
  fake.files().filter((f) => f.channel === fake.dmChannel(user) && f.title.startsWith('Transactions of November 2026'));

describe('the monthly export', () => {
  it("sends last month's export in the policy's format to each admin once, across runs and a restart", async () => {
    t = await start('xero');
    await t.app.deps.scheduler.runNow('exports.monthly');
    await t.app.deps.scheduler.runNow('exports.monthly');
    for (const user of [USERS.erin, USERS.groupMember]) {
      const files = monthlyFiles(user);
      expect(files).toHaveLength(1);
      expect(files[0]!.name).toBe('transactions-2026-11-xero.csv');
      expect(files[0]!.title).toBe('Transactions of November 2026 (Xero)');
      const rows = parseCsv(files[0]!.content.toString('utf8')) as string[][];
      expect(rows[0]).toEqual(['Date', 'Amount', 'Payee', 'Description', 'Reference']);
      expect(rows.slice(1).map((r) => [r[0], r[1]])).toEqual([
        ['01/11/2026', '10.5'],
        ['30/11/2026', '-3.25'],
      ]);
      expect(files[0]!.initial_comment).toContain("Last month's transactions (November 2026, UTC) for Xero: 2 rows.");
    }
    // Nobody else: not the approvers, not the requesters.
    expect(monthlyFiles(USERS.carol)).toHaveLength(0);

    await t.stop();
    t = await start('xero');
    await t.app.deps.scheduler.runNow('exports.monthly');
    expect(monthlyFiles(USERS.erin)).toHaveLength(1);
    expect(monthlyFiles(USERS.groupMember)).toHaveLength(1);
  });

  it('retries a failed upload at the next run, still one file per admin', async () => {
    t = await start('csv');
    fake.failNext('files.completeUploadExternal', { status: 500 });
    await t.app.deps.scheduler.runNow('exports.monthly');
    const sentFirst = monthlyFiles(USERS.erin).length + monthlyFiles(USERS.groupMember).length;
    expect(sentFirst).toBe(1);
    await t.app.deps.scheduler.runNow('exports.monthly');
    expect(monthlyFiles(USERS.erin)).toHaveLength(1);
    expect(monthlyFiles(USERS.groupMember)).toHaveLength(1);
    const rows = parseCsv(monthlyFiles(USERS.erin)[0]!.content.toString('utf8')) as string[][];
    expect(rows[0]![0]).toBe('createdAt');
    expect(rows).toHaveLength(3);
  });

  it("values the plain CSV's rows at each movement's date price, as /tx export does (value columns not blank)", async () => {
    t = await start('csv');
    await setPrices(t, { prices: { USDT: 1 }, drift: false });
    await t.app.deps.scheduler.runNow('prices.refresh');
    await t.app.deps.scheduler.runNow('exports.monthly');
    const rows = parseCsv(monthlyFiles(USERS.erin)[0]!.content.toString('utf8'), { columns: true }) as Array<
      Record<string, string>
    >;
    // The deposit of 1 November (a date the sandbox's history has, whatever the machine's date).
    const dep = rows.find((r) => r.type === 'deposit')!;
    expect([dep.value_usd, dep.value_usd_at]).toEqual([
      new Decimal('10.5').times(sandboxDayPrice(1, DEFAULT_PRICE_IDS.USDT!, '2026-11-01')).toFixed(2),
      '2026-11-01T00:00:00.000Z',
    ]);
  });

  it('sends nothing when the policy says off', async () => {
    t = await start('off');
    await t.app.deps.scheduler.runNow('exports.monthly');
    expect(fake.files()).toHaveLength(0);
  });
});

describe('the monthly export on its schedule (tick with a controlled clock)', () => {
  const clock = { now: 0 };
  async function startAt(iso: string, extraYaml: string): Promise<TestApp> {
    clock.now = Date.parse(iso);
    const yaml = TEST_POLICY_YAML.concat(`\nexports: { monthly: csv }\n${extraYaml}\n`);
    const app = await startTestApp({ fake, dataDir, policy: parsePolicy(yaml), now: () => clock.now });
    app.app.sandbox!.resetTransactions([
      {
        transactionType: 'Deposit',
        currency: 'USDT',
        network: 'BSC',
        amount: '7',
        transactionTimeStamp: Date.UTC(2026, 9, 15, 12, 0, 0),
      },
    ]);
    return app;
  }
  const filesOf = (user: string) => fake.files().filter((f) => f.channel === fake.dmChannel(user));

  it('east of UTC+9, sends the month before the 1st in the zone (09:00 on 1 November in Sydney is 31 October UTC)', async () => {
    t = await startAt('2026-10-31T21:00:00Z', 'schedule: { timezone: Australia/Sydney }');
    clock.now = Date.parse('2026-10-31T22:00:00Z');
    await t.app.deps.scheduler.tick(clock.now);
    const files = filesOf(USERS.erin);
    expect(files.map((f) => f.title)).toEqual(['Transactions of October 2026 (CSV)']);
    expect(files[0]!.name).toBe('transactions-2026-10.csv');
    expect(files[0]!.content.toString('utf8')).toContain('7');
  });

  it('warns when a delivery fails and retries it within the slot, sending one file', async () => {
    t = await startAt('2026-12-01T08:00:00Z', '');
    fake.failNext('files.completeUploadExternal', { status: 500 });
    clock.now = Date.parse('2026-12-01T09:00:00Z');
    await t.app.deps.scheduler.tick(clock.now);
    expect(filesOf(USERS.erin)).toHaveLength(0);
    const rec = t.app.deps.scheduler.status().find((s) => s.name === 'exports.monthly')!.last!;
    expect(rec.outcome).toBe('failed');
    expect(rec.failures).toBe(1);
    // The admins are warned once (the failure notice, by DM through the outbox).
    const warnings = () =>
      fake.channel(fake.dmChannel(USERS.erin)).filter((m) => m.text?.includes('Monthly export to the admins* failed'));
    for (let i = 0; i < 200 && warnings().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(warnings()).toHaveLength(1);
    // The next ticks, a few minutes later (no new slot): the failed slot runs again and the file goes out.
    for (let i = 1; i <= 10 && filesOf(USERS.erin).length === 0; i++) {
      clock.now += 60_000;
      await t.app.deps.scheduler.tick(clock.now);
    }
    expect(filesOf(USERS.erin).map((f) => f.title)).toEqual([expect.stringMatching(/^Transactions of November 2026/)]);
    expect(t.app.deps.scheduler.status().find((s) => s.name === 'exports.monthly')!.last!.outcome).toBe('ok');
    // More ticks within the month send nothing more.
    clock.now += 3_600_000;
    await t.app.deps.scheduler.tick(clock.now);
    expect(filesOf(USERS.erin)).toHaveLength(1);
  });

  it('a delivery given up after three attempts stays a failed run: one warning, no "works again", retries bounded', async () => {
    t = await startAt('2026-12-01T08:00:00Z', '');
    fake.failNext('files.completeUploadExternal', { status: 500, times: 3 });
    clock.now = Date.parse('2026-12-01T09:00:00Z');
    await t.app.deps.scheduler.tick(clock.now);
    for (let i = 0; i < 120; i++) {
      clock.now += 30_000;
      await t.app.deps.scheduler.tick(clock.now);
    }
    expect(filesOf(USERS.erin)).toHaveLength(0);
    expect(fake.calls('files.completeUploadExternal')).toHaveLength(3);
    const last = t.app.deps.scheduler.status().find((s) => s.name === 'exports.monthly')!.last!;
    expect(last.outcome).toBe('failed');
    expect(last.failures).toBe(6); // the slot's run and its five retries
    expect(last.error).toContain('given up');
    const dms = () => fake.channel(fake.dmChannel(USERS.erin)).map((m) => m.text ?? '');
    for (let i = 0; i < 200 && !dms().some((d) => d.includes('failed')); i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(dms().filter((d) => d.includes('Monthly export to the admins* failed'))).toHaveLength(1);
    expect(dms().filter((d) => d.includes('Monthly export to the admins* works again'))).toHaveLength(0);
  });

  it("retries an earlier month's open delivery at the next month's run", async () => {
    t = await startAt('2026-11-01T08:00:00Z', '');
    fake.failNext('files.completeUploadExternal', { status: 500 });
    clock.now = Date.parse('2026-11-01T09:00:00Z');
    // By hand (no scheduler retry): the run fails, and the scheduler is stopped before retrying.
    await t.app.deps.scheduler.runNow('exports.monthly');
    expect(filesOf(USERS.erin)).toHaveLength(0);
    await t.stop();
    t = await startAt('2026-12-01T08:00:00Z', '');
    clock.now = Date.parse('2026-12-01T09:00:00Z');
    await t.app.deps.scheduler.tick(clock.now);
    expect(filesOf(USERS.erin).map((f) => f.title.slice(0, 29))).toEqual([
      'Transactions of October 2026 ',
      'Transactions of November 2026',
    ]);
  });
});
