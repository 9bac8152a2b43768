/**
 * Webhooks through the whole app: registration with the wallet service at start and by
 * command, deposits from the sandbox becoming alerts in the routed channel, and withdrawal
 * webhooks reaching the approval card's thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { until } from '../helpers/wait.js';
import { CHANNELS, freePort, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';

const SECRET = 'wh_test_secret_0123456789abcdef';
const CLIENT = 'alerts@client.example';
let t: TestApp;

beforeAll(async () => {
  const port = await freePort();
  t = await startTestApp({
    env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, WEBHOOK_SECRET: SECRET },
    sandbox: { seed: false, webhook: { confirmAfterMs: 150, retryBaseMs: 50 } },
  });
});
afterAll(async () => {
  await t?.stop();
});

const text = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });

describe('webhook registration', () => {
  it('registers PUBLIC_URL/webhooks/wallet/<secret> at start, and status shows it without the secret', async () => {
    const url = await until('registration', () => t.app.sandbox!.webhook.url());
    expect(url).toBe(`${t.app.url.replace('localhost', '127.0.0.1')}/webhooks/wallet/${SECRET}`);
    const { responseUrl } = await t.command('/treasury', 'status', USERS.erin);
    const status = visibleText((await t.replies(responseUrl))[0]!);
    expect(status).toContain('/webhooks/wallet/••••, registered');
    expect(status).not.toContain(SECRET);
  });

  it('re-registers on /treasury webhook register (admins only)', async () => {
    const refused = await t.command('/treasury', 'webhook register', USERS.viewer);
    expect(visibleText((await t.replies(refused.responseUrl))[0]!)).toContain('not allowed');
    const before = t.app.sandbox!.stats.requests.filter((r) =>
      r.path.startsWith('/api/v1/merchant/remittancewebhook'),
    ).length;
    const ok = await t.command('/treasury', 'webhook register', USERS.erin);
    expect(visibleText((await t.replies(ok.responseUrl))[0]!)).toContain('Webhook registered');
    expect(
      t.app.sandbox!.stats.requests.filter((r) => r.path.startsWith('/api/v1/merchant/remittancewebhook')).length,
    ).toBe(before + 1);
  });
});

describe('deposit alerts', () => {
  it('a sandbox deposit becomes one alert in the routed channel, edited to confirmed, with a thread line', async () => {
    t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '0');
    const record = await t.app.sandbox!.deposit({
      to: CLIENT,
      amount: '12500.000001',
      currency: 'USDT',
      network: 'BSC',
    });
    const topLevel = () => t.fake.channel(CHANNELS.usdt).filter((x) => !x.thread_ts || x.thread_ts === x.ts);
    const alert = await until('the confirmed alert', () => {
      const m = topLevel()[0];
      return m && /confirmed/i.test(text(m)) && m;
    });
    const body = text(alert);
    expect(body).toContain('12,500.000001');
    expect(body).toContain('USDT');
    expect(body).toContain(CLIENT);
    expect(body).toContain(record.transactionHash.slice(0, 8));
    // A large deposit's @here is a short post of its own, once the wallet's history confirmed it
    // (an edit cannot ping, and the first post was only a claim): never in the alert itself.
    expect(body).not.toContain('<!here>');
    const here = await until('the @here post', () => topLevel().find((m) => text(m).includes('<!here>')));
    expect(text(here)).toContain('12,500.000001');
    expect(topLevel()).toHaveLength(2);
    await until('the status line in the thread', () => t.fake.thread(CHANNELS.usdt, alert.ts).length > 0);
    expect(t.fake.channel(CHANNELS.alerts)).toEqual([]);
  });
});

describe('withdrawal webhooks', () => {
  it('update the approval card thread as the transfer confirms', async () => {
    t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000');
    const { responseUrl } = await t.command(
      '/withdraw',
      `25 USDT BSC 0x3333333333333333333333333333333333333333 ${CLIENT}`,
      USERS.alice,
    );
    await t.replies(responseUrl);
    const card = await until('the card', () =>
      t.fake.channel(CHANNELS.approvals).find((m) => !m.thread_ts || m.thread_ts === m.ts),
    );
    const id = t.app.deps.withdrawals.list()[0]!.id;
    await t.click(
      USERS.carol,
      { actionId: 'wd_approve', value: id },
      { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
    );
    const line = await until('the transfer status line', () =>
      t.fake
        .thread(CHANNELS.approvals, card.ts)
        .find((m) => (m.text ?? '').includes('Transfer status from the wallet service: confirmed')),
    );
    expect(line).toBeDefined();
    const final = await until('the card with the transfer status', () => {
      const m = t.fake.channel(CHANNELS.approvals).find((x) => x.ts === card.ts)!;
      return text(m).includes('Transfer status: *confirmed*') && m;
    });
    expect(text(final)).toContain('*Sent*');
    expect(t.app.deps.withdrawals.get(id)?.confirmation?.status).toBe('CONFIRMED');
  });
});

describe('secrets', () => {
  it('keeps the webhook secret out of every log line', async () => {
    await new Promise((r) => setTimeout(r, 100));
    expect(t.logs()).toContain('webhook');
    expect(t.logs().includes(SECRET)).toBe(false);
  });
});
