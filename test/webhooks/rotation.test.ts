/**
 * `/treasury webhook rotate` through the real receiver and real HTTP (issue 20, point 5): a new
 * secret registered with the sandbox, the old webhook and verification URLs accepted for the
 * overlap and refused after it (404 like any wrong secret), the admins told, the audit written,
 * and no part of either secret in status, replies or logs. With WEBHOOK_SECRET configured the
 * verb explains how to rotate in the environment, and WEBHOOK_SECRET_PREVIOUS is accepted for
 * the overlap only (a restart does not open it again).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { recentAudit } from '../../src/audit/index.js';
import { createLogger } from '../../src/log.js';
import { secrets as scrubbed } from '../../src/secrets.js';
import { openStore } from '../../src/store/index.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import { openWebhookSecrets, ROTATION_OVERLAP_MS } from '../../src/webhooks/secrets.js';
import { SETTINGS } from '../../src/webhooks/settings.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

let t: TestApp | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.stop();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A clock the test moves forward (the overlap is judged on the app's clock). */
function clock() {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms: number) => {
      offset += ms;
    },
  };
}

async function reply(a: TestApp, text: string, user: string = USERS.erin): Promise<string> {
  const { responseUrl } = await a.command('/treasury', text, user);
  return visibleText((await a.replies(responseUrl))[0]!);
}

const secretOf = (url: string | undefined) => decodeURIComponent(/\/webhooks\/wallet\/([^/]+)$/.exec(url ?? '')![1]!);

