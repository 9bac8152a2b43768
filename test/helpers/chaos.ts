/**
 * The chaos tests' world (test/replica/chaos-*.test.ts): a PostgreSQL cluster of the file's own
 * (they stop, restart and fill it), a fake Slack that outlives every replica, replicas as real
 * processes, a stream of webhooks to every replica in turn, and the checks made after each
 * fault: every webhook answered 2xx alerted exactly once, the audit chain verified, every
 * process alive unless it exited 70 by design. Withdrawals too: one wallet sandbox in this
 * process for every replica (so a send is counted wherever it came from), requested and approved
 * by signed Slack requests, and after the fault each approved one reached the service at most
 * once and ended as the app's rules say (src/withdrawals/README.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import { verifyAudit } from '../../src/audit/log.js';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import { openPgStore } from '../../src/store/pg/index.js';
import { depositSample, send } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';
import { type OwnCluster, ownCluster } from './pg-own-cluster.js';
import {
  alive,
  firstReady,
  killReplicas,
  REPLICA_SIGNING_SECRET,
  type ReplicaProcess,
  spawnReplica,
  waitStatus,
} from './replica-process.js';
import { blockAction, sendToBolt, slashCommand } from './slack-requests.js';
import { CHANNELS, FINANCE_GROUP, TEST_POLICY_YAML, USERS } from './treasury-app.js';
import { untilAsync, until } from './wait.js';

export const SECRET = 'wh_chaos_secret_0123456789abcdef';
export const MAX_CONNECTIONS = 20;
// Made by setupChaos, per file: the files of a worker share this module (isolate: false), and a
// directory made at import was removed by the first file's teardown under the next file's replicas.
let dir = '';
let policyFile = '';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';

let cluster: OwnCluster;
let fake: FakeSlack;
let sandbox: Sandbox;
/** The replica the service's verification call goes to (any replica answers it, from the database). */
let verifier: ReplicaProcess | undefined;
const pools = new Map<string, pg.Pool>();
let dbs = 0;
let amounts = 0;

/**
 * The file's own cluster, a fake Slack and the wallet sandbox, which outlive every replica;
 * stopped with `teardown`.
 */
export async function setupChaos(): Promise<void> {
  dir = mkdtempSync(path.join(tmpdir(), 'treasury-chaos-'));
  policyFile = path.join(dir, 'policy.yml');
  writeFileSync(policyFile, TEST_POLICY_YAML);
  cluster = ownCluster({ maxConnections: MAX_CONNECTIONS });
  fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
  sandbox = await createSandbox({
    verificationUrl: () => (verifier ? `${verifier.url}/webhooks/wallet/${SECRET}/verify` : 'http://127.0.0.1:9/'),
    verificationTimeoutMs: 5_000,
  });
  sandbox.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
}

/** After each test: no replica left, the server running (a failed test may leave it stopped). */
export async function afterChaos(): Promise<void> {
  await killReplicas();
  verifier = undefined;
  await Promise.all([...pools.values()].map((p) => p.end().catch(() => {})));
  pools.clear();
  if (!cluster.running()) cluster.start();
}

export async function teardownChaos(): Promise<void> {
  await sandbox?.close();
  await fake?.close();
  cluster?.remove();
  rmSync(dir, { recursive: true, force: true });
}

export const theCluster = () => cluster;

/** Another replica on the database at `url`, started now. */
export function spawnOn(url: string): Promise<ReplicaProcess> {
  return spawnReplica({
    databaseUrl: url,
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
    },
  });
}

export async function postDeposit(r: ReplicaProcess, tag: string): Promise<Sent> {
  const n = ++amounts;
  const amount = amountOf(n);
  const at = Date.now();
  const res = await send(
    `${r.url}/webhooks/wallet/${SECRET}`,
    depositSample({ hash: `0x${n.toString(16).padStart(62, '0')}${tag}`, amount }),
  ).catch(() => undefined);
  return { amount, status: res?.status, at, done: Date.now() };
}

/** A deposit amount no other in the run contains, shown as sent (under 1,000: no separator). */
const amountOf = (n: number) => `${100 + (n % 900)}.${10 + Math.floor(n / 900)}7`;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A fresh database and `n` replicas on it, started together: whichever takes the lock leads,
 * the others stand by (healthz 200).
 */
