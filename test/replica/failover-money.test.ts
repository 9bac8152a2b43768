/**
 * Failover at the money steps, through real processes (src/main.ts, HTTP mode, one PostgreSQL
 * database). The wallet sandbox, the recording fake Slack and a proxy in front of the sandbox
 * run in this process, so they outlive every replica and can SIGKILL the leader at the exact
 * step: the chain of replicas is A → B → C → D → E, each killed leader replaced by the standby
 * already waiting, and a new standby started behind it.
 *
 * 1. After an approval is durable (a two-approval request, the first approval in the
 *    database): the next leader takes the second approval and sends once.
 * 2. After the send is claimed (the POST reaches the proxy, which kills the leader and drops
 *    the request): the next leader marks it unknown and never sends it again.
 * 3. After the service answered (the sandbox executed, the proxy kills the leader before it
 *    hears): the next leader settles it as completed by its status, one send. The service's
 *    verification call in this step is answered by the standby, from the database.
 * 4. After a Slack post was attempted (the fake Slack kills the leader as the alert arrives):
 *    the next leader's outbox does not post it again.
 * Then: at most one send per merchant reference at the service, each post once, the audit
 * chain verifies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/audit/log.js';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import { openPgStore } from '../../src/store/pg/index.js';
import { depositSample, send } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { blockAction, sendToBolt, slashCommand } from '../helpers/slack-requests.js';
import { CHANNELS, FINANCE_GROUP, freePort, TEST_POLICY_YAML, USERS } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { repoRoot } from '../store/helpers.js';
import { nodeArgs } from '../helpers/built.js';

const SECRET = 'wh_failover_money_0123456789abcd';
const SIGNING = 'failover-money-signing-secret-01';
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const dir = mkdtempSync(path.join(tmpdir(), 'treasury-failover-money-'));
const policyFile = path.join(dir, 'policy.yml');
writeFileSync(policyFile, TEST_POLICY_YAML);

interface Replica {
  name: string;
  child: ChildProcess;
  url: string;
  out: () => string;
  exited: Promise<void>;
}
const running: Replica[] = [];

async function replica(name: string, databaseUrl: string, fake: FakeSlack, walletUrl: string): Promise<Replica> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, nodeArgs('src/main.ts'), {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      DATA_DIR: dir,
      DATABASE_URL: databaseUrl,
      POLICY_FILE: policyFile,
      SLACK_BOT_TOKEN: 'xoxb-failover-money-0123456789',
      SLACK_SIGNING_SECRET: SIGNING,
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      SLACK_API_URL: fake.url,
      WEBHOOK_SECRET: SECRET,
      WALLET_API_BASE_URL: walletUrl,
      // The sandbox serves the sanctions list too: without it the bundled snapshot is stale and refuses above $10,000.
      SANCTIONS_LIST_URL: `${walletUrl}/sanctions/`,
      WALLET_API_KEY: SANDBOX_MERCHANT.apiKey,
      WALLET_PUBLIC_KEY: SANDBOX_MERCHANT.publicKey,
      WALLET_MERCHANT_EMAIL: SANDBOX_MERCHANT.email,
      WALLET_MERCHANT_PASSWORD: SANDBOX_MERCHANT.password,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const r = { name, child, url: `http://127.0.0.1:${port}`, out: () => out, exited };
  running.push(r);
  return r;
}

async function status(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { headers: { connection: 'close' } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

async function waitStatus(r: Replica, route: string, want: number, timeoutMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if ((await status(`${r.url}${route}`)) === want) return Date.now() - start;
    if (r.child.exitCode !== null) throw new Error(`${r.name} exited: ${r.out().slice(-3000)}`);
    if (Date.now() - start > timeoutMs)
      throw new Error(`${r.name}: ${route} was not ${want} within ${timeoutMs} ms: ${r.out().slice(-3000)}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

/**
 * The wallet service as the replicas reach it: forwards to the sandbox, and lets the test act
 * when a withdrawal POST arrives (`onSend`: 'drop' loses it) or when its answer comes back
 * (`onAnswer`: 'drop' loses the answer).
 */
interface WalletProxy {
  url: string;
  onSend?: (body: string) => 'drop' | undefined;
  onAnswer?: (body: string) => 'drop' | undefined;
  close(): Promise<void>;
}
async function walletProxy(target: string): Promise<WalletProxy> {
  const p: WalletProxy = { url: '', close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const isSend = req.method === 'POST' && (req.url ?? '').startsWith('/api/merchantClientWithdrawal');
      if (isSend && p.onSend?.(body) === 'drop') return void res.socket?.destroy();
      const up = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          if (isSend && p.onAnswer?.(body) === 'drop') return void res.socket?.destroy();
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(parts));
        });
      });
      up.on('error', () => res.socket?.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  p.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return p;
}

