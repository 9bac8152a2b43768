/**
 * Two requests racing one rolling window cannot both pass (issue 39), through real processes
 * (src/main.ts, HTTP mode, one PostgreSQL database) and signed Slack requests: the window is
 * $50,000 for everything in 24 h (`action: refuse`, no daily limit, so nothing else refuses),
 * each request is $30,000. The limit is judged inside the commit that stores the request, and
 * commits are made by the one leader on the database's rows, so:
 * 1. both sent to the leader at the same moment (they meet in one group commit): one is made;
 * 2. one to each of two replicas at the same moment, the leader handing over in between: the one
 *    the standby was sent waits (503, retried as Slack and the load balancer do) and is judged by
 *    the new leader against the old leader's commit: one is made.
 * The race is checked to be one: both requests are sent before either is answered, and in (2) the
 * second one is first refused by the standby and then judged by it as the leader.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import {
  killReplicas,
  REPLICA_SIGNING_SECRET,
  type ReplicaProcess,
  spawnReplica,
  waitStatus,
} from '../helpers/replica-process.js';
import { sendToBolt, slashCommand } from '../helpers/slack-requests.js';
import { CHANNELS, USERS } from '../helpers/treasury-app.js';
import { until, untilAsync } from '../helpers/wait.js';

const SECRET = 'wh_limit_race_0123456789abcdefgh';
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const dir = mkdtempSync(path.join(tmpdir(), 'treasury-limit-race-'));
const policyFile = path.join(dir, 'policy.yml');
writeFileSync(
  policyFile,
  `
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people:
  requesters: [${USERS.alice}, ${USERS.bob}]
  approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]
  admins: [${USERS.erin}]
withdrawals:
  tiers: { value: [{ max: 50000, approvals: 2 }, { approvals: 3 }] }
  limits: [{ per: all, window: 24h, value: 50000, action: refuse }]
`,
);

interface Row {
  id: string;
  requester: string;
  amount: string;
}

describe.skipIf(!pgAvailable)(`a rolling window raced on PostgreSQL${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let fake: FakeSlack;
  let sandbox: Sandbox;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    fake = await startFakeSlack();
    sandbox = await createSandbox({});
    sandbox.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  });
  afterEach(killReplicas);
  afterAll(async () => {
    for (const p of pools) await p.end().catch(() => {});
    await sandbox?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const replica = (databaseUrl: string): Promise<ReplicaProcess> =>
    spawnReplica({
      databaseUrl,
      slackApiUrl: fake.url,
      dataDir: dir,
      policyFile,
      webhookSecret: SECRET,
      env: {
        WALLET_API_BASE_URL: sandbox.url,
        // The sandbox serves the sanctions list too: without it the bundled snapshot is stale and refuses above $10,000.
        SANCTIONS_LIST_URL: `${sandbox.url}/sanctions/`,
        WALLET_API_KEY: SANDBOX_MERCHANT.apiKey,
        WALLET_PUBLIC_KEY: SANDBOX_MERCHANT.publicKey,
        WALLET_MERCHANT_EMAIL: SANDBOX_MERCHANT.email,
        WALLET_MERCHANT_PASSWORD: SANDBOX_MERCHANT.password,
        // The sandbox's price API: tether near $1 (never below its peg for limits).
        PRICE_API_URL: sandbox.url,
      },
    });

  async function rows(url: string): Promise<Row[]> {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pools.push(pool);
    const { rows: r } = await pool.query<{ value: Row }>(
      "SELECT value FROM store_records WHERE collection = 'withdrawals' ORDER BY ord",
    );
    return r.map((x) => x.value);
  }

  /** A signed `/withdraw` of $30,000; the response_url its answer goes to. */
  function withdraw(r: ReplicaProcess, user: string, responseUrl: string) {
    return sendToBolt(
      r.url,
      REPLICA_SIGNING_SECRET,
      slashCommand({
        command: '/withdraw',
        text: `30000 USDT BSC ${DEST} ${CLIENT} invoice`,
        userId: user,
        channelId: CHANNELS.command,
        responseUrl,
      }),
    );
  }
  const answerAt = (responseUrl: string) =>
    until(
      'the answer',
      () => fake.responseMessages(responseUrl)[0] && JSON.stringify(fake.responseMessages(responseUrl)[0]),
      20_000,
    );

  /** Waits until the replica has a price for USDT (a value for the limit), as /treasury status shows it. */
  async function priced(r: ReplicaProcess): Promise<void> {
    const responseUrl = fake.responseUrl({ channel: CHANNELS.command, user: USERS.erin });
    for (let i = 0; i < 100; i++) {
      await sendToBolt(
        r.url,
        REPLICA_SIGNING_SECRET,
        slashCommand({
          command: '/treasury',
          text: 'status',
          userId: USERS.erin,
          channelId: CHANNELS.command,
          responseUrl,
        }),
      );
      await until('status', () => fake.responseMessages(responseUrl).length > i, 10_000);
      if (/USDT \$\d/.test(JSON.stringify(fake.responseMessages(responseUrl)[i]))) return;
      await new Promise((res) => setTimeout(res, 250));
    }
    throw new Error('no USDT price');
  }

  it('two $30k requests sent to the leader at once against a $50k window: exactly one is made', async () => {
    const db = await createTestDatabase('limitrace');
    const a = await replica(db);
    await waitStatus(a, '/readyz', 200, 40_000);
    await priced(a);
    const urls = [USERS.alice, USERS.bob].map((user) => fake.responseUrl({ channel: CHANNELS.command, user }));
    const sent: number[] = [];
    const answered: number[] = [];
    const res = await Promise.all(
      [USERS.alice, USERS.bob].map(async (user, i) => {
        sent.push(Date.now());
        const r = await withdraw(a, user, urls[i]!);
        answered.push(Date.now());
        return r;
      }),
    );
    // A race: both were on their way before either was answered.
    expect(Math.max(...sent)).toBeLessThanOrEqual(Math.min(...answered));
    expect(res.map((r) => r.status)).toEqual([200, 200]);
    const answers = await Promise.all(urls.map(answerAt));
    // Refused for what the window holds (not for a value it could not know).
    expect(answers.filter((t) => /limit of \$50,000\.00 in all in 24 h.*is already requested/.test(t))).toHaveLength(1);
    const made = await untilAsync('the stored request', async () => {
      const r = await rows(db);
      return r.length ? r : undefined;
    });
    expect(made.map((r) => r.amount)).toEqual(['30000']);
  }, 90_000);

  it('one to each of two replicas at once, the lead moving between them: exactly one is made', async () => {
    const db = await createTestDatabase('limitrace2');
    const a = await replica(db);
    await waitStatus(a, '/readyz', 200, 40_000);
    const b = await replica(db);
    await waitStatus(b, '/healthz', 200, 40_000);
    await priced(a);
    const toA = fake.responseUrl({ channel: CHANNELS.command, user: USERS.alice });
    const toB = fake.responseUrl({ channel: CHANNELS.command, user: USERS.bob });
    const statusesB: number[] = [];
    // Bob's request goes to B, a standby: 503, retried (as Slack does, the balancer now sending it
    // to B) until B leads, at most 30 s.
    const bobs = (async () => {
      for (const start = Date.now(); Date.now() - start < 30_000; ) {
        const r = await withdraw(b, USERS.bob, toB).catch(() => undefined);
        statusesB.push(r?.status ?? 0);
        if (r?.status === 200) return r;
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error('B never took the request');
    })();
    const alices = withdraw(a, USERS.alice, toA);
    expect((await alices).status).toBe(200);
    // Alice's is stored by A; then A hands the lead over (SIGTERM) while Bob's is still waiting at B.
    await untilAsync('Alice’s request stored', async () => (await rows(db)).length === 1, 20_000);
    expect(statusesB.length).toBeGreaterThan(0);
    a.child.kill('SIGTERM');
    expect((await bobs).status).toBe(200);
    // Bob's request was first refused by the standby, then judged by B as the leader.
    expect(statusesB[0]).toBe(503);
    expect(statusesB.at(-1)).toBe(200);
    expect(await answerAt(toB)).toMatch(/limit of \$50,000\.00 in all in 24 h.*is already requested/);
    const stored = await rows(db);
    expect(stored.map((r) => [r.requester, r.amount])).toEqual([[USERS.alice, '30000']]);
  }, 120_000);
});
