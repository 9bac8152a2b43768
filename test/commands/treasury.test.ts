import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

async function treasury(text: string, user: string = USERS.viewer) {
  const { res, responseUrl } = await t.command('/treasury', text, user);
  expect(res.status).toBe(200);
  const [reply] = await t.replies(responseUrl);
  return visibleText(reply!);
}

describe('/treasury', () => {
  it('help lists every command with examples', async () => {
    const text = await treasury('help');
    for (const s of [
      '/address alice@client.com USDT BSC',
      '/withdraw',
      '/tx currency=USDT status=failed',
      '/tx export',
      '/treasury status',
    ]) {
      expect(text).toContain(s);
    }
    expect(await treasury('')).toContain('/address <client-email> <currency> <network>');
  });

  it('status for an admin shows the wallet login and token expiry, the store, pending approvals, the webhook, and the version', async () => {
    const r = await t.app.deps.withdrawals.request(
      {
        amount: '10',
        currency: 'USDT',
        network: 'BSC',
        destination: '0x5555555555555555555555555555555555555555',
        clientEmail: 'status@client.example',
      },
      USERS.alice,
    );
    expect(r.ok).toBe(true);
    const text = await treasury('status', USERS.erin);
    expect(text).toContain('*Pending approvals*\n1');
    // With the embedded sandbox the loopback URL is registered, its secret hidden.
    expect(text).toMatch(
      /\*Webhook\*\n:large_green_circle: http:\/\/127\.0\.0\.1:\d+\/webhooks\/wallet\/••••, registered/,
    );
    expect(text).toMatch(/logged in as treasury@sandbox\.test; token expires \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(text).toMatch(/embedded sandbox \(http:\/\/127\.0\.0\.1:\d+\)/);
    expect(text).toMatch(/\d+ records · [\d.]+ (B|KiB|MiB) on disk/);
    expect(text).toMatch(/\*Version\*\n\d+\.\d+\.\d+/);

    // Anyone else: one line in words, no account, URL, queue or store details.
    const line = await treasury('status', USERS.viewer);
    expect(line).toBe(
      `:large_green_circle: All systems normal. ${t.app.deps.withdrawals.pendingCount()} withdrawal${t.app.deps.withdrawals.pendingCount() === 1 ? ' is' : 's are'} waiting for approval.`,
    );
    expect(line).not.toMatch(/sandbox|http|token|records|Outbox|Slack mode/i);
  });

  it('status for a non-admin says what is wrong, in words, on one line', async () => {
    // The wallet service refuses the webhook registration: deposits would no longer be notified.
    t.app.sandbox!.injectFault('/api/v1/merchant/remittancewebhook', { kind: 'status', status: 400 }, 10);
    const r = await t.app.deps.registerWebhook(USERS.erin);
    t.app.sandbox!.clearFaults();
    expect(r.ok).toBe(false);
    const line = await treasury('status', USERS.viewer);
    expect(line).toMatch(
      /^:red_circle: The wallet service cannot notify us of deposits \(an admin can see why with `\/treasury status`\)\.( \d+ withdrawals? (is|are) waiting for approval\.)?$/,
    );
    expect(line).not.toMatch(/http|webhooks\/wallet|400|sandbox/i);
    // The admin sees the details.
    expect(await treasury('status', USERS.erin)).toMatch(/\*Webhook\*\n:red_circle: registration failed/);
    expect((await t.app.deps.registerWebhook(USERS.erin)).ok).toBe(true);
    expect(await treasury('status', USERS.viewer)).toMatch(/^:large_green_circle: All systems normal\./);
  });

  it('policy is for admins only', async () => {
    expect(await treasury('policy', USERS.viewer)).toContain('not allowed to use treasury admin commands');
    const text = await treasury('policy', USERS.erin);
    expect(text).toContain('Treasury policy');
    expect(text).toContain('<#C0APPROVALS>');
    expect(text).toContain(
      '*Any other currency*: up to 1,000: 1 approval; up to 10,000: 2 approvals; above 10,000: 3 approvals, including <@U0ERIN001>',
    );
    expect(text).toContain('*Daily limits (rolling 24 h)* 50,000.00 USDT');
    // The allowlist: its mode in words, and each address shortened, with its label and network.
    expect(text).toContain(
      '*Allowlist* (warn: unlisted destinations are allowed, with a warning on the card; a newly approved address is usable 24 h after its approval)',
    );
    // The gates' thresholds, per currency.
    expect(text).toContain('*Authenticator code needed to approve above* none');
    expect(text).toContain('*Low-balance alert below* none');
    expect(text).toContain('• Exchange hot wallet: `0x111111…111111` on BSC (BEP-20)');
  });

  it('names the verbs it knows when given one it does not', async () => {
    const text = await treasury('frobnicate');
    expect(text).toContain('Unknown subcommand “frobnicate”');
    expect(text).toContain('`status`');
  });
});

describe('/treasury digest', () => {
  it('sums the last 24 hours per currency as decimals, and counts failures and waiting approvals', async () => {
    const now = Date.now();
    t.app.sandbox!.resetTransactions([
      {
        transactionType: 'Deposit',
        currency: 'USDT',
        network: 'BSC',
        amount: '0.1',
        transactionTimeStamp: now - 60_000,
      },
      {
        transactionType: 'Deposit',
        currency: 'USDT',
        network: 'BSC',
        amount: '0.2',
        transactionTimeStamp: now - 120_000,
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
        currency: 'ETH',
        network: 'ETH',
        amount: '0.000000000000000001',
        transactionTimeStamp: now - 240_000,
      },
      {
        transactionType: 'Deposit',
        transactionStatus: 'FAILED',
        currency: 'ETH',
        network: 'ETH',
        amount: '5',
        transactionTimeStamp: now - 300_000,
      },
      {
        transactionType: 'Deposit',
        currency: 'USDT',
        network: 'BSC',
        amount: '999',
        transactionTimeStamp: now - 2 * 86_400_000,
      },
    ]);
    const valued = await treasury('digest');
    // Each amount carries its value at the sandbox's drifting prices: the sums are compared without it.
    expect(valued).toMatch(/0\.30 USDT \(≈ \$[\d,.]+\) in/);
    const text = valued.replace(/ \(≈ \$[\d,.]+\)/g, '');
    expect(text).toContain('*USDT*: 2 deposits confirmed, 0.30 USDT in · 1 withdrawal confirmed, 1,000.50 USDT out');
    expect(text).toContain(
      '*ETH*: 1 deposit confirmed, 0.000000000000000001 ETH in · 0 withdrawals confirmed, 0 ETH out · :x: 1 failed',
    );
    expect(text).toContain(`*Waiting for approval*: ${t.app.deps.withdrawals.pendingCount()}`);
    expect(text).toContain('From 5 transactions in the wallet');
  });
});
