/**
 * The chaos tests' world (test/replica/chaos-*.test.ts): a PostgreSQL cluster of the file's own
 * (they stop, restart and fill it), a fake Slack that outlives every replica, replicas as real
 * processes, a stream of webhooks to every replica in turn, and the checks made after each
 * fault: every webhook answered 2xx alerted exactly once, the audit chain verified, every
 * process alive unless it exited 70 by design.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { verifyAudit } from '../../src/audit/log.js';
import { openPgStore } from '../../src/store/pg/index.js';
import { depositSample, send } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';
import { type OwnCluster, ownCluster } from './pg-own-cluster.js';
import { alive, firstReady, killReplicas, type ReplicaProcess, spawnReplica, waitStatus } from './replica-process.js';
import { TEST_POLICY_YAML } from './treasury-app.js';
import { until } from './wait.js';

export const SECRET = 'wh_chaos_secret_0123456789abcdef';
export const MAX_CONNECTIONS = 20;
const dir = mkdtempSync(path.join(tmpdir(), 'treasury-chaos-'));
const policyFile = path.join(dir, 'policy.yml');
writeFileSync(policyFile, TEST_POLICY_YAML);

let cluster: OwnCluster;
let fake: FakeSlack;
let dbs = 0;
let amounts = 0;

/** The file's own cluster and a fake Slack that outlive every replica; stopped with `teardown`. */
export async function setupChaos(): Promise<void> {
  cluster = ownCluster({ maxConnections: MAX_CONNECTIONS });
  fake = await startFakeSlack();
}

/** After each test: no replica left, the server running (a failed test may leave it stopped). */
export async function afterChaos(): Promise<void> {
  await killReplicas();
  if (!cluster.running()) cluster.start();
}

export async function teardownChaos(): Promise<void> {
  await fake?.close();
  cluster?.remove();
  rmSync(dir, { recursive: true, force: true });
}

export const theCluster = () => cluster;

/** Another replica on the database at `url`, started now. */
export function spawnOn(url: string): Promise<ReplicaProcess> {
  return spawnReplica({ databaseUrl: url, slackApiUrl: fake.url, dataDir: dir, policyFile, webhookSecret: SECRET });
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
