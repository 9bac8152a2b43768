/**
 * Where balances and a withdrawal's story show, through signed Slack requests: `/treasury
 * balances`, the App Home's balances section, and `/treasury withdrawal <reference>`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import { eventCallback, sendToBolt } from '../helpers/slack-requests.js';
import { CHANNELS, startTestApp, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const policy = parsePolicy(`${TEST_POLICY_YAML}  low_balance: { USDT: 1000 }\n`);

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function app(): Promise<TestApp> {
  t = await startTestApp({ policy, sandbox: { seed: false, webhook: { confirmAfterMs: 20, retryBaseMs: 20 } } });
  const sb = t.app.sandbox!;
  sb.setBalance(CLIENT, 'USDT', 'BSC', '12500');
  sb.setBalance('other@client.example', 'USDT', 'BSC', '0.5');
  sb.setBalance(CLIENT, 'USDT', 'TRON', '800');
  sb.setBalance(CLIENT, 'ETH', 'ETH', '0.123456789012345678');
  return t;
}

async function say(a: TestApp, text: string, user: string = USERS.viewer): Promise<string> {
  const { responseUrl } = await a.command('/treasury', text, user);
  return visibleText((await a.replies(responseUrl))[0]!);
}

describe('/treasury balances', () => {
  it('lists every balance, summed over the clients, exact, flagged below the low-balance threshold', async () => {
    const a = await app();
    const text = await say(a, 'balances');
    expect(text).toContain('*ETH* on ETH: 0.123456789012345678 ETH');
    expect(text).toContain('*USDT* on BSC: 12,500.50 USDT');
    expect(text).toContain(':warning: *USDT* on TRON: 800.00 USDT (below 1,000.00 USDT)');
    expect(text).toMatch(/Read from the wallet service at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  });

  it('a forged deposit notification (999,999 USDT, never in the wallet) changes no balance', async () => {
    const a = await app();
    const before = await say(a, 'balances');
    const url = await until('the webhook URL registered', () => a.app.sandbox!.webhook.url());
    const body = `{"TransactionType":1,"Data":{"Amount":999999,"Currency":4,"NetworkChain":"BSC","Status":3,"MerchantClient":{"Email":"${CLIENT}"},"TransactionHash":"0x${'e'.repeat(64)}"}}`;
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(r.status).toBe(200);
    await a.app.deps.outbox.drain();
    const after = await say(a, 'balances');
    expect(after).toContain('*USDT* on BSC: 12,500.50 USDT');
    expect(after.replace(/at \d{4}-\d\d-\d\d \d\d:\d\d UTC/, '')).toBe(
      before.replace(/at \d{4}-\d\d-\d\d \d\d:\d\d UTC/, ''),
    );
  });

  it('says so, in words, when the wallet service cannot be read', async () => {
    const a = await app();
    await a.app.deps.scheduler.runNow('balances.watch-low'); // the run at start reads the balances too
    a.app.sandbox!.injectFault('/api/v1/walletBalance', { kind: 'status', status: 400 });
    expect(await say(a, 'balances')).toMatch(/^:no_entry: Reading the balances was refused by the wallet service/);
  });

  it('is for viewers: someone outside the policy is refused', async () => {
    const a = await app();
    expect(await say(a, 'balances', USERS.outsider)).toMatch(/not allowed/i);
  });
});

describe('App Home', () => {
  it('shows the balances section', async () => {
    const a = await app();
    const res = await sendToBolt(
      a.app.url,
      a.signingSecret,
      eventCallback({ event: { type: 'app_home_opened', user: USERS.viewer, channel: 'D0HOME', tab: 'home' } }),
    );
    expect(res.status).toBe(200);
    const call = await a.fake.waitFor('views.publish', (c) => c.args.user_id === USERS.viewer);
    const home = visibleText(call.args.view as { blocks: unknown });
    expect(home).toContain('*Balances*\n• *ETH* on ETH: 0.123456789012345678 ETH');
    expect(home).toContain('• :warning: *USDT* on TRON: 800.00 USDT (below 1,000.00 USDT)');
  });
});

describe('/treasury withdrawal <reference>', () => {
  it("tells a request's whole story: request, each decision, the send, the service's status now, the notifications", async () => {
    const a = await app();
    const { responseUrl } = await a.command('/withdraw', `5000 USDT BSC ${DEST} ${CLIENT} invoice 7`, USERS.alice);
    await a.replies(responseUrl);
    const r = a.app.deps.withdrawals.list()[0]!;
    for (const user of [USERS.carol, USERS.dave]) {
      const card = await until('the card', () => a.fake.channel(CHANNELS.approvals)[0]);
      await a.click(
        user,
        { actionId: 'wd_approve', value: r.id },
        { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
      );
    }
    await until('confirmed by webhook', () => a.app.deps.withdrawals.get(r.id)?.confirmation?.status === 'CONFIRMED');
    // The service's own word can come before the CONFIRMED notification is recorded (asked after the
    // pending one): the story is read once that notification is in the audit log too.
    await until('the confirmed notification recorded', () =>
      a.app.deps.store
        .all(AUDIT_COLLECTION)
        .some((e) => e.subject === r.id && e.action === 'webhook' && e.details.status === 'CONFIRMED'),
    );

    const story = await say(a, `withdrawal ${r.merchantReference.slice(0, 8)}`);
    const lines = story.split('\n');
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    const steps = [
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC · Requested by <@U0ALICE01>: 5,000.00 USDT on BSC to `0x2222222222222222222222222222222222222222`, from the wallet of payouts@client.example \(“invoice 7”\)$/,
      /· ✅ Approved by <@U0CAROL01> \(1 of 2\)$/,
      /· ✅ Approved by <@U0DAVE001> \(2 of 2\)$/,
      /· 🔄 Sent to the wallet service with merchant reference `/,
      /· ✅ The wallet service accepted it: delivered 5,000.00 USDT, fee 1.00 USDT$/,
      /· 📨 Notification from the wallet service: pending/,
      /· 📨 Notification from the wallet service: confirmed · transaction `0x/,
    ];
    const positions = steps.map(at);
    expect(
      positions.every((p) => p >= 0),
      story,
    ).toBe(true);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    expect(story).toContain('*Wallet service status now*: ✅ completed · 5,000.00 USDT · transaction `0x');
    expect(story).toContain(`Merchant reference \`${r.merchantReference}\``);
    expect(lines.slice(0, 2)).toEqual([
      `Withdrawal ${r.merchantReference.slice(0, 8)}: ✅ Sent · 5,000.00 USDT on BSC`,
      '✅ Sent · 5,000.00 USDT on BSC',
    ]);
  });

  it("tells a gate's decision in the audit's words, never its raw action name", async () => {
    const a = await app();
    expect(await say(a, 'freeze API key may have leaked', USERS.erin)).toContain('Sends are frozen');
    const { responseUrl } = await a.command('/withdraw', `50 USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
    await a.replies(responseUrl);
    const r = a.app.deps.withdrawals.list()[0]!;
    const card = await until('the card', () => a.fake.channel(CHANNELS.approvals)[0]);
    await a.click(
      USERS.carol,
      { actionId: 'wd_approve', value: r.id },
      { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
    );
    await until('approved', () => a.app.deps.withdrawals.get(r.id)?.state === 'approved');
    await until(
      'the hold audited',
      () => a.app.deps.store.find(AUDIT_COLLECTION, (e) => e.subject === r.id && e.action === 'send_held').length > 0,
    );
    const story = await say(a, `withdrawal ${r.merchantReference}`);
    expect(story).toMatch(/UTC · ⏸️ held, not sent: sends are frozen$/m);
    expect(story).not.toContain('send_held');
  });

  it('finds nothing, refuses what is not a reference, and asks for one', async () => {
    const a = await app();
    expect(await say(a, 'withdrawal abcdef12')).toBe(':mag: No withdrawal request has the reference “abcdef12”.');
    expect(await say(a, 'withdrawal <script>')).toMatch(
      /^:warning: “.*” is not a reference: a reference has only letters/,
    );
    expect(await say(a, 'withdrawal')).toMatch(/^:warning: Which withdrawal\?/);
  });

  it('a request never sent: the service is not asked', async () => {
    const a = await app();
    const { responseUrl } = await a.command('/withdraw', `50 USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
    await a.replies(responseUrl);
    const r = a.app.deps.withdrawals.list()[0]!;
    const before = a.app.sandbox!.stats.requests.length;
    const story = await say(a, `withdrawal ${r.merchantReference}`);
    expect(story).toContain('*Wallet service status now*: not asked: this request was never sent');
    expect(a.app.sandbox!.stats.requests.slice(before).some((q) => q.path.includes('/status/'))).toBe(false);
  });
});
