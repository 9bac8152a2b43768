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
    for (const s of ['/address alice@client.com USDT BSC', '/withdraw', '/tx currency=USDT status=failed', '/tx export', '/treasury status']) {
      expect(text).toContain(s);
    }
    expect(await treasury('')).toContain('/address <client-email> <currency> <network>');
  });

  it('status shows the wallet login and token expiry, the store, and the version', async () => {
    const text = await treasury('status');
    expect(text).toMatch(/logged in as treasury@sandbox\.test; token expires \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(text).toMatch(/embedded sandbox \(http:\/\/127\.0\.0\.1:\d+\)/);
    expect(text).toMatch(/\d+ records · [\d.]+ (B|KiB|MiB) on disk/);
    expect(text).toMatch(/\*Version\*\n\d+\.\d+\.\d+/);
  });

  it('policy is for admins only', async () => {
    expect(await treasury('policy', USERS.viewer)).toContain('not allowed to use treasury admin commands');
    const text = await treasury('policy', USERS.erin);
    expect(text).toContain('Treasury policy');
    expect(text).toContain('<#C0APPROVALS>');
    expect(text).toMatch(/≤ 1000 → 1 approval/);
  });

  it('names the verbs it knows when given one it does not', async () => {
    const text = await treasury('frobnicate');
    expect(text).toContain('Unknown subcommand “frobnicate”');
    expect(text).toContain('`status`');
  });
});
