/**
 * A price is a claim too (invariant 16), end to end: the app as in production against the
 * embedded sandbox, whose price API is driven over HTTP, with a clock the test moves; signed
 * Slack requests in, the recording fake Slack out. Each story moved money past the policy before
 * limits judged at the highest accepted price of the lookback window (kept in the store), with
 * stablecoins never below their peg, and before the send re-judged the daily limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { clockedRefresh, setPrices } from '../helpers/price-control.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const T0 = Date.now();
const MIN = 61_000;

/** The channels and people every test here shares; `withdrawals` and what follows are each test's. */
const withPeople = (rest: string) =>
  parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people:
  requesters: [${USERS.alice}]
  approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]
  admins: [${USERS.erin}, ${USERS.dave}]
${rest}`);

const policy = (extra = '') =>
  withPeople(`withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { max: 50000, approvals: 2 }
      - { approvals: 3, must_include: [${USERS.erin}] }
${extra}`);

let apps: TestApp[] = [];
const dirs: string[] = [];
let clock = T0;
afterEach(async () => {
  for (const a of apps.splice(0)) await a.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(o: { policy: ReturnType<typeof policy>; dataDir?: string }): Promise<TestApp> {
  const a = await startTestApp({
    policy: o.policy,
    now: () => clock,
    sandbox: { now: () => clock },
    ...(o.dataDir ? { dataDir: o.dataDir } : {}),
  });
  apps.push(a);
  a.app.sandbox!.setBalance(CLIENT, 'ETH', 'ETH', '10000');
  a.app.sandbox!.setBalance(CLIENT, 'DAI', 'ETH', '5000000');
  // Polling jobs run once at start: that refresh is done before the test moves the clock.
  await until('the first price refresh', () => a.app.deps.prices.state().calls > 0 && !refreshing(a));
  return a;
}
const refreshing = (a: TestApp) => {
  const s = a.app.deps.prices.state();
  return s.lastOkAt === undefined && s.lastProblem === undefined;
};

const refreshAt = clockedRefresh((t) => {
  clock = t;
});

/** The request of this amount (each test makes each amount once). */
const byAmount = (a: TestApp, amount: string): WithdrawalRequest =>
  a.app.deps.withdrawals.list().find((r) => r.amount === amount)!;
const cards = (a: TestApp) => a.fake.channel(CHANNELS.approvals).filter((m) => !m.thread_ts || m.thread_ts === m.ts);

async function request(a: TestApp, amount: string, currency = 'ETH', note = 'invoice 7') {
  const { responseUrl } = await a.command(
    '/withdraw',
    `${amount} ${currency} ETH ${DEST} ${CLIENT} ${note}`,
    USERS.alice,
  );
  return visibleText((await a.replies(responseUrl))[0]!);
}

async function approve(a: TestApp, user: string, id: string) {
  const c = await until('the card', () => cards(a).find((m) => JSON.stringify(m.blocks).includes(id)));
  const { res } = await a.click(
    user,
    { actionId: 'wd_approve', value: id },
    { channel: CHANNELS.approvals, message: { ts: c.ts, blocks: c.blocks } },
  );
  expect(res.status).toBe(200);
}

describe('a price is a claim', () => {
  it('a restart at $0.000001: the stored window keeps the price policy judges at, and the first answer is not believed alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'price-trust-'));
    dirs.push(dataDir);
    clock = T0;
    const first = await start({ policy: policy(), dataDir });
    await setPrices(first, { prices: { ETH: 3000 }, drift: false, feed: 'up' });
    await refreshAt(first, T0 + MIN);
    await first.stop();
    apps = [];

    const a = await start({ policy: policy(), dataDir });
    await setPrices(a, { prices: { ETH: 0.000001 }, drift: false, feed: 'up' });
    await refreshAt(a, T0 + 3 * MIN);
    // The first answer after the restart is measured against the stored last price: held, so unknown.
    expect(a.app.deps.prices.snapshot().held?.ETH).toMatch(/absurd/);
    await refreshAt(a, T0 + 5 * MIN);
    // Confirmed a minute later: the current price, but limits judge at the window's high (at least
    // the $3,000 of before the restart; the sandbox's start price may be higher still).
    await request(a, '100');
    const r = byAmount(a, '100');
    expect(r.valuation).toMatchObject({ kind: 'known', market: { usd: '0.01' }, judged: { basis: 'high' } });
    expect(Number((r.valuation as { usd: string }).usd)).toBeGreaterThanOrEqual(300_000);
    expect(r.tier).toMatchObject({ approvals: 3, mustInclude: [USERS.erin] });
    const card = await until('the card', () => cards(a)[0]);
    expect(visibleText(card)).toMatch(/judged at \$3,\d{3}\.\d\d, the highest price of the last 7 days/);
    // The current price with four significant digits below $10, not rounded to "$0.00".
    expect(visibleText(card)).toContain('_at $0.000001 (');
    // /treasury status lists the current price and the policy price.
    const { responseUrl } = await a.command('/treasury', 'status', USERS.erin);
    expect(visibleText((await a.replies(responseUrl))[0]!)).toMatch(
      /ETH \$0\.000001 \(.*\) · limits judge at \$3,\d{3}\.\d\d, the highest price of the last 7 days/,
    );
  });

  it('a first-ever price of 1e-7 for a stablecoin: valued at its peg for every limit', async () => {
    clock = T0;
    // A listing the feed has never given before (a new coin id): its first answer has no reference.
    const a = await start({ policy: policy('valuation: { ids: { DAI: fresh-dai } }') });
    await setPrices(a, { prices: { 'fresh-dai': 1e-7 }, drift: false, feed: 'up' });
    await refreshAt(a, T0 + MIN);
    await request(a, '2000000', 'DAI');
    const r = byAmount(a, '2000000');
    expect(r.valuation).toMatchObject({ kind: 'known', usd: '2000000.00', judged: { basis: 'peg' } });
    expect(r.tier.approvals).toBe(3);
    const card = await until('the card', () => cards(a)[0]);
    expect(visibleText(card)).toContain('judged at $1.00, the peg of DAI');
    expect(visibleText(card)).toContain('_at $0.0000001 (');
  });

  it('a crash held for three minutes: once believed, limits still judge at the high until it leaves the window', async () => {
    clock = T0;
    const a = await start({ policy: policy('valuation: { ids: { ETH: fresh-eth } }') });
    await setPrices(a, { prices: { 'fresh-eth': 60000 }, drift: false, feed: 'up' });
    await refreshAt(a, T0 + MIN);
    await setPrices(a, { prices: { 'fresh-eth': 1 } });
    await refreshAt(a, T0 + 2 * MIN); // held back
    await refreshAt(a, T0 + 3 * MIN); // confirmed: the current price
    await refreshAt(a, T0 + 5 * MIN);
    expect(a.app.deps.prices.snapshot().quotes.ETH?.price).toBe('1');
    await request(a, '5');
    const r = byAmount(a, '5');
    expect(r.valuation).toMatchObject({ kind: 'known', usd: '300000.00', market: { usd: '5.00' } });
    expect(r.tier.approvals).toBe(3);
    // Approved by one person, nothing is sent: the top tier needs three, Erin among them.
    await approve(a, USERS.carol, r.id);
    await until('one approval', () => byAmount(a, '5').approvals.length === 1);
    expect(byAmount(a, '5').state).toBe('pending');
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
  });

  it('a low-window request counts at its policy value at the send: the send is held, then released by an admin', async () => {
    clock = T0;
    const a = await start({
      policy: withPeople(`
