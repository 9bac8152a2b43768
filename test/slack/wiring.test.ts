/**
 * The app's Slack wiring as Slack sees it: signatures, the command set against the
 * manifest, health and readiness, Socket Mode, fast acks, and no secret in any log line.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../commands/table.js';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { startFakeSlack } from '../helpers/fake-slack.js';
import { BAD_SIGNATURE, slashCommand, staleTimestamp } from '../helpers/slack-requests.js';
import { startSocketFake } from '../helpers/socket-fake.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { nodeArgs } from '../helpers/built.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

describe('request verification', () => {
  it('refuses a bad signature and a stale timestamp, and does nothing for them', async () => {
    const bad = await t.command('/treasury', 'help', USERS.viewer, { send: { signature: BAD_SIGNATURE } });
    expect(bad.res.status).toBe(401);
    const stale = await t.command('/treasury', 'help', USERS.viewer, { send: { timestamp: staleTimestamp(6) } });
    expect(stale.res.status).toBe(401);
    await new Promise((r) => setTimeout(r, 200));
    expect(t.fake.responses.filter((r) => r.url === bad.responseUrl || r.url === stale.responseUrl)).toEqual([]);
  });
});

describe('manifest', () => {
  it('declares exactly the commands the app registers, each with a usage hint, plus interactivity and App Home', () => {
    const manifest = parseYaml(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8')) as {
      features: {
        slash_commands: Array<{ command: string; description: string; usage_hint?: string }>;
        app_home: { home_tab_enabled: boolean };
      };
      settings: { interactivity: { is_enabled: boolean }; socket_mode_enabled: boolean };
      oauth_config: { scopes: { bot: string[] } };
    };
    const declared = manifest.features.slash_commands.map((c) => c.command).sort();
    const registered = COMMANDS.map((m) => m.name).sort();
    expect(registered).toEqual(declared);
    for (const c of manifest.features.slash_commands) expect(c.usage_hint, c.command).toBeTruthy();
    // The table the help text is generated from says what the manifest says.
    for (const c of COMMANDS) {
      const entry = manifest.features.slash_commands.find((m) => m.command === c.name);
      expect({ description: entry?.description, usage_hint: entry?.usage_hint }, c.name).toEqual({
        description: c.description,
        usage_hint: c.usageHint,
      });
    }
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(typeof manifest.settings.socket_mode_enabled).toBe('boolean');
    expect(manifest.oauth_config.scopes.bot).toContain('commands');
  });

  it('answers every declared command through the real receiver', async () => {
    for (const m of COMMANDS) {
      const { res, responseUrl } = await t.command(m.name, 'help', USERS.erin);
      expect(res.status, m.name).toBe(200);
      const [reply] = await t.replies(responseUrl);
      expect(visibleText(reply!).length, m.name).toBeGreaterThan(0);
    }
  });
});

describe('health and readiness', () => {
  it('reports liveness, and readiness of the store, the wallet login and Slack', async () => {
    const health = await fetch(`${t.app.url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${t.app.url}/readyz`);
    const body = (await ready.json()) as Record<string, { ok: boolean; detail: string }>;
    expect(ready.status).toBe(200);
    expect(body.store!.ok).toBe(true);
    expect(body.wallet!.ok).toBe(true);
    expect(body.wallet!.detail).toMatch(/logged in until/);
    expect(body.slack!.ok).toBe(true);
  });

  it('is not ready when the wallet login is refused, and says which part (the cause stays in the log)', async () => {
    const app = await startTestApp();
    try {
      app.app.sandbox!.setKyb(SANDBOX_MERCHANT.email, 'InProgress');
      const ready = await fetch(`${app.app.url}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as Record<string, { ok: boolean; detail: string }>;
      expect(body.wallet!.ok).toBe(false);
      // Never the wallet service's own words (issue 20): those are for the log and the admins' status.
      expect(body.wallet!.detail).toBe(
        'not logged in to the wallet service (the cause is in the log and in /treasury status)',
      );
      expect(app.logs()).toMatch(/InProgress/);
    } finally {
      await app.stop();
    }
  });
});

describe('acknowledgement', () => {
  it('acks before the wallet service answers, then replies through response_url', async () => {
    t.app.sandbox!.injectFault('/api/v1/walletaddress/generate', { kind: 'delay', ms: 1500 }, 1);
    const { res, responseUrl } = await t.command('/address', 'slow@client.example usdt bsc');
    expect(res.status).toBe(200);
    // The HTTP answer is back while the wallet call is still held by the delay fault.
    expect(t.fake.responses.filter((r) => r.url === responseUrl)).toEqual([]);
    const [reply] = await t.replies(responseUrl, 1, 8000);
    expect(visibleText(reply!)).toMatch(/```0x[0-9a-f]{40}```/);
  });
});

describe('Socket Mode', () => {
  it('connects with the app token and handles a slash command envelope', async () => {
    const sock = await startSocketFake();
    const fake = await startFakeSlack();
    fake.attachSocket(sock);
    const app = await startTestApp({ fake, env: { SLACK_APP_TOKEN: 'xapp-1-A0TEST-123-abcdef0123456789' } });
    try {
      await sock.connected(5000);
      const ready = (await (await fetch(`${app.app.url}/readyz`)).json()) as Record<
        string,
        { ok: boolean; detail: string }
      >;
      expect(ready.slack).toEqual({ ok: true, detail: 'socket mode' });
      const responseUrl = fake.responseUrl({ channel: 'C0WORKROOM', user: USERS.viewer });
      const cmd = slashCommand({ command: '/treasury', text: 'help', userId: USERS.viewer, responseUrl });
      const ack = await sock.sendEnvelope('slash_commands', cmd.payload);
      expect(ack.envelope_id).toBeTruthy();
      const [reply] = await app.replies(responseUrl);
      expect(visibleText(reply!)).toContain('/address <client-email> <currency> <network>');
      // No HTTP events endpoint in Socket Mode.
      expect((await fetch(`${app.app.url}/slack/events`, { method: 'POST' })).status).toBe(404);
    } finally {
      await app.stop();
      await fake.close();
      await sock.close();
    }
  });
});

describe('secrets', () => {
  it('never writes a configured or obtained secret to the logs', async () => {
    // Exercise logins, commands, errors and exports first.
    await t.command('/treasury', 'status', USERS.viewer);
    await t.command('/address', 'x@client.example usdt bsc', USERS.viewer);
    t.app.sandbox!.injectFault('/api/v2/analytics', { kind: 'status', status: 500 }, 10);
    const { responseUrl } = await t.command('/tx', '', USERS.viewer);
    await t.replies(responseUrl);
    await new Promise((r) => setTimeout(r, 100));
    const logs = t.logs();
    expect(logs.length).toBeGreaterThan(1000);
    for (const secret of [t.signingSecret, t.botToken, SANDBOX_MERCHANT.apiKey, SANDBOX_MERCHANT.password]) {
      expect(logs.includes(secret), `secret ${secret.slice(0, 4)}… in logs`).toBe(false);
    }
    expect(logs).not.toMatch(/"authorization":"(?!\[REDACTED\])/i);
    expect(logs).not.toMatch(/Bearer [A-Za-z0-9._-]{10,}/);
  });
});

describe('one process per data directory', () => {
  it('refuses to start a second app process on the same DATA_DIR, saying which process holds it', async () => {
    const { spawn } = await import('node:child_process');
    const root = new URL('../../', import.meta.url).pathname;
    const child = spawn(process.execPath, nodeArgs('src/main.ts'), {
      cwd: root,
      env: {
        ...process.env,
        DATA_DIR: t.dataDir,
        PORT: '0',
        SANDBOX_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(2);
    expect(stderr).toContain(`is in use by process ${process.pid}`);
    expect(stderr).not.toMatch(/\n\s+at /);
    // The first one is unaffected.
    expect((await fetch(`${t.app.url}/healthz`)).status).toBe(200);
  });
});