/** Polls an async check until it gives something truthy. */
async function untilAsync<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 8_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Row {
  id: string;
  merchantReference: string;
  state: string;
  amount: string;
  approvals: unknown[];
}

describe.skipIf(!pgAvailable)(`failover at the money steps${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let fake: FakeSlack;
  let sandbox: Sandbox;
  let proxy: WalletProxy;
  let db: pg.Pool;
  let dbUrl = '';
  /** Where the service sends its verification call (the app's verify route on some replica). */
  let verifyAt = '';
  beforeAll(async () => {
    dbUrl = await createTestDatabase('failover_money');
    db = new pg.Pool({ connectionString: dbUrl, max: 2 });
    fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    sandbox = await createSandbox({ verificationUrl: () => verifyAt, verificationTimeoutMs: 10_000 });
    sandbox.setBalance(CLIENT, 'USDT', 'BSC', '100000');
    proxy = await walletProxy(sandbox.url);
  }, 120_000);
  afterAll(async () => {
    for (const r of running.splice(0)) {
      if (r.child.exitCode === null && r.child.signalCode === null) {
        r.child.kill('SIGKILL');
        await r.exited;
      }
    }
    await proxy?.close();
    await sandbox?.close();
    await fake?.close();
    await db?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  const withdrawals = async (): Promise<Row[]> =>
    (
      await db.query<{ value: Row }>("SELECT value FROM store_records WHERE collection = 'withdrawals' ORDER BY ord")
    ).rows.map((r) => r.value);
  const byAmount = async (amount: string) =>
    untilAsync(`the ${amount} request in the database`, async () =>
      (await withdrawals()).find((r) => r.amount === amount),
    );
  const stateOf = async (id: string) => (await withdrawals()).find((r) => r.id === id)?.state;
  const verifyUrl = (r: Replica) => `${r.url}/webhooks/wallet/${SECRET}/verify`;
  const sendsOf = (reference: string) => sandbox.transactions().filter((t) => t.reference === reference).length;

  async function request(leader: Replica, amount: string): Promise<Row> {
    const res = await sendToBolt(
      leader.url,
      SIGNING,
      slashCommand({
        command: '/withdraw',
        text: `${amount} USDT BSC ${DEST} ${CLIENT} invoice ${amount}`,
        userId: USERS.alice,
        channelId: CHANNELS.command,
        responseUrl: fake.responseUrl({ channel: CHANNELS.command, user: USERS.alice }),
      }),
    );
    expect(res.status).toBe(200);
    return byAmount(amount);
  }

  async function approve(leader: Replica, r: Row, user: string): Promise<void> {
    const card = await until('the card', () =>
      fake.channel(CHANNELS.approvals).find((m) => !m.thread_ts && m.text?.includes(r.merchantReference.slice(0, 8))),
    );
    const res = await sendToBolt(
      leader.url,
      SIGNING,
      blockAction({
        userId: user,
        channelId: CHANNELS.approvals,
        message: { ts: card.ts },
        responseUrl: fake.responseUrl({ channel: CHANNELS.approvals, user, messageTs: card.ts }),
        actions: [{ actionId: ACTIONS.approve, value: r.id }],
      }),
    );
    expect(res.status).toBe(200);
  }

  /** The standby takes over within 5 s of the kill; a new standby starts behind it. */
  async function failover(dead: Replica, next: Replica, name: string): Promise<{ standby: Replica; tookMs: number }> {
    await dead.exited;
    const killedAt = Date.now();
    await waitStatus(next, '/readyz', 200, 5_000);
    const tookMs = Date.now() - killedAt;
    const standby = await replica(name, dbUrl, fake, proxy.url);
    return { standby, tookMs };
  }

  it('SIGKILL at each money step: the standby leads within 5 s, nothing sent or posted twice, the audit verifies', async () => {
    const a = await replica('A', dbUrl, fake, proxy.url);
    await waitStatus(a, '/readyz', 200, 40_000);
    verifyAt = verifyUrl(a);
    const b = await replica('B', dbUrl, fake, proxy.url);
    await waitStatus(b, '/healthz', 200, 40_000);

    // 1. after an approval is durable (5000 needs two)
    const r1 = await request(a, '5000');
    await approve(a, r1, USERS.carol);
    await untilAsync('the first approval in the database', async () => {
      const cur = (await withdrawals()).find((r) => r.id === r1.id);
      return (cur?.approvals.length ?? 0) === 1;
    });
    a.child.kill('SIGKILL');
    const step1 = await failover(a, b, 'C');
    expect(step1.tookMs).toBeLessThan(5_000);
    verifyAt = verifyUrl(b);
    await approve(b, r1, USERS.dave);
    await untilAsync('the 5000 sent', async () => (await stateOf(r1.id)) === 'completed', 15_000);
    expect(sendsOf(r1.merchantReference)).toBe(1);
    const c = step1.standby;
    await waitStatus(c, '/healthz', 200, 40_000);

    // 2. after the send is claimed: B dies as its POST reaches the service, which never gets it
    const r2 = await request(b, '500');
    proxy.onSend = (body) => {
      if (!body.includes(r2.merchantReference)) return undefined;
      b.child.kill('SIGKILL');
      return 'drop';
    };
    await approve(b, r2, USERS.carol);
    const step2 = await failover(b, c, 'D');
    proxy.onSend = undefined;
    expect(step2.tookMs).toBeLessThan(5_000);
    verifyAt = verifyUrl(c);
    await untilAsync('the claimed send marked unknown', async () => (await stateOf(r2.id)) === 'unknown', 15_000);
    const d = step2.standby;
    await waitStatus(d, '/healthz', 200, 40_000);

    // 3. after the service answered: the standby D answers the service's verification call,
    // the sandbox executes, and C dies before it hears the answer
    const r3 = await request(c, '600');
    verifyAt = verifyUrl(d);
    proxy.onAnswer = (body) => {
      if (!body.includes(r3.merchantReference)) return undefined;
      c.child.kill('SIGKILL');
      return 'drop';
    };
    await approve(c, r3, USERS.carol);
    const step3 = await failover(c, d, 'E');
    proxy.onAnswer = undefined;
    expect(step3.tookMs).toBeLessThan(5_000);
    expect(sandbox.stats.verifications.filter((v) => v.reference === r3.merchantReference)).toEqual([
      expect.objectContaining({ verified: true }),
    ]);
    verifyAt = verifyUrl(d);
    await untilAsync(
      'the answered send settled by its status',
      async () => (await stateOf(r3.id)) === 'completed',
      15_000,
    );
    const e = step3.standby;
    await waitStatus(e, '/healthz', 200, 40_000);

    // 4. after a Slack post was attempted: D dies as the deposit alert reaches Slack
    fake.setGate((method, args) => {
      if (method === 'chat.postMessage' && JSON.stringify(args).includes('444.44') && d.child.exitCode === null) {
        d.child.kill('SIGKILL');
        return { delayMs: 100 };
      }
      return undefined;
    });
    const hook = await send(
      `${d.url}/webhooks/wallet/${SECRET}`,
      depositSample({ hash: `0x${'d4'.repeat(32)}`, amount: '444.44' }),
    );
    expect(hook.status).toBe(200);
    await d.exited;
    const killedAt = Date.now();
    await waitStatus(e, '/readyz', 200, 5_000);
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    fake.setGate(undefined);

    // settle, then: one send per reference, each post once
    await new Promise((res) => setTimeout(res, 2_000));
    expect(sendsOf(r1.merchantReference)).toBe(1);
    expect(sendsOf(r2.merchantReference)).toBe(0);
    expect(sendsOf(r3.merchantReference)).toBe(1);
    expect(await stateOf(r2.id)).toBe('unknown');
    const alerts = fake
      .calls('chat.postMessage')
      .filter((call) => !call.args.thread_ts && JSON.stringify(call.args).includes('444.44'));
    const alertMessages = fake
      .channels()
      .flatMap((ch) => fake.channel(ch).filter((m) => !m.thread_ts && m.text?.includes('444.44')));
    expect(alerts.length, 'the alert was attempted').toBeGreaterThan(0);
    expect(alertMessages, 'the alert posted once').toHaveLength(1);
    for (const ch of fake.channels()) {
      const texts = fake
        .channel(ch)
        .filter((m) => !m.thread_ts)
        .map((m) => m.text ?? '');
      expect(new Set(texts).size, `no top-level message posted twice in ${ch}`).toBe(texts.length);
    }

    e.child.kill('SIGTERM');
    await e.exited;
    const { store } = await openPgStore({ url: dbUrl });
    try {
      expect(verifyAudit(store).ok).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);
});