withdrawals:
  tiers: { value: [{ approvals: 1 }] }
  daily_limit: { value: 250000 }
valuation: { ids: { ETH: fresh-eth } }
`),
    });
    // A first-ever price of $1: a low window.
    await setPrices(a, { prices: { 'fresh-eth': 1 }, drift: false, feed: 'up' });
    await refreshAt(a, T0 + MIN);
    await request(a, '100');
    const earlier = byAmount(a, '100');
    await request(a, '50');
    const later = byAmount(a, '50');
    expect(later.valuation).toMatchObject({ usd: '50.00' });
    // Prices return: believed once confirmed.
    await setPrices(a, { prices: { 'fresh-eth': 3000 } });
    await refreshAt(a, T0 + 2 * MIN);
    await refreshAt(a, T0 + 4 * MIN);
    await approve(a, USERS.carol, later.id);
    // The earlier request counts at $300,000 now, not the $100 it was worth when made.
    const held = await until('held', () => {
      const r = a.app.deps.withdrawals.get(later.id);
      return r?.hold?.kind === 'limit' && r;
    });
    expect(held.state).toBe('approved');
    expect(held.hold?.status).toBe("today's withdrawals would reach $450,000.00 of $250,000.00");
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    const card = await until('the card says held', () =>
      cards(a).find((m) => visibleText(m).includes('Held:') && JSON.stringify(m.blocks).includes(later.id)),
    );
    expect(visibleText(card)).toContain("Held:* today's withdrawals would reach $450,000.00 of $250,000.00");
    // The job tries it again: still over, still held, nothing sent.
    await a.app.deps.scheduler.runNow('withdrawals.expire-and-remind');
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    // An admin weighs it and sends it anyway: sent once.
    const released = await a.app.deps.withdrawals.settleHold(later.id, USERS.erin, 'release', 'checked with finance');
    expect(released.ok).toBe(true);
    await until('sent', () => a.app.deps.withdrawals.get(later.id)?.state === 'completed');
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
    expect(a.app.deps.withdrawals.get(earlier.id)?.state).toBe('pending');
  });

  it('a value that rose past step_up_above since the request: the Approve button asks for a code, as the decider will', async () => {
    clock = T0;
    const a = await start({
      policy: policy('  step_up_above: { value: 10000 }\nvaluation: { ids: { ETH: fresh-eth } }'),
    });
    await setPrices(a, { prices: { 'fresh-eth': 100 }, drift: false, feed: 'up' });
    await refreshAt(a, T0 + MIN);
    await request(a, '50'); // $5,000: no code needed when requested
    const r = byAmount(a, '50');
    await setPrices(a, { prices: { 'fresh-eth': 1000 } });
    await refreshAt(a, T0 + 2 * MIN);
    await refreshAt(a, T0 + 4 * MIN); // confirmed: $50,000 now
    const c = await until('the card', () => cards(a)[0]);
    const { responseUrl } = await a.click(
      USERS.carol,
      { actionId: 'wd_approve', value: r.id },
      { channel: CHANNELS.approvals, message: { ts: c.ts, blocks: c.blocks } },
    );
    const said = visibleText((await a.replies(responseUrl))[0]!);
    // The gate asks for a code (Carol has none set up), never the decider's "use the Approve button".
    expect(said).toContain('needs a code from an authenticator app, and you have not set one up yet');
    expect(a.app.deps.withdrawals.get(r.id)?.approvals).toHaveLength(0);
  });

  it('a value that rose into a tier with must_include: the person it names can approve, and it is sent once', async () => {
    clock = T0;
    const a = await start({
      policy: withPeople(`
withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 2 }
      - { approvals: 2, must_include: [${USERS.erin}] }
valuation: { ids: { ETH: fresh-eth } }
`),
    });
    await setPrices(a, { prices: { 'fresh-eth': 900 }, drift: false, feed: 'up' });
    await refreshAt(a, T0 + MIN);
    await request(a, '1');
    const r = byAmount(a, '1');
    await approve(a, USERS.carol, r.id);
    await until('one approval', () => a.app.deps.withdrawals.get(r.id)?.approvals.length === 1);
    await setPrices(a, { prices: { 'fresh-eth': 1500 } });
    await refreshAt(a, T0 + 2 * MIN);
    await refreshAt(a, T0 + 4 * MIN); // confirmed: $1,500, the tier that must include Erin
    await approve(a, USERS.erin, r.id);
    await until('sent', () => a.app.deps.withdrawals.get(r.id)?.state === 'completed');
    expect(a.app.deps.withdrawals.get(r.id)?.approvals.map((x) => x.satisfies)).toEqual([[], [USERS.erin]]);
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
  });
});