/** A notification as the service might send it (its shape does not matter to the secret check). */
async function notify(a: TestApp, secret: string): Promise<number> {
  const res = await fetch(`${a.app.url}/webhooks/wallet/${encodeURIComponent(secret)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ TransactionType: 1, Data: { Status: 2, Amount: '1', Currency: 4, NetworkChain: 'BSC' } }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function verifyCall(a: TestApp, secret: string): Promise<number> {
  const res = await fetch(`${a.app.url}/webhooks/wallet/${encodeURIComponent(secret)}/verify?reference=rotation-check`);
  await res.arrayBuffer();
  return res.status;
}

/** True when no 6-character piece of `secret` appears in `text` (no part of it is shown). */
function showsNoPart(text: string, secret: string): boolean {
  for (let i = 0; i + 6 <= secret.length; i++) if (text.includes(secret.slice(i, i + 6))) return false;
  return true;
}

describe('/treasury webhook rotate (generated secret)', () => {
  it('registers a new URL, accepts the old one (and its verification URL) for the overlap, then refuses it', async () => {
    const c = clock();
    t = await startTestApp({ now: c.now, sandbox: { seed: false } });
    const a = t;
    const oldSecret = secretOf(await until('the startup registration', () => a.app.sandbox!.webhook.url()));

    // Admins only.
    expect(await reply(a, 'webhook rotate', USERS.carol)).toContain('not allowed');
    expect(a.app.sandbox!.webhook.url()).toContain(oldSecret);

    const said = await reply(a, 'webhook rotate');
    expect(said).toContain('Webhook secret rotated');
    expect(said).toContain('The new URL is registered with the wallet service');
    expect(said).toContain('/treasury verification-url');
    const newSecret = secretOf(a.app.sandbox!.webhook.url());
    expect(newSecret).not.toBe(oldSecret);
    expect(newSecret.length).toBeGreaterThanOrEqual(24);
    expect(showsNoPart(said, oldSecret) && showsNoPart(said, newSecret)).toBe(true);

    // During the overlap both URLs are accepted, and both verification URLs answer.
    expect(await notify(a, oldSecret)).toBe(200);
    expect(await notify(a, newSecret)).toBe(200);
    expect(await verifyCall(a, oldSecret)).toBe(200);
    expect(await verifyCall(a, newSecret)).toBe(200);
    expect(await notify(a, 'not-the-secret-at-all-0123456789')).toBe(404);

    // Status: the overlap is shown, no part of either secret.
    const status = await reply(a, 'status');
    expect(status).toMatch(/\/webhooks\/wallet\/••••, registered .* \(rotate with `\/treasury webhook rotate`\)/);
    expect(status).toContain('/webhooks/wallet/••••/verify');
    expect(status).toContain('still accepted until');
    expect(showsNoPart(status, oldSecret)).toBe(true);
    expect(showsNoPart(status, newSecret)).toBe(true);

    // Audited, and every admin (a person) told by DM.
    const audit = recentAudit(a.app.deps.store, 50).find((e) => e.action === 'webhook_rotate');
    expect(audit).toMatchObject({ actor: USERS.erin, subject: 'webhook' });
    expect(showsNoPart(JSON.stringify(audit), oldSecret) && showsNoPart(JSON.stringify(audit), newSecret)).toBe(true);
    const dm = await until('the admins’ notice', () =>
      a.fake.channel(a.fake.dmChannel(USERS.erin)).find((m) => visibleText(m).includes('rotated the webhook secret')),
    );
    expect(visibleText(dm)).toContain(`<@${USERS.erin}> rotated the webhook secret`);
    expect(showsNoPart(visibleText(dm), newSecret)).toBe(true);
    expect(a.fake.channel(a.fake.dmChannel(USERS.carol))).toEqual([]);

    // After the overlap: the old URL and its verification URL are refused like any wrong secret.
    c.advance(ROTATION_OVERLAP_MS + 60_000);
    expect(await notify(a, oldSecret)).toBe(404);
    expect(await verifyCall(a, oldSecret)).toBe(404);
    expect(await notify(a, newSecret)).toBe(200);
    expect(await verifyCall(a, newSecret)).toBe(200);
    expect(await reply(a, 'status')).not.toContain('still accepted until');

    // The wallet service's verification calls follow the new URL: a withdrawal is still verified and sent.
    const client = 'rotation@client.example';
    const dest = '0x2222222222222222222222222222222222222222';
    a.app.sandbox!.setBalance(client, 'USDT', 'BSC', '1000');
    await a.command('/withdraw', `25 USDT BSC ${dest} ${client} after rotation`, USERS.alice);
    const r = await until('the request', () => a.app.deps.withdrawals.list()[0]);
    const card = await until('the card', () =>
      a.fake.channel(CHANNELS.approvals).find((m) => m.text?.includes(r.merchantReference.slice(0, 8))),
    );
    await a.click(
      USERS.carol,
      { actionId: ACTIONS.approve, value: r.id },
      { channel: CHANNELS.approvals, message: { ts: card.ts } },
    );
    await until('sent', () => a.app.deps.withdrawals.get(r.id)?.state === 'completed');
    expect(a.app.sandbox!.stats.verifications).toEqual([{ reference: r.merchantReference, verified: true }]);

    // No secret, old or new, in any log line.
    await new Promise((res) => setTimeout(res, 100));
    expect(a.logs()).toContain('webhook');
    expect(a.logs().includes(oldSecret)).toBe(false);
    expect(a.logs().includes(newSecret)).toBe(false);
  });
});

describe('/treasury webhook rotate: overlaps and restarts (generated secret)', () => {
  it('a second rotation within the overlap refuses the oldest secret at once', async () => {
    t = await startTestApp({ sandbox: { seed: false } });
    const a = t;
    const first = secretOf(await until('the startup registration', () => a.app.sandbox!.webhook.url()));
    expect(await reply(a, 'webhook rotate')).toContain('Webhook secret rotated');
    const second = secretOf(a.app.sandbox!.webhook.url());
    expect(await notify(a, first)).toBe(200);
    expect(await reply(a, 'webhook rotate')).toContain('Webhook secret rotated');
    const third = secretOf(a.app.sandbox!.webhook.url());
    expect(new Set([first, second, third]).size).toBe(3);
    expect(await notify(a, first)).toBe(404);
    expect(await verifyCall(a, first)).toBe(404);
    expect(await notify(a, second)).toBe(200);
    expect(await notify(a, third)).toBe(200);
  });

  it('a restart during the overlap keeps its end and the new secret', async () => {
    const c = clock();
    const dataDir = mkdtempSync(join(tmpdir(), 'rotation-restart-'));
    dirs.push(dataDir);
    t = await startTestApp({ now: c.now, dataDir, sandbox: { seed: false } });
    let a = t;
    const oldSecret = secretOf(await until('the startup registration', () => a.app.sandbox!.webhook.url()));
    await reply(a, 'webhook rotate');
    const newSecret = secretOf(a.app.sandbox!.webhook.url());
    c.advance(6 * 60_000);
    await a.stop();
    t = await startTestApp({ now: c.now, dataDir, sandbox: { seed: false } });
    a = t;
    // The restart registers the new URL again, not the old one.
    expect(secretOf(await until('the startup registration', () => a.app.sandbox!.webhook.url()))).toBe(newSecret);
    expect(await notify(a, oldSecret)).toBe(200);
    expect(await reply(a, 'status')).toContain('still accepted until');
    c.advance(5 * 60_000);
    expect(await notify(a, oldSecret)).toBe(404);
    expect(await verifyCall(a, oldSecret)).toBe(404);
    expect(await notify(a, newSecret)).toBe(200);
    expect(a.logs().includes(oldSecret) || a.logs().includes(newSecret)).toBe(false);
  });

  it('keeps the previous secret out of the logs after a restart, however long ago its overlap ended', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rotation-scrub-'));
    dirs.push(dataDir);
    const store = await openStore({ dir: dataDir });
    const old = `old-${randomBytes(18).toString('base64url')}`;
    await store.commit((tx) => {
      tx.put(SETTINGS, 'webhookSecret', { value: `cur-${randomBytes(18).toString('base64url')}` });
      tx.put(SETTINGS, 'webhookSecretPrevious', { value: old, until: new Date(Date.now() - 86_400_000).toISOString() });
    });
    expect(scrubbed.scrub(`GET /webhooks/wallet/${old}`)).toContain(old);
    const hooks = await openWebhookSecrets({
      configured: undefined,
      store,
      keys: { key: randomBytes(32) },
      logger: createLogger({ level: 'silent' }),
      now: Date.now,
    });
    expect(hooks.accepted()).not.toContain(old);
    expect(scrubbed.scrub(`GET /webhooks/wallet/${old}`)).toBe('GET /webhooks/wallet/[REDACTED]');
    await store.close();
  });
});

describe('/treasury webhook register and rotate, one at a time', () => {
  const registrations = (a: TestApp) =>
    a.app.sandbox!.stats.requests.filter((r) => r.path.startsWith('/api/v1/merchant/remittancewebhook')).length;
  // The stored record is sealed: the current secret as the app reads it, from its verification URL.
  const currentSecret = (a: TestApp) => secretOf(a.app.deps.verificationUrl()?.replace(/\/verify$/, ''));
  const REGISTRATION = '/api/v1/merchant/remittancewebhook';

  it('a slow registration started before a rotation cannot leave the service with the old URL', async () => {
    t = await startTestApp({ sandbox: { seed: false } });
    const a = t;
    const oldSecret = secretOf(await until('the startup registration', () => a.app.sandbox!.webhook.url()));
    const before = registrations(a);
    // The wallet service holds the registration's answer; the rotation is asked for meanwhile.
    a.app.sandbox!.injectFault(REGISTRATION, { kind: 'delay', ms: 1500 }, 1);
    const register = await a.command('/treasury', 'webhook register', USERS.erin);
    await until('the slow registration in flight', () => registrations(a) > before || undefined);
    const rotate = await a.command('/treasury', 'webhook rotate', USERS.erin);
    const [registered] = await a.replies(register.responseUrl, 1, 8000);
    const [rotated] = await a.replies(rotate.responseUrl, 1, 8000);
    expect(visibleText(registered!)).toContain('Webhook registered');
    expect(visibleText(rotated!)).toContain('The new URL is registered with the wallet service');
    // The service ends with the current URL, and status does not claim otherwise.
    const newSecret = currentSecret(a);
    expect(newSecret).not.toBe(oldSecret);
    expect(secretOf(a.app.sandbox!.webhook.url())).toBe(newSecret);
    const status = await reply(a, 'status');
    expect(status).toMatch(/\/webhooks\/wallet\/••••, registered/);
    expect(status).not.toContain('not the current one');
  });

  it('registers again when the secret changed under a registration, and status says when the registered URL is stale', async () => {
    t = await startTestApp({ sandbox: { seed: false } });
    const a = t;
    await until('the startup registration', () => a.app.sandbox!.webhook.url());
    const replace = () =>
      a.app.deps.store.commit((tx) =>
        tx.put(SETTINGS, 'webhookSecret', { value: `swapped-${randomBytes(18).toString('base64url')}` }),
      );

    // Changed while the answer was held: the URL sent is no longer current, so the current one is sent.
    const before = registrations(a);
    a.app.sandbox!.injectFault(REGISTRATION, { kind: 'delay', ms: 1000 }, 1);
    const register = await a.command('/treasury', 'webhook register', USERS.erin);
    await until('the slow registration in flight', () => registrations(a) > before || undefined);
    await replace();
    await a.replies(register.responseUrl, 1, 8000);
    expect(secretOf(a.app.sandbox!.webhook.url())).toBe(currentSecret(a));
    expect(registrations(a)).toBe(before + 2);
    expect(a.logs()).toContain('the webhook secret changed while its URL was being registered');

    // Changed with no registration after it (a process stopped between a rotation's commit and
    // its registration): status says so, to admins and in words to everyone.
    await replace();
    const status = await reply(a, 'status');
    expect(status).toContain('The registered URL is not the current one');
    expect(await reply(a, 'status', USERS.viewer)).toMatch(
      /^:red_circle: The wallet service cannot notify us of deposits/,
    );
    expect(await reply(a, 'webhook register')).toContain('Webhook registered');
    expect(secretOf(a.app.sandbox!.webhook.url())).toBe(currentSecret(a));
    expect(await reply(a, 'status')).not.toContain('not the current one');
    expect(a.logs().includes(currentSecret(a))).toBe(false);
  });
});

describe('/treasury webhook rotate (WEBHOOK_SECRET configured)', () => {
  const CURRENT = 'Qx7vK2pLm9Zt4RwB8nYc3HsJ';
  const PREVIOUS = 'Fg5TbN1qXe6UoVd0AiWk2MzP';

  it('does not rotate but says how, and accepts WEBHOOK_SECRET_PREVIOUS for the overlap only', async () => {
    const c = clock();
    const dataDir = mkdtempSync(join(tmpdir(), 'rotation-env-'));
    dirs.push(dataDir);
    const env = { WEBHOOK_SECRET: CURRENT, WEBHOOK_SECRET_PREVIOUS: PREVIOUS };
    t = await startTestApp({ now: c.now, env, dataDir, sandbox: { seed: false } });
    let a = t;
    await until('the startup registration', () => a.app.sandbox!.webhook.url());
    const registrations = () =>
      a.app.sandbox!.stats.requests.filter((r) => r.path.startsWith('/api/v1/merchant/remittancewebhook')).length;
    const before = registrations();

    const said = await reply(a, 'webhook rotate');
    expect(said).toContain('`WEBHOOK_SECRET`');
    expect(said).toContain('`WEBHOOK_SECRET_PREVIOUS`');
    expect(said).toMatch(/Restart the app/);
    expect(showsNoPart(said, CURRENT) && showsNoPart(said, PREVIOUS)).toBe(true);
    // Nothing changed: no registration, no audit entry, still the configured secret.
    expect(registrations()).toBe(before);
    expect(recentAudit(a.app.deps.store, 50).some((e) => e.action === 'webhook_rotate')).toBe(false);
    expect(secretOf(a.app.sandbox!.webhook.url())).toBe(CURRENT);

    // The previous secret is accepted during the overlap, on both routes.
    expect(await notify(a, PREVIOUS)).toBe(200);
    expect(await verifyCall(a, PREVIOUS)).toBe(200);
    expect(await notify(a, CURRENT)).toBe(200);
    expect(showsNoPart(await reply(a, 'status'), PREVIOUS)).toBe(true);

    // A restart within the overlap keeps its end: 6 minutes in, restart, 5 minutes more is past
    // the 10 (an overlap reopened by the restart would last until 16); and a later restart does not reopen it.
    c.advance(6 * 60_000);
    await a.stop();
    t = await startTestApp({ now: c.now, env, dataDir, sandbox: { seed: false } });
    a = t;
    expect(await notify(a, PREVIOUS)).toBe(200);
    c.advance(5 * 60_000);
    expect(await notify(a, PREVIOUS)).toBe(404);
    expect(await verifyCall(a, PREVIOUS)).toBe(404);
    await a.stop();
    t = await startTestApp({ now: c.now, env, dataDir, sandbox: { seed: false } });
    a = t;
    expect(await notify(a, PREVIOUS)).toBe(404);
    expect(await verifyCall(a, PREVIOUS)).toBe(404);
    expect(await notify(a, CURRENT)).toBe(200);
    expect(a.logs()).toContain('WEBHOOK_SECRET_PREVIOUS is no longer accepted');
    expect(a.logs().includes(PREVIOUS) || a.logs().includes(CURRENT)).toBe(false);
  });
});
