/**
 * The production entry point (src/main.ts) in its own process, in HTTP mode, fed what used
 * to kill it or end in a 5xx: it answers every one, keeps running, logs no unhandled
 * rejection, and stops cleanly on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { sendToBolt } from '../helpers/slack-requests.js';
import { freePort, USERS } from '../helpers/treasury-app.js';
import { repoRoot } from '../store/helpers.js';
import { nodeArgs } from '../helpers/built.js';

const SIGNING = 'process-test-signing-secret-0123';
const SECRET = 'wh_process_secret_0123456789abcd';
let fake: FakeSlack;
let child: ChildProcess;
let out = '';
let url = '';
const dataDir = mkdtempSync(path.join(tmpdir(), 'treasury-process-'));

beforeAll(async () => {
  fake = await startFakeSlack();
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, nodeArgs('src/main.ts'), {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      DATA_DIR: dataDir,
      SLACK_BOT_TOKEN: 'xoxb-process-test-0123456789',
      SLACK_SIGNING_SECRET: SIGNING,
      SLACK_API_URL: fake.url,
      WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const end = Date.now() + 30_000;
  while (!out.includes('is running at')) {
    if (child.exitCode !== null || Date.now() > end) throw new Error(`the app did not start: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}, 40_000);

afterAll(async () => {
  if (child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
  }
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the app process under hostile input', () => {
  it('answers each request and stays up', async () => {
    const hostile: Array<[string, string]> = [
      ['payload=null', 'application/x-www-form-urlencoded'],
      ['payload=%7B%22type%22%3A%22block_actions%22%7D', 'application/x-www-form-urlencoded'],
      ['null', 'application/json'],
      ['{"type":"event_callback"}', 'application/json'],
      [
        `payload=${encodeURIComponent(JSON.stringify({ type: 'view_submission', user: { id: USERS.alice }, view: { id: 'V1', callback_id: 'wd_request_modal', state: { values: null } } }))}`,
        'application/x-www-form-urlencoded',
      ],
    ];
    for (const [body, contentType] of hostile) {
      const res = await sendToBolt(url, SIGNING, body, { contentType });
      expect(res.status, body).toBe(400);
    }
    const slash = await sendToBolt(
      url,
      SIGNING,
      new URLSearchParams({
        command: '/treasury',
        text: '__proto__',
        user_id: USERS.viewer,
        channel_id: 'C0WORKROOM',
        team_id: 'T1',
        response_url: fake.responseUrl(),
        trigger_id: '1.2.3',
      }).toString(),
    );
    expect(slash.status).toBe(200);
    const deep = await fetch(`${url}/webhooks/wallet/${SECRET}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
    });
    expect(deep.status).toBe(400);

    await new Promise((r) => setTimeout(r, 200));
    expect(child.exitCode).toBeNull();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(out).not.toContain('unhandled rejection');
    expect(out).not.toContain('[object Object]');
  });

  it('stops cleanly on SIGTERM', async () => {
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
    expect(code).toBe(0);
  });
});