export async function replicas(n: number): Promise<{ url: string; all: ReplicaProcess[]; leader: ReplicaProcess }> {
  const url = await cluster.createDatabase(`chaos_${++dbs}`);
  const all = await Promise.all(Array.from({ length: n }, () => spawnOn(url)));
  const { leader } = await firstReady(all, 40_000);
  for (const r of all) if (r !== leader) await waitStatus(r, '/healthz', 200, 40_000);
  // the standby answers the service's verification calls: it outlives the leader in every fault
  verifier = all.find((r) => r !== leader) ?? leader;
  return { url, all, leader };
}

export interface Sent {
  amount: string;
  status: number | undefined;
  at: number;
  done: number;
}

/** Webhooks to every live replica in turn, one every 50 ms, each a new deposit. */
export function webhookStream(all: ReplicaProcess[]) {
  const sent: Sent[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const live = all.filter(alive);
      const r = live[i % live.length];
      if (r) sent.push(await postDeposit(r, 'cc'));
      await sleep(50);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return sent;
    },
  };
}

const alertsOf = (amount: string) =>
  fake.calls('chat.postMessage').filter((c) => !c.args.thread_ts && JSON.stringify(c.args).includes(amount));

/** Every webhook answered 2xx is alerted, and exactly once. */
export async function eachAckedAlertedOnce(sent: Sent[]): Promise<void> {
  const acked = sent.filter((s) => s.status !== undefined && s.status >= 200 && s.status < 300);
  expect(acked.length).toBeGreaterThan(0);
  await until(
    'every acknowledged webhook to be alerted',
    () => acked.every((s) => alertsOf(s.amount).length > 0),
    20_000,
    100,
  );
  await sleep(1_000);
  for (const s of acked) expect(alertsOf(s.amount), s.amount).toHaveLength(1);
}

/** Kills what is left, then reads the database as a new leader would: the audit chain verifies. */
export async function auditVerifies(url: string, all: ReplicaProcess[]): Promise<void> {
  await killReplicas();
  const { store } = await openPgStore({ url });
  try {
    expect(verifyAudit(store).ok).toBe(true);
  } finally {
    await store.close();
  }
  expect(all.every((r) => !alive(r))).toBe(true);
}

/** Every replica alive, except those named, which exited 70 (a leader that lost its session). */
export function aliveExcept(all: ReplicaProcess[], exited70: ReplicaProcess[]): void {
  for (const r of all) {
    if (exited70.includes(r)) expect(r.child.exitCode, r.out().slice(-2000)).toBe(70);
    else expect(alive(r), r.out().slice(-2000)).toBe(true);
  }
}

/** A withdrawal as the test follows it: its row's id and reference, and the amount it was asked for. */
export interface Withdrawal {
  id: string;
  merchantReference: string;
  amount: string;
}
interface Row extends Withdrawal {
  state: string;
  approvals: unknown[];
}

/** The withdrawals in the database at `url`, or undefined while the database does not answer. */
async function rowsAt(url: string): Promise<Row[] | undefined> {
  let pool = pools.get(url);
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 1_000 });
    pool.on('error', () => {});
    pools.set(url, pool);
  }
  try {
    const { rows } = await pool.query<{ value: Row }>(
      "SELECT value FROM store_records WHERE collection = 'withdrawals' ORDER BY ord",
    );
    return rows.map((r) => r.value);
  } catch {
    return undefined;
  }
}

/** Where the database at `url` has the withdrawal now (undefined: the database does not answer). */
export async function stateOf(url: string, w: Withdrawal): Promise<string | undefined> {
  return (await rowsAt(url))?.find((r) => r.id === w.id)?.state;
}

/**
 * How many times the withdrawal was sent: the withdrawal POSTs bearing its reference that reached
 * the wallet service, whatever became of them (the sandbox refuses a reference used before, so a
 * resend shows here and not as a second transfer).
 */
export const sendsOf = (w: Withdrawal) =>
  sandbox.stats.requests.filter(
    (q) =>
      q.method === 'POST' &&
      q.path.toLowerCase().startsWith('/api/merchantclientwithdrawal') &&
      q.body.includes(w.merchantReference),
  ).length;

/** How many transfers the service executed under the withdrawal's reference. */
export const executedOf = (w: Withdrawal) =>
  sandbox.transactions().filter((t) => t.reference === w.merchantReference).length;

