/**
 * Values end to end (issue 24): the app started as in production against the embedded
 * sandbox, whose price API (`/simple/price`) is driven over HTTP (`POST /sandbox/prices`), with
 * a clock the test moves. Signed Slack requests in, the fake Slack out: a stale price, a feed
 * down, a spike, and a move across a tier between the approval and the send.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { until } from '../helpers/wait.js';
import { clockedRefresh, setPrices } from '../helpers/price-control.js';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const T0 = Date.now();

const POLICY = `
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people:
  requesters: [${USERS.alice}]
  approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]
  admins: [${USERS.erin}, ${USERS.dave}]
withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { max: 50000, approvals: 2 }
      - { approvals: 3, must_include: [${USERS.erin}] }
valuation: { max_age: 5m }
`;

let t: TestApp | undefined;
let clock = T0;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function app(): Promise<TestApp> {
  clock = T0;
  t = await startTestApp({ policy: parsePolicy(POLICY), now: () => clock, sandbox: { now: () => clock } });
  t.app.sandbox!.setBalance(CLIENT, 'ETH', 'ETH', '100');
  // The job's run at start (polling jobs run once at start): done before the test moves the clock.
  const a = t;
  await until('the first price refresh', () => a.app.deps.prices.state().lastOkAt !== undefined);
  return t;
}

const prices = (a: TestApp, body: Record<string, unknown>) => setPrices(a, body);
const refreshAt = clockedRefresh((t) => {
  clock = t;
});

const cards = (a: TestApp) => a.fake.channel(CHANNELS.approvals).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
const cardText = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });
const only = (a: TestApp): WithdrawalRequest => a.app.deps.withdrawals.list()[0]!;

async function request(a: TestApp, amount: string) {
  const { responseUrl } = await a.command('/withdraw', `${amount} ETH ETH ${DEST} ${CLIENT} invoice 7`, USERS.alice);
  return visibleText((await a.replies(responseUrl))[0]!);
}

async function approve(a: TestApp, user: string) {
  const c = cards(a)[0]!;
  const { res } = await a.click(
    user,
    { actionId: 'wd_approve', value: only(a).id },
    { channel: CHANNELS.approvals, message: { ts: c.ts, blocks: c.blocks } },
  );
  expect(res.status).toBe(200);
}

describe('values end to end', () => {
  it('values a request at the cached price, shows it on the card, and picks the tier by value', async () => {
    const a = await app();
    await prices(a, { prices: { ETH: 3000 }, drift: false, feed: 'up' });
    await refreshAt(a, T0 + 61_000);
    await request(a, '0.3');
    const r = only(a);
    // The current value; policy may judge at the window's higher price (the sandbox's start price), shown beside it.
    expect(r.valuation).toMatchObject({ kind: 'known', source: 'the embedded sandbox' });
    const v = r.valuation as Extract<typeof r.valuation, { kind: 'known' }>;
    expect(v.market?.usd ?? v.usd).toBe('900.00');
    expect(r.tier).toMatchObject({ approvals: 1, basis: 'value' });
    const c = await until('the card', () => cards(a)[0]);
    expect(cardText(c)).toContain('≈ $900.00');
    expect(cardText(c)).toContain('*Approvals* (up to $1,000.00: 1 approval)');
    // The audit line carries the price, its source and time.
    const audit = a.app.deps.store.all(AUDIT_COLLECTION);
    const recorded = audit.find((e) => e.action === 'request')?.details.value as {
      price: string;
      market?: { price: string };
    };
    expect(recorded.market?.price ?? recorded.price).toBe('3000');
  });

  it('a stale price (feed down past max_age) makes the value unknown: the top tier, flagged on the card, the state in /treasury status', async () => {
    const a = await app();
    await prices(a, { prices: { ETH: 3000 }, drift: false });
    await refreshAt(a, T0 + 61_000);
    await prices(a, { feed: 'down' });
    await refreshAt(a, T0 + 7 * 60_000);
    expect(a.logs()).toMatch(/price refresh failed/);
    await request(a, '0.01');
    const r = only(a);
    expect(r.valuation).toMatchObject({ kind: 'unknown' });
    expect(r.tier).toMatchObject({ approvals: 3, mustInclude: [USERS.erin] });
    const c = await until('the card', () => cards(a)[0]);
    expect(cardText(c)).toMatch(/Value unknown: no price since \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    const { responseUrl } = await a.command('/treasury', 'status', USERS.erin);
    const status = visibleText((await a.replies(responseUrl))[0]!);
    expect(status).toMatch(/\*Prices\*\n:red_circle: the embedded sandbox: no fresh price since/);
    expect(status).toMatch(/Last problem .*: the price source answered HTTP 503/);
  });

  it('refuses a spike (and a garbled answer), logs why, and values nothing until the move is confirmed or gone', async () => {
    const a = await app();
    await prices(a, { prices: { ETH: 3000 }, drift: false });
    await refreshAt(a, T0 + 61_000);
    await prices(a, { feed: 'spiky' });
    await refreshAt(a, T0 + 122_000);
    expect(a.logs()).toContain(
      '"ETH":"absurd: 200% away from the last accepted price 3000 in one answer (value unknown until a second answer confirms it)"',
    );
    expect(a.logs()).toContain('some prices refused');
    await prices(a, { feed: 'invalid' });
    await refreshAt(a, T0 + 183_000);
    expect(a.logs()).toMatch(/"reason":"not the documented shape \([a-z-]+\.usd: [^"]+\)","msg":"price answer refused/);
    // Neither the spike nor the price before it is believed: the value is unknown, the top tier.
    await request(a, '0.3');
    expect(only(a).valuation).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/^price held back/) });
    expect(only(a).tier.approvals).toBe(3);
    // Back at the old level: believed again at once.
    await prices(a, { feed: 'up' });
    await refreshAt(a, T0 + 244_000);
    expect(a.app.deps.prices.state().fresh).toContain('ETH');
  });

  it('a move across a tier between the approval and the send waits for the approvals it now needs, then sends once', async () => {
    const a = await app();
    await prices(a, { prices: { ETH: 3000 }, drift: false });
    await refreshAt(a, T0 + 61_000);
    await request(a, '0.3'); // $900: one approval
    await prices(a, { prices: { ETH: 4000 } });
    await refreshAt(a, T0 + 122_000); // $1,200 now: the two-approval tier
    // The rule table judges the approval at the value now: it counts toward the two-approval tier.
    await approve(a, USERS.carol);
    const waiting = await until('one of two', () => only(a).approvals.length === 1 && only(a));
    expect(waiting).toMatchObject({ state: 'pending', tier: { approvals: 2 } });
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    const approval = a.app.deps.store.all(AUDIT_COLLECTION).find((e) => e.action === 'approve');
    expect(approval?.details).toMatchObject({ approvals: 1, required: 2 });
    await approve(a, USERS.dave);
    await until('sent', () => only(a).state === 'completed');
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
  });

  it('/treasury balances shows each balance in value and a total; unknown without fresh prices', async () => {
    const a = await app();
    const { responseUrl } = await a.command('/treasury', 'balances', USERS.erin);
    const text = visibleText((await a.replies(responseUrl))[0]!);
    expect(text).toMatch(/\*ETH\* on ETH: [\d,.]+ ETH · ≈ \$[\d,]+\.\d\d/);
    expect(text).toMatch(/\*Total ≈ \$[\d,]+\.\d\d\*/);
    await prices(a, { feed: 'down' });
    await refreshAt(a, T0 + 7 * 60_000);
    const later = await a.command('/treasury', 'balances', USERS.erin);
    const unknown = visibleText((await a.replies(later.responseUrl))[0]!);
    expect(unknown).toMatch(/\*Total:\* value unknown \(no price since/);
  });
});
