/**
 * The local workspace over HTTP, without a browser: local mode starts it under the app's own
 * server, it drives the app only through signed requests, it validates what the page sends,
 * pushes live updates, and never lets its generated secrets out.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { nameFromId } from '../../src/local/directory.js';
import { createLogger } from '../../src/log.js';
import { sendToBolt, slashCommand } from '../helpers/slack-requests.js';

let app: RunningApp;
let dir: string;
const logLines: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'treasury-local-'));
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  });
  app = await startApp({
    config: loadConfig({ PORT: '0', HOST: '127.0.0.1', SANDBOX_PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'debug' }),
    logger: createLogger({ level: 'debug', destination: sink }),
    outbox: { paceMs: 20, baseBackoffMs: 50, maxBackoffMs: 500 },
  });
});
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Polls an async condition (the shared until() is synchronous). */
async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const post = (path: string, body: unknown) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const state = async (user: string) =>
  (await (await fetch(`${app.url}/local/state?user=${user}`)).json()) as {
    channels: Array<{
      id: string;
      name: string;
      ephemerals: Array<{ text?: string; blocks?: unknown[] }>;
      messages: unknown[];
    }>;
    people: Array<{ id: string; name: string; roles: string[] }>;
  };

describe('the local workspace', () => {
  it('is served at / in local mode, with a policy that lets no message become script', async () => {
    expect(app.local).toBeDefined();
    const res = await fetch(`${app.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('/local/app.js');
    expect((await fetch(`${app.url}/local/app.js`)).headers.get('content-type')).toContain('javascript');
  });

  it('serves every module the page imports as JavaScript, and nothing else from its folder or beyond', async () => {
    const html = await (await fetch(`${app.url}/`)).text();
    expect(html).toContain('<script type="module" src="/local/app.js">');
    // Follow the imports from the entry module, as the browser does.
    const seen = new Set<string>();
    const queue = ['app.js'];
    while (queue.length) {
      const name = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const res = await fetch(`${app.url}/local/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('x-content-type-options'), name).toBe('nosniff');
      const body = await res.text();
      expect(body.startsWith('// @ts-check'), name).toBe(true);
      for (const m of body.matchAll(/^import .* from '\.\/([\w-]+\.js)';$/gm)) queue.push(m[1]!);
    }
    const modules = readdirSync(new URL('../../src/local/static/', import.meta.url)).filter((f) => f.endsWith('.js'));
    expect([...seen].sort()).toEqual(modules.sort());
    expect((await fetch(`${app.url}/local/style.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    // The folder's type-checking files are not for the browser, and no path leaves the folder.
    const { request } = await import('node:http');
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${app.url}${path}`, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of [
      '/local/tsconfig.json',
      '/local/types.d.ts',
      '/local/index.html',
      '/local/../workspace.ts',
      '/local/..%2Fworkspace.ts',
      '/local/%2E%2E%2F%2E%2E%2F%2E%2E%2Fpackage.json',
      '/local/static/app.js',
      '/local/app.js/',
    ]) {
      expect(await status(path), path).toBe(404);
    }
  });

  it("lists the policy's people with their roles, and its channels", async () => {
    const s = await state('U0ALICE');
    expect(s.people.find((p) => p.id === 'U0ERIN')).toEqual({
      id: 'U0ERIN',
      name: 'Erin',
      handle: 'erin',
      roles: ['approvers', 'admins', 'viewers'],
    });
    expect(s.channels.map((c) => c.name)).toEqual(
      expect.arrayContaining(['general', 'approvals', 'alerts', 'Treasury (app)']),
    );
    expect(nameFromId('U0ALICE01')).toBe('Alice');
  });

  it('sends a slash command to the app as Slack does, and shows the answer only to its sender', async () => {
    const res = await post('/local/command', { user: 'U0ERIN', channel: 'C0GENERAL', text: '/treasury help' });
    expect(res.status).toBe(200);
    const erin = await eventually('the help reply', async () =>
      (await state('U0ERIN')).channels
        .find((c) => c.id === 'C0GENERAL')!
        .ephemerals.find((e) => (e.text ?? '').includes('/address')),
    );
    expect(erin.text).toContain('/withdraw');
    const alice = (await state('U0ALICE')).channels.find((c) => c.id === 'C0GENERAL')!;
    expect(alice.ephemerals.some((e) => (e.text ?? '').includes('/address'))).toBe(false);
  });

  it('answers an unknown command as Slack does, without bothering the app', async () => {
    await post('/local/command', { user: 'U0BOB', channel: 'C0GENERAL', text: '/nope' });
    const bob = (await state('U0BOB')).channels.find((c) => c.id === 'C0GENERAL')!;
    expect(bob.ephemerals.at(-1)?.text).toContain('`/nope` is not a valid command');
  });

  it('says what was wrong with a bad request from the page, and changes nothing', async () => {
    const res = await post('/local/command', { user: 'alice', channel: 'C0GENERAL', text: '' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string };
    expect(body.error).toContain('user: a Slack user id');
    expect(body.error).toContain('text: type a command');
    expect(
      (await post('/local/deposit', { to: 'x@y.test', amount: '-5', currency: 'USDT', network: 'BSC' })).status,
    ).toBe(400);
    expect(
      (
        await post('/local/action', {
          source: 'message',
          user: 'U0ALICE',
          channel: 'C0GENERAL',
          ts: '1.2',
          action: { action_id: 'a', block_id: 'b', type: 'button' },
        })
      ).status,
    ).toBe(400);
    expect((await fetch(`${app.url}/local/state?user=<script>`)).status).toBe(400);
    const bad = await fetch(`${app.url}/local/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'not json',
    });
    expect(bad.status).toBe(400);
  });

  it('obeys only its own page: other sites, plain-text posts and rebinding host names are refused', async () => {
    const before = (await state('U0ALICE')).channels.find((c) => c.id === 'C0GENERAL')!.ephemerals.length;
    const command = JSON.stringify({ user: 'U0ALICE', channel: 'C0GENERAL', text: '/treasury help' });
    // A cross-site "simple" request (no preflight): text/plain.
    const plain = await fetch(`${app.url}/local/command`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: command,
    });
    expect(plain.status).toBe(403);
    // JSON from another origin.
    const foreign = await fetch(`${app.url}/local/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: command,
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: string }).error).toBe(
      'requests must come from the workspace page itself',
    );
    // A host name that resolves to loopback (DNS rebinding) can neither read nor act.
    const { request } = await import('node:http');
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(`${app.url}/local/state?user=U0ALICE`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(403);
    // Nothing reached the app.
    await new Promise((r) => setTimeout(r, 200));
    expect((await state('U0ALICE')).channels.find((c) => c.id === 'C0GENERAL')!.ephemerals.length).toBe(before);
    // The page itself (same origin) still works.
    const own = await fetch(`${app.url}/local/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: app.url },
      body: command,
    });
    expect(own.status).toBe(200);
  });

  it('is the only one who can talk to the app: an unsigned or wrongly signed request is refused', async () => {
    const res = await sendToBolt(
      app.url,
      'not-the-workspace-secret',
      slashCommand({ command: '/treasury', text: 'help' }),
    );
    expect(res.status).toBe(401);
  });

  it('pushes a change event to the page when something new is visible', async () => {
    const controller = new AbortController();
    const res = await fetch(`${app.url}/local/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    let seen = '';
    const read = (async () => {
      while (!seen.includes('event: change')) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
    })();
    await post('/local/command', { user: 'U0ALICE', channel: 'C0GENERAL', text: '/tx size=1' });
    await read;
    controller.abort();
    expect(seen).toContain('event: change');
  });

  it('simulates a deposit through the sandbox, and its alert is posted to the routed channel', async () => {
    const res = await post('/local/deposit', {
      to: 'ada.okafor@acme-payments.test',
      amount: '77.01',
      currency: 'USDT',
      network: 'BSC',
    });
    expect(res.status).toBe(200);
    const routed = await eventually('the alert', async () => {
      const s = await state('U0ALICE');
      return s.channels.find((c) => JSON.stringify(c.messages).includes('77.01 USDT'));
    });
    expect(routed.name).toBe('alerts-deposit-usdt');
  });

  it('never shows its generated bot token or signing secret in logs or on the page', async () => {
    const { botToken, signingSecret } = app.local!;
    const page = JSON.stringify(await state('U0ERIN'));
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [botToken, signingSecret]) {
      expect(page).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });

  it('posts an in_channel ack for everyone, and tells the app when a modal that asked for it is closed', async () => {
    const bolt = app.slack!.app;
    const closed: string[] = [];
    bolt.command('/echo', async ({ ack }) => ack({ response_type: 'in_channel', text: 'hello everyone' }));
    bolt.command('/form', async ({ ack, command, client }) => {
      await ack();
      await client.views.open({
        trigger_id: command.trigger_id,
        view: {
          type: 'modal',
          callback_id: 'echo_form',
          notify_on_close: true,
          title: { type: 'plain_text', text: 'Form' },
          blocks: [],
        },
      });
    });
    bolt.view({ callback_id: 'echo_form', type: 'view_closed' }, async ({ ack, body }) => {
      await ack();
      closed.push(body.user.id);
    });
    app.local!.setCommands(['/echo', '/form']);

    await post('/local/command', { user: 'U0BOB', channel: 'C0GENERAL', text: '/echo' });
    const general = await eventually('the in_channel answer', async () =>
      (await state('U0CAROL')).channels.find(
        (c) => c.id === 'C0GENERAL' && JSON.stringify(c.messages).includes('hello everyone'),
      ),
    );
    expect(general.ephemerals.some((e) => (e.text ?? '').includes('hello everyone'))).toBe(false);

    await post('/local/command', { user: 'U0BOB', channel: 'C0GENERAL', text: '/form' });
    const view = await eventually('the modal', async () => {
      const s = (await (await fetch(`${app.url}/local/state?user=U0BOB`)).json()) as {
        modals: Array<{ id: string; title: { text: string } }>;
      };
      return s.modals.find((m) => m.title.text === 'Form');
    });
    // Someone else cannot close Bob's modal.
    await post('/local/close', { user: 'U0CAROL', viewId: view.id });
    const still = (await (await fetch(`${app.url}/local/state?user=U0BOB`)).json()) as {
      modals: Array<{ id: string }>;
    };
    expect(still.modals.map((m) => m.id)).toEqual([view.id]);
    expect((await post('/local/close', { user: 'U0BOB', viewId: view.id })).status).toBe(200);
    expect(await eventually('view_closed', async () => (closed.length ? closed : undefined))).toEqual(['U0BOB']);
    const after = (await (await fetch(`${app.url}/local/state?user=U0BOB`)).json()) as { modals: unknown[] };
    expect(after.modals).toEqual([]);
    app.local!.setCommands(['/address', '/withdraw', '/tx', '/treasury']);
  });

  it('listens on loopback only in local mode unless HOST says otherwise', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' }).host).toBe('0.0.0.0');
  });
});

describe('a batch payout from the local workspace', () => {
  it('takes the example file through the form: uploaded by the page, read by the app with files.info, one card', async () => {
    const { readFileSync } = await import('node:fs');
    const example = readFileSync(join(import.meta.dirname, '../../docs/examples/batch-payouts.csv'), 'utf8');
    await post('/local/command', { user: 'U0ALICE', channel: 'C0GENERAL', text: '/withdraw batch' });
    type Modals = { modals: Array<{ id: string; callback_id?: string; blocks?: unknown[] }> };
    const form = await eventually('the batch form', async () =>
      ((await (await fetch(`${app.url}/local/state?user=U0ALICE`)).json()) as Modals).modals.find(
        (m) => m.callback_id === 'wd_batch_modal',
      ),
    );
    const up = await post('/local/upload', { user: 'U0ALICE', name: 'batch-payouts.csv', content: example });
    expect(up.status).toBe(200);
    const { id } = (await up.json()) as { id: string };
    const res = await post('/local/submit', {
      user: 'U0ALICE',
      viewId: form.id,
      values: { wd_batch_file: { value: { type: 'file_input', files: [{ id }] } } },
    });
    expect(res.status).toBe(200);
    const card = await eventually('the batch card', async () =>
      (await state('U0CAROL')).channels
        .find((c) => c.name === 'approvals')
        ?.messages.find((m) => JSON.stringify(m).includes('Batch payout · 5 rows')),
    );
    expect(JSON.stringify(card)).toContain('565.75');
    // A file over 1 MB is refused by the workspace before it reaches anything.
    expect(
      (await post('/local/upload', { user: 'U0ALICE', name: 'big.csv', content: 'x'.repeat(1_000_001) })).status,
    ).toBe(400);
  });
});