/** `/withdraw` by the requester, signed as Slack signs it, to `r` (the leader); the request's row once stored. */
export async function requestWithdrawal(r: ReplicaProcess, url: string): Promise<Withdrawal> {
  // one approval (the tier up to 1000), an amount no other withdrawal of the run has
  const amount = String(100 + ++amounts);
  const res = await sendToBolt(
    r.url,
    REPLICA_SIGNING_SECRET,
    slashCommand({
      command: '/withdraw',
      text: `${amount} USDT BSC ${DEST} ${CLIENT} invoice ${amount}`,
      userId: USERS.alice,
      channelId: CHANNELS.command,
      responseUrl: fake.responseUrl({ channel: CHANNELS.command, user: USERS.alice }),
    }),
  );
  expect(res.status).toBe(200);
  const row = await untilAsync(
    `the ${amount} request in the database`,
    async () => (await rowsAt(url))?.find((w) => w.amount === amount),
    8_000,
  );
  return { id: row.id, merchantReference: row.merchantReference, amount };
}

/** The request's card in the approvals channel, once posted. */
export const cardOf = (w: Withdrawal) =>
  until('the card', () =>
    fake.channel(CHANNELS.approvals).find((m) => !m.thread_ts && m.text?.includes(w.merchantReference.slice(0, 8))),
  );

/**
 * An approver's click on the request's card, signed as Slack signs it, to `r`: the status it was
 * answered with (undefined: nothing answered). The click completes the quorum (one approval).
 */
export async function approveWithdrawal(r: ReplicaProcess, w: Withdrawal): Promise<number | undefined> {
  const card = await cardOf(w);
  const res = await sendToBolt(
    r.url,
    REPLICA_SIGNING_SECRET,
    blockAction({
      userId: USERS.carol,
      channelId: CHANNELS.approvals,
      message: { ts: card.ts },
      responseUrl: fake.responseUrl({ channel: CHANNELS.approvals, user: USERS.carol, messageTs: card.ts }),
      actions: [{ actionId: ACTIONS.approve, value: w.id }],
    }),
  ).catch(() => undefined);
  return res?.status;
}

/** Requested and approved through `r`, then followed until the service has it and it is completed. */
export async function withdrawCompleted(r: ReplicaProcess, url: string): Promise<Withdrawal> {
  const w = await requestWithdrawal(r, url);
  expect(await approveWithdrawal(r, w)).toBe(200);
  await untilAsync(`${w.amount} completed`, async () => (await stateOf(url, w)) === 'completed', 8_000);
  return w;
}

/**
 * Each approved withdrawal was sent (POSTed to the wallet service) at most once, and none is lost:
 * each ends `completed` with one transfer at the service, `failed` with none, or `unknown` with none
 * (nothing reached the service or it refused it: the outcome stays unknown, for an admin, and is
 * never resent). An `unknown` whose transfer the service did execute must have been reconciled by
 * the service's status (to `completed`) by the leader that took over, not sent again. Anything
 * else (`pending`, `approved`, `executing` left behind) is a request lost.
 */
export async function eachApprovedSentOnce(url: string, ws: Withdrawal[]): Promise<void> {
  const ended = (state: string | undefined, w: Withdrawal) =>
    state === 'completed' || state === 'failed' || (state === 'unknown' && executedOf(w) === 0);
  await untilAsync(
    'every approved withdrawal to end',
    async () => {
      const rows = await rowsAt(url);
      return rows && ws.every((w) => ended(rows.find((r) => r.id === w.id)?.state, w));
    },
    10_000,
  ).catch(() => {}); // the check below says which
  // a late send (a stopped process resumed, a POST still in flight) would show by now
  await sleep(500);
  const rows = (await rowsAt(url)) ?? [];
  const seen = ws.map((w) => ({
    amount: w.amount,
    state: rows.find((r) => r.id === w.id)?.state,
    sends: sendsOf(w),
    executed: executedOf(w),
  }));
  if (process.env.CHAOS_SENDS_LOG) console.log('withdrawals after the fault', JSON.stringify(seen));
  const wrong = seen.filter(
    (s) =>
      s.sends > 1 ||
      !(
        (s.state === 'completed' && s.executed === 1) ||
        ((s.state === 'failed' || s.state === 'unknown') && s.executed === 0)
      ),
  );
  expect(ws.length).toBeGreaterThan(0);
  expect(wrong, 'each approved withdrawal: sent at most once, and ended as the rules say').toEqual([]);
}

export { untilAsync };
