/**
 * Money that moves in patterns (issue 39), end to end: the app against the embedded sandbox (its
 * price API driven over HTTP, tether at exactly $1), signed Slack requests in, the recording fake
 * Slack out, a clock the test moves. Rolling limits per destination and per requester, and the
 * extra approval for a first payment to a destination never paid before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatFiat } from '../../src/format/fiat.js';
import { Dec } from '../../src/money/decimal.js';
import { parsePolicy } from '../../src/policy/load.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { setPrices } from '../helpers/price-control.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const OTHER = '0x3333333333333333333333333333333333333333';
/** The clock runs (the outbox paces by it), moved forward by `offset`. */
let offset = 0;
const clock = () => Date.now() + offset;
const MIN = 60_000;
const HOUR = 60 * MIN;

const policy = (extra: string) =>
  parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people:
  requesters: [${USERS.alice}, ${USERS.bob}]
  approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]
  admins: [${USERS.erin}]
withdrawals:
  expires_after: 48h
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { max: 50000, approvals: 2 }
      - { approvals: 3, must_include: [${USERS.erin}] }
${extra}`);

const apps: TestApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.stop();
});

/** Moves the clock `ms` on, and refreshes the prices at the new time (a price older than 5 min is unknown). */
async function later(a: TestApp, ms: number): Promise<void> {
  offset += ms;
  const from = clock();
  for (let tries = 0; tries < 100; tries++) {
    await a.app.deps.scheduler.runNow('prices.refresh');
    if ((a.app.deps.prices.state().lastOkAt ?? 0) >= from) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no price refresh at the moved clock');
}

async function start(extra: string): Promise<TestApp> {
  offset = 0;
  const a = await startTestApp({ policy: policy(extra), now: clock, sandbox: { now: clock } });
  apps.push(a);
  a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '10000000');
  await until('the first price refresh', () => a.app.deps.prices.state().calls > 0);
  await setPrices(a, { prices: { tether: 1 }, drift: false, feed: 'up' });
  await later(a, MIN);
  return a;
}

/** A signed /withdraw; resolves with the words the requester read. */
async function request(a: TestApp, who: string, amount: string, dest = DEST): Promise<string> {
  const { responseUrl } = await a.command('/withdraw', `${amount} USDT BSC ${dest} ${CLIENT} invoice 7`, who);
  return visibleText((await a.replies(responseUrl))[0]!);
}

/** Every request, in the order made (the service lists the newest first). */
const made = (a: TestApp) => [...a.app.deps.withdrawals.list()].reverse();
const cards = (a: TestApp) => a.fake.channel(CHANNELS.approvals).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
async function cardOf(a: TestApp, id: string) {
  await a.app.deps.outbox.drain(5000);
  return until('the card', () => [...cards(a)].reverse().find((m) => JSON.stringify(m.blocks).includes(id)));
}

async function approve(a: TestApp, user: string, r: WithdrawalRequest) {
  const c = await cardOf(a, r.id);
  const { res } = await a.click(
    user,
    { actionId: 'wd_approve', value: r.id },
    { channel: CHANNELS.approvals, message: { ts: c.ts, blocks: c.blocks } },
  );
  expect(res.status).toBe(200);
}

describe('rolling limits', () => {
  it('three $20k payments to one address within 24 h against a $50k escalate rule: the third needs the top tier', async () => {
    const a = await start('  limits: [{ per: destination, window: 24h, value: 50000, action: escalate }]');
    await request(a, USERS.alice, '20000');
    await later(a, HOUR);
    await request(a, USERS.bob, '20000');
    // Another destination is another window: ordinary.
    await request(a, USERS.alice, '20000', OTHER);
    await later(a, 19 * HOUR);
    await request(a, USERS.alice, '20000');
    const [first, second, other, third] = made(a);
    expect([first, second, other].map((r) => r!.tier.approvals)).toEqual([2, 2, 2]);
    expect(third!.tier).toMatchObject({ approvals: 3, mustInclude: [USERS.erin], escalated: true });
    // Each $20k at the policy price of tether (at least its $1 peg; the sandbox's first answers drift a little).
    const each = Number((third!.valuation as { usd: string }).usd);
    const times = (n: number) => (n * each).toFixed(2);
    expect(third!.limits).toEqual([
      expect.objectContaining({ per: 'destination', used: times(3), limit: '50000', before: times(2), over: true }),
    ]);
    // The card shows the limit as used / limit, and why three approvals.
    const card = visibleText(await cardOf(a, third!.id));
    expect(card).toContain(`this destination, 24 h: ${formatFiat(times(3))} / $50,000.00`);
    expect(card).toContain('above $50,000.00: 3 approvals, raised to the top tier by a limit');
    expect(visibleText(await cardOf(a, second!.id))).toContain(`${formatFiat(times(2))} / $50,000.00`);

    // Two approvals are not enough; Erin's third sends it (judged again at each approval and at the send).
    await approve(a, USERS.carol, third!);
    await approve(a, USERS.dave, third!);
    await until('two approvals', () => a.app.deps.withdrawals.get(third!.id)!.approvals.length === 2);
    expect(a.app.deps.withdrawals.get(third!.id)!.state).toBe('pending');
    await approve(a, USERS.erin, third!);
    await until('sent', () => a.app.deps.withdrawals.get(third!.id)!.state === 'completed');

    // A day after the first it has left the window, but the second and third ($40k, one sent) are still
    // in it: a fourth $20k reaches $60k, escalated again.
    await later(a, 4 * HOUR);
    await request(a, USERS.bob, '20000');
    expect(made(a).at(-1)!.tier.escalated).toBe(true);
    expect(made(a).at(-1)!.limits?.[0]).toMatchObject({ before: times(2), used: times(3) });
  }, 60_000);

  it('a refuse rule per requester: the request is not made, and the message says which limit, how much is used and when room returns', async () => {
    const a = await start('  limits: [{ per: requester, window: 7d, value: 50000, action: refuse }]');
    await request(a, USERS.alice, '30000');
    await later(a, 2 * HOUR);
    const words = await request(a, USERS.alice, '25000', OTHER);
    expect(made(a)).toHaveLength(1);
    expect(words).toContain('The limit of $50,000.00 by one requester in 7 days');
    // At the policy price of tether (its $1 peg at least).
    const price = (made(a)[0]!.valuation as { price: string }).price;
    const at = (n: number) => formatFiat(new Dec(n).times(price).toFixed(2, Dec.ROUND_UP));
    expect(words).toContain(`${at(30000)} is already requested and this request is ${at(25000)}`);
    // Room returns when the first leaves the 7-day window.
    const back = new Date(Date.parse(made(a)[0]!.createdAt) + 7 * 24 * HOUR)
      .toISOString()
      .slice(0, 16)
      .replace('T', ' ');
    expect(words).toContain(`room for this request returns at ${back} UTC`);
    // Another requester has a window of their own.
    await request(a, USERS.bob, '25000', OTHER);
    expect(made(a)).toHaveLength(2);
    // Rejected requests leave the window: the same request then passes.
    await a.app.deps.withdrawals.reject(made(a)[0]!.id, USERS.dave, 'wrong invoice');
    await request(a, USERS.alice, '25000', OTHER);
    expect(made(a)).toHaveLength(3);
  }, 60_000);
});

describe('a destination never paid before', () => {
  it('a first payment of $5,000 to a new address needs one more approval; once paid, the next does not', async () => {
    const a = await start('  new_destination: { above: { value: 1000 }, extra_approvals: 1 }');
    await request(a, USERS.alice, '5000');
    const first = made(a)[0]!;
    expect(first.tier).toMatchObject({ approvals: 3, extra: 1 });
    expect(visibleText(await cardOf(a, first.id))).toContain(
      'up to $50,000.00: 3 approvals, 1 more for a destination never paid before',
    );
    await approve(a, USERS.carol, first);
    await approve(a, USERS.dave, first);
    await until('two approvals', () => a.app.deps.withdrawals.get(first.id)!.approvals.length === 2);
    expect(a.app.deps.withdrawals.get(first.id)!.state).toBe('pending');
    await approve(a, USERS.erin, first);
    await until('sent', () => a.app.deps.withdrawals.get(first.id)!.state === 'completed');
    // Paid before now: the tier's own two approvals.
    await request(a, USERS.alice, '5000');
    expect(made(a)[1]!.tier).toMatchObject({ approvals: 2 });
    expect(made(a)[1]!.tier.extra).toBeUndefined();
    // Below the threshold a new destination asks for nothing more.
    await request(a, USERS.alice, '500', OTHER);
    expect(made(a)[2]!.tier).toMatchObject({ approvals: 1 });
  }, 60_000);
});
