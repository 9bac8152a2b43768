/**
 * The `balance` rule, the whole app over HTTP: a request larger than the origin account's
 * balance is refused when it is made, the card shows the balance and what is left after it,
 * and the balance is checked again just before sending (drained meanwhile: not sent).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../helpers/fake-slack.js';
import {
  CHANNELS,
  startTestApp,
  USERS,
  visibleText,
  withdrawFormValues,
  type TestApp,
} from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const BALANCES = '/api/v1/walletBalance/originAccounts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function app(balance: string): Promise<TestApp> {
  t = await startTestApp({ sandbox: { seed: false } });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', balance);
  return t;
}

const cardText = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });
const card = (a: TestApp) => until('the card', () => a.fake.channel(CHANNELS.approvals)[0]);
const audit = async (a: TestApp) => {
  const { responseUrl } = await a.command('/treasury', 'audit', USERS.erin);
  return visibleText((await a.replies(responseUrl))[0]!);
};

async function request(a: TestApp, amount: string): Promise<string> {
  const { responseUrl } = await a.command('/withdraw', `${amount} USDT BSC ${DEST} ${CLIENT} invoice 7`, USERS.alice);
  return visibleText((await a.replies(responseUrl))[0]!);
}

async function approve(a: TestApp, user: string): Promise<void> {
  const id = a.app.deps.withdrawals.list()[0]!.id;
  const c = await card(a);
  const { res } = await a.click(
    user,
    { actionId: 'wd_approve', value: id },
    { channel: CHANNELS.approvals, message: { ts: c.ts, blocks: c.blocks } },
  );
  expect(res.status).toBe(200);
}

describe('the balance rule', () => {
  it('refuses a request larger than the balance, in words, audited, and creates nothing', async () => {
    const a = await app('1000');
    const reply = await request(a, '2500');
    expect(reply).toBe(':no_entry: Not requested: The balance is 1,000.00 USDT on BSC; this request is for 2,500.00.');
    expect(a.app.deps.withdrawals.list()).toEqual([]);
    expect(await audit(a)).toContain('🚫 not requested · 2,500.00 USDT on BSC');

    // The form shows it next to the amount.
    const res = await a.submitView(USERS.alice, {
      callbackId: 'wd_request_modal',
      values: withdrawFormValues({ amount: '1000.01', destination: DEST, client: CLIENT, note: 'invoice 7' }),
    });
    expect(res.json).toEqual({
      response_action: 'errors',
      errors: { wd_amount: 'The balance is 1,000.00 USDT on BSC; this request is for 1,000.01.' },
    });
  });

  it('the card shows the balance and the balance after the withdrawal', async () => {
    const a = await app('12500');
    await request(a, '2250');
    await until('the balance line', () =>
      cardText(a.fake.channel(CHANNELS.approvals)[0] ?? ({} as FakeMessage)).includes(
        'Balance: 12,500.00 USDT on BSC · after this withdrawal: 10,250.00',
      ),
    );
  });

  it('an unreadable balance at request time allows the request, and the card says so', async () => {
    const a = await app('12500');
    a.app.sandbox!.injectFault(BALANCES, { kind: 'status', status: 400 });
    const reply = await request(a, '50');
    expect(reply).toMatch(/^⏳ Requested/);
    const c = await until('the card', () => {
      const m = a.fake.channel(CHANNELS.approvals)[0];
      return m && cardText(m).includes('balance unavailable') && m;
    });
    expect(cardText(c)).toContain('the balance could not be read when it was requested');
    expect(a.app.deps.withdrawals.list()[0]!.balanceAtRequest).toMatchObject({ balance: null });
  });

  it('a balance read slower than Slack allows: the form is answered and the request made, flagged unreadable', async () => {
    const a = await app('12500');
    // Longer than the 2 s the request waits, shorter than the wallet client's own deadline.
    a.app.sandbox!.injectFault(BALANCES, { kind: 'delay', ms: 4_000 });
    const res = await a.submitView(USERS.alice, {
      callbackId: 'wd_request_modal',
      values: withdrawFormValues({ amount: '50', destination: DEST, client: CLIENT, note: 'invoice 8' }),
    });
    expect(res.status).toBe(200);
    expect(res.json).toBeUndefined();
    const [r] = a.app.deps.withdrawals.list();
    expect(r).toMatchObject({ state: 'pending', amount: '50', balanceAtRequest: { balance: null } });
    const c = await until('the card', () => {
      const m = a.fake.channel(CHANNELS.approvals)[0];
      return m && cardText(m).includes('the balance could not be read when it was requested') && m;
    });
    expect(cardText(c)).toContain('50.00 USDT');
  });

  it('an asset the service does not list is an unknown balance: allowed and flagged, never refused as 0', async () => {
    const a = await app('12500');
    const { responseUrl } = await a.command(
      '/withdraw',
      `50 USDT TRON TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf ${CLIENT}`,
      USERS.alice,
    );
    expect(visibleText((await a.replies(responseUrl))[0]!)).toMatch(/^⏳ Requested/);
    expect(a.app.deps.withdrawals.list()[0]).toMatchObject({ network: 'TRON', balanceAtRequest: { balance: null } });
    const c = await until('the card', () => {
      const m = a.fake.channel(CHANNELS.approvals)[0];
      return m && cardText(m).includes('the balance could not be read when it was requested') && m;
    });
    expect(cardText(c)).toContain('USDT on TRON: balance unavailable');
  });

  it('a balance drained between the approvals and the send: not sent, the card says why, audited', async () => {
    const a = await app('12500');
    await request(a, '5000'); // two approvals
    await approve(a, USERS.carol);
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100');
    await approve(a, USERS.dave);
    const id = a.app.deps.withdrawals.list()[0]!.id;
    await until('refused', () => a.app.deps.withdrawals.get(id)?.state === 'failed');
    expect(a.app.deps.withdrawals.get(id)!.error).toEqual({
      kind: 'not_sent',
      message: 'Not sent: the balance is 100.00 USDT on BSC; this request is for 5,000.00.',
    });
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    await until('the card', () =>
      cardText(a.fake.channel(CHANNELS.approvals)[0]!).includes(
        'Not sent: the balance is 100.00 USDT on BSC; this request is for 5,000.00.',
      ),
    );
    expect(await audit(a)).toContain('❌ failed · 5,000.00 USDT on BSC');
  });

  it('a balance that cannot be read just before sending does not stop the send (the service refuses overdrafts itself)', async () => {
    const a = await app('12500');
    await request(a, '50');
    a.app.sandbox!.injectFault(BALANCES, { kind: 'status', status: 400 });
    await approve(a, USERS.carol);
    const id = a.app.deps.withdrawals.list()[0]!.id;
    await until('sent', () => a.app.deps.withdrawals.get(id)?.state === 'completed');
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
    expect(a.app.sandbox!.stats.requests.filter((r) => r.path.startsWith(BALANCES)).length).toBeGreaterThanOrEqual(2);
  });
});
