import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS } from '../../src/alerts/index.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { depositSample, send, startPipeline, type Pipeline } from './setup.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { nodeArgs } from '../helpers/built.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'receiver-child.ts');

let child: ChildProcess | undefined;
let p: Pipeline | undefined;
let fake: FakeSlack | undefined;
let dir: string;

afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await p?.close();
  await fake?.close();
  p = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

async function startChild(env: Record<string, string>): Promise<string> {
  child = spawn(process.execPath, nodeArgs(CHILD), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /READY (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child!.on('exit', (code) => reject(new Error(`child exited (${code}) before READY: ${stderr}`)));
  });
}

async function kill(): Promise<void> {
  const c = child!;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGKILL');
  await exited;
}

/** The restarted app on the crashed one's data, talking to the same Slack; its outbox not started. */
async function restartedApp(pipeline: Pipeline, slack: FakeSlack) {
  const { WebClient } = await import('@slack/web-api');
  const { createOutbox } = await import('../../src/outbox/index.js');
  const { createAlerts } = await import('../../src/alerts/index.js');
  const { registerAlertRenderers } = await import('../../src/slack/alert-messages.js');
  const { parsePolicy } = await import('../../src/policy/load.js');
  const { POLICY_YAML, SECRET, logger } = await import('./setup.js');
  const { startHttpServer } = await import('../../src/http/server.js');
  const client = new WebClient('xoxb-restart', {
    slackApiUrl: slack.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const outbox = createOutbox({ store: pipeline.store, client, logger, paceMs: 2 });
  const alerts = createAlerts({
    store: pipeline.store,
    outbox,
    wallet: pipeline.wallet,
    policy: fixedPolicy(parsePolicy(POLICY_YAML)),
    logger,
    secret: SECRET,
  });
  registerAlertRenderers(outbox, pipeline.store);
  const http = await startHttpServer([{ method: 'POST', path: '/webhooks/wallet/:secret', handler: alerts.handler }], {
    port: 0,
    host: '127.0.0.1',
    logger,
  });
  return {
    outbox,
    webhookUrl: `${http.url}/webhooks/wallet/${SECRET}`,
    async close() {
      await http.close();
      await alerts.stop();
      await outbox.stop();
    },
  };
}

describe('a crash after the acknowledgement', () => {
  it('killed after the 2xx and before posting: after restart the alert is posted exactly once', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'alerts-crash-'));
    fake = await startFakeSlack();
    const url = await startChild({ DATA_DIR: dir, SLACK_URL: fake.url, START_OUTBOX: '0' });
    expect((await send(url, depositSample({ status: 3 }))).status).toBe(200);
    await kill();
    expect(fake.calls('chat.postMessage')).toHaveLength(0);

    // Restart on the same data directory (the dead process's lock is taken over).
    p = await startPipeline({ dir });
    await p.outbox.drain();
    expect(p.store.count(ALERT_COLLECTIONS.alerts)).toBe(1);
    const msgs = p.fake.channel('C0USDT');
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.text).toMatch(/Deposit of 150\.25 USDT/);
  });

  it('killed while chat.postMessage is in flight (Slack posts anyway): after restart the message is adopted, not re-posted', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'alerts-crash-'));
    fake = await startFakeSlack();
    fake.failNext('chat.postMessage', { delayMs: 300 });
    const url = await startChild({ DATA_DIR: dir, SLACK_URL: fake.url, START_OUTBOX: '1' });
    expect((await send(url, depositSample({ status: 3 }))).status).toBe(200);
    await fake.waitFor('chat.postMessage');
    await kill();
    await new Promise((r) => setTimeout(r, 400)); // Slack finishes the post the dead process asked for
    expect(fake.channel('C0USDT')).toHaveLength(1);

    // The restarted app talks to the same Slack.
    p = await startPipeline({ dir, startOutbox: false });
    const { WebClient } = await import('@slack/web-api');
    const { createOutbox } = await import('../../src/outbox/index.js');
    const { createAlerts } = await import('../../src/alerts/index.js');
    const { registerAlertRenderers } = await import('../../src/slack/alert-messages.js');
    const { parsePolicy } = await import('../../src/policy/load.js');
    const { POLICY_YAML, SECRET, logger } = await import('./setup.js');
    const client = new WebClient('xoxb-restart', {
      slackApiUrl: fake.url,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const outbox = createOutbox({ store: p.store, client, logger, paceMs: 2 });
    createAlerts({
      store: p.store,
      outbox,
      wallet: p.wallet,
      policy: fixedPolicy(parsePolicy(POLICY_YAML)),
      logger,
      secret: SECRET,
    });
    registerAlertRenderers(outbox, p.store);
    outbox.start();
    await outbox.drain();
    await outbox.stop();
    expect(fake.channel('C0USDT')).toHaveLength(1);
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
    expect(fake.calls('conversations.history')).toHaveLength(1);
  });

  it('killed while a batch message is in flight: after restart the batch is adopted, every line shown once, none lost', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'alerts-crash-'));
    fake = await startFakeSlack();
    fake.failNext('chat.postMessage', { delayMs: 400 });
    const url = await startChild({ DATA_DIR: dir, SLACK_URL: fake.url, START_OUTBOX: '0' });
    const hashes = [1, 2, 3, 4, 5].map((i) => `0x${String(i).repeat(64)}`);
    for (const hash of hashes) expect((await send(url, depositSample({ hash, status: 2 }))).status).toBe(200);
    child!.kill('SIGUSR2'); // all five are in: the outbox starts, its first slot batches them
    await fake.waitFor('chat.postMessage', undefined, 5000);
    await kill();
    await new Promise((r) => setTimeout(r, 500)); // Slack finishes the post the dead process asked for
    expect(fake.channel('C0USDT')).toHaveLength(1);
    const lines = JSON.stringify(fake.channel('C0USDT')[0]!.blocks);
    for (const h of hashes) expect(lines).toContain(h);

    // The restarted app talks to the same Slack, and hears the deposits confirmed.
    p = await startPipeline({ dir, startOutbox: false });
    const app = await restartedApp(p, fake);
    app.outbox.start();
    await app.outbox.drain();
    for (const hash of hashes)
      expect((await send(app.webhookUrl, depositSample({ hash, status: 3 }))).status).toBe(200);
    await app.outbox.drain();
    await app.close();

    const msgs = fake.channel('C0USDT').filter((m) => !m.thread_ts);
    expect(msgs).toHaveLength(1);
    expect(fake.calls('chat.postMessage').filter((c) => !c.args.thread_ts)).toHaveLength(1);
    expect(fake.calls('conversations.history')).toHaveLength(1);
    const shown = JSON.stringify(msgs[0]!.blocks);
    // The wallet's history does not show them: counted, not summed as received.
    expect(shown).toMatch(
      /^\[\{"type":"header","text":\{"type":"plain_text","text":"5 deposits \(5 reported, not counted until confirmed\)"/,
    );
    for (const h of hashes) expect(shown.split(h).length - 1).toBe(1); // one line each, linking to its explorer page
    expect(shown).not.toContain('pending');
    expect(fake.calls('chat.update').every((c) => c.args.ts === msgs[0]!.ts)).toBe(true);
  });

  it('killed while a batch message is in flight, confirmations heard before the outbox restarts: the adopted batch is redrawn', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'alerts-crash-'));
    fake = await startFakeSlack();
    fake.failNext('chat.postMessage', { delayMs: 400 });
    const url = await startChild({ DATA_DIR: dir, SLACK_URL: fake.url, START_OUTBOX: '0' });
    const hashes = [1, 2, 3, 4, 5].map((i) => `0x${String(i).repeat(64)}`);
    for (const hash of hashes) expect((await send(url, depositSample({ hash, status: 2 }))).status).toBe(200);
    child!.kill('SIGUSR2'); // all five are in: the outbox starts, its first slot batches them
    await fake.waitFor('chat.postMessage', undefined, 5000);
    await kill();
    await new Promise((r) => setTimeout(r, 500)); // Slack finishes the post the dead process asked for
    expect(JSON.stringify(fake.channel('C0USDT')[0]!.blocks)).toContain('pending');

    // The restarted app hears every deposit confirmed BEFORE its outbox runs: the edits wait
    // behind the doubtful batch post, which is then adopted (drawn when all were pending).
    p = await startPipeline({ dir, startOutbox: false });
    const app = await restartedApp(p, fake);
    for (const hash of hashes)
      expect((await send(app.webhookUrl, depositSample({ hash, status: 3 }))).status).toBe(200);
    app.outbox.start();
    await app.outbox.drain();
    await app.close();

    const msgs = fake.channel('C0USDT').filter((m) => !m.thread_ts);
    expect(msgs).toHaveLength(1);
    expect(fake.calls('chat.postMessage').filter((c) => !c.args.thread_ts)).toHaveLength(1);
    expect(fake.calls('conversations.history')).toHaveLength(1);
    const shown = JSON.stringify(msgs[0]!.blocks);
    for (const h of hashes) expect(shown.split(h).length - 1).toBe(1);
    expect(shown).not.toContain('pending');
    // The edits collapse into one redraw of the adopted message.
    expect(fake.calls('chat.update').map((c) => c.args.ts)).toEqual([msgs[0]!.ts]);
  });
});
