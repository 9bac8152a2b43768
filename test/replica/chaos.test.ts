/**
 * Replicas ride out the database (issue 35), through real processes (src/main.ts, HTTP mode)
 * on a PostgreSQL cluster of this file's own, with no supervisor: nothing restarts a process.
 * Faults: `pg_ctl restart`; a 20 s stop; `max_connections` full; SIGSTOP of the leader for 8 s;
 * SIGKILL of the leader with the standbys' inbox full. While each runs, a stream of webhooks
 * goes to every replica in turn. After each: every process is alive unless it is the leader that
 * lost its session (exit 70, by design: docs/guides/replicas.md), a leader is ready within 5 s
 * of the database's return, every webhook answered 2xx is alerted exactly once (none answered
 * 2xx while the database was down), and the audit chain verifies.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/audit/log.js';
import { openPgStore } from '../../src/store/pg/index.js';
import { depositSample, send } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { type OwnCluster, ownCluster } from '../helpers/pg-own-cluster.js';
import {
  alive,
  firstReady,
  killReplicas,
  type ReplicaProcess,
  spawnReplica,
  waitStatus,
} from '../helpers/replica-process.js';
import { TEST_POLICY_YAML } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const SECRET = 'wh_chaos_secret_0123456789abcdef';
const MAX_CONNECTIONS = 20;
const dir = mkdtempSync(path.join(tmpdir(), 'treasury-chaos-'));
const policyFile = path.join(dir, 'policy.yml');
writeFileSync(policyFile, TEST_POLICY_YAML);

let cluster: OwnCluster;
let fake: FakeSlack;
let dbs = 0;
let amounts = 0;

/** A deposit amount no other in the run contains, shown as sent (under 1,000: no separator). */
const amountOf = (n: number) => `${100 + (n % 900)}.${10 + Math.floor(n / 900)}7`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function replicas(n: number): Promise<{ url: string; all: ReplicaProcess[]; leader: ReplicaProcess }> {
  const url = await cluster.createDatabase(`chaos_${++dbs}`);
  const spawnOne = () =>
    spawnReplica({ databaseUrl: url, slackApiUrl: fake.url, dataDir: dir, policyFile, webhookSecret: SECRET });
  const leader = await spawnOne();
  await waitStatus(leader, '/readyz', 200, 40_000);
  const all = [leader, ...(await Promise.all(Array.from({ length: n - 1 }, spawnOne)))];
  for (const r of all.slice(1)) await waitStatus(r, '/healthz', 200, 40_000);
  return { url, all, leader };
}

interface Sent {
  amount: string;
  status: number | undefined;
  at: number;
  done: number;
}

/** Webhooks to every live replica in turn, one every 50 ms, each a new deposit. */
function webhookStream(all: ReplicaProcess[]) {
  const sent: Sent[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const live = all.filter(alive);
      const r = live[i % live.length];
      const n = ++amounts;
      const amount = amountOf(n);
      const at = Date.now();
      const res = r
        ? await send(
            `${r.url}/webhooks/wallet/${SECRET}`,
            depositSample({ hash: `0x${n.toString(16).padStart(64, 'c')}`, amount }),
          ).catch(() => undefined)
        : undefined;
      sent.push({ amount, status: res?.status, at, done: Date.now() });
      await sleep(50);
    }
  })();
  return {
    sent,
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
async function eachAckedAlertedOnce(sent: Sent[]): Promise<void> {
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
async function auditVerifies(url: string, all: ReplicaProcess[]): Promise<void> {
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
function aliveExcept(all: ReplicaProcess[], exited70: ReplicaProcess[]): void {
  for (const r of all) {
    if (exited70.includes(r)) expect(r.child.exitCode, r.out().slice(-2000)).toBe(70);
    else expect(alive(r), r.out().slice(-2000)).toBe(true);
  }
}

describe.skipIf(!pgAvailable)(`replicas ride out the database${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  beforeAll(async () => {
    cluster = ownCluster({ maxConnections: MAX_CONNECTIONS });
    fake = await startFakeSlack();
  }, 60_000);
  afterEach(async () => {
    await killReplicas();
    // a failed test may leave the server stopped: the next one needs it
    if (!cluster.running()) cluster.start();
  });
  afterAll(async () => {
    await fake?.close();
    cluster?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pg_ctl restart: the standby leads within 5 s of the return, nothing acknowledged is lost', async () => {
    const { url, all, leader } = await replicas(2);
    const stream = webhookStream(all);
    await sleep(500);
    cluster.restart();
    const back = Date.now();
    const { ms } = await firstReady(all, 10_000);
    expect(ms).toBeLessThan(5_000);
    await sleep(500);
    const sent = await stream.stop();
    aliveExcept(all, [leader]);
    expect(leader.out()).toMatch(/no longer leads/);
    expect(all[1]!.out()).toMatch(/cannot reach the database to lead: trying again/);
    expect(sent.filter((s) => s.at > back).length).toBeGreaterThan(0);
    await eachAckedAlertedOnce(sent);
    await auditVerifies(url, all);
  }, 60_000);

  it('a 20 s stop: standbys stay up and healthy, no webhook is acknowledged, a leader is ready within 5 s of the return', async () => {
    const { url, all, leader } = await replicas(2);
    const standby = all[1]!;
    const stream = webhookStream(all);
    await sleep(300);
    cluster.stop();
    const down = Date.now();
    await sleep(20_000);
    // alive, answering its health check with its role, not ready, all through the outage
    const health = await fetch(`${standby.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ role: 'standby' });
    expect((await fetch(`${standby.url}/readyz`)).status).toBe(503);
    const up = Date.now();
    cluster.start();
    const back = Date.now();
    const { ms } = await firstReady(all, 10_000);
    expect(ms).toBeLessThan(5_000);
    await sleep(300);
    const sent = await stream.stop();
    const during = sent.filter((s) => s.at > down && s.done < up);
    expect(during.length).toBeGreaterThan(50);
    expect(during.filter((s) => s.status !== undefined && s.status < 300)).toEqual([]);
    expect(during.filter((s) => s.status === 503).length).toBeGreaterThan(0);
    aliveExcept(all, [leader]);
    // each try is logged (a capped backoff: at least one every 2 s over 20 s)
    const tries = standby.out().match(/cannot reach the database to lead: trying again/g) ?? [];
    expect(tries.length).toBeGreaterThanOrEqual(10);
    expect(sent.filter((s) => s.at > back).length).toBeGreaterThan(0);
    await eachAckedAlertedOnce(sent);
    await auditVerifies(url, all);
  }, 70_000);

  it('max_connections full: the leader goes on, a new replica waits and then stands by, nobody exits', async () => {
    const { url, all, leader } = await replicas(2);
    const fillers: pg.Client[] = [];
    try {
      for (;;) {
        const c = new pg.Client({ connectionString: url });
        c.on('error', () => {});
        try {
          await c.connect();
        } catch (err) {
          expect((err as { code?: string }).code).toBe('53300');
          break;
        }
        fillers.push(c);
      }
      expect(fillers.length).toBeLessThan(MAX_CONNECTIONS);
      const late = await spawnReplica({
        databaseUrl: url,
        slackApiUrl: fake.url,
        dataDir: dir,
        policyFile,
        webhookSecret: SECRET,
      });
      all.push(late);
      await until('the new replica to retry', () => /trying again/.test(late.out()), 20_000, 50);
      await waitStatus(late, '/healthz', 200, 5_000);
      expect((await fetch(`${late.url}/readyz`)).status).toBe(503);
      // the leader keeps its sessions, and so its lead
      expect((await fetch(`${leader.url}/readyz`)).status).toBe(200);
      const stream = webhookStream(all);
      await sleep(1_500);
      await Promise.all(fillers.splice(0).map((c) => c.end().catch(() => {})));
      await sleep(2_500);
      // the new replica now waits for the lock: a stop of the leader hands the lead on within 5 s
      leader.child.kill('SIGTERM');
      expect(await leader.exited).toBe(0);
      const { ms } = await firstReady(all.slice(1), 10_000);
      expect(ms).toBeLessThan(5_000);
      const sent = await stream.stop();
      aliveExcept(all.slice(1), []);
      await eachAckedAlertedOnce(sent);
      await auditVerifies(url, all);
    } finally {
      await Promise.all(fillers.map((c) => c.end().catch(() => {})));
    }
  }, 60_000);

  it('SIGSTOP of the leader for 8 s: the standby leads; the resumed one acts no more and exits 70', async () => {
    const { url, all, leader } = await replicas(2);
    const stream = webhookStream(all);
    await sleep(300);
    leader.child.kill('SIGSTOP');
    const { leader: next, ms } = await firstReady(all.slice(1), 10_000);
    expect(next).toBe(all[1]);
    expect(ms).toBeLessThan(6_000);
    await sleep(8_000 - ms);
    leader.child.kill('SIGCONT');
    expect(await leader.exited).toBe(70);
    await sleep(500);
    const sent = await stream.stop();
    aliveExcept(all, [leader]);
    await eachAckedAlertedOnce(sent);
    await auditVerifies(url, all);
  }, 60_000);

  it('SIGKILL of the leader with the inbox full: every webhook a standby took is alerted once', async () => {
    const { url, all, leader } = await replicas(3);
    const standbys = all.slice(1);
    const sent: Sent[] = [];
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const n = ++amounts;
        const amount = amountOf(n);
        const at = Date.now();
        const res = await send(
          `${standbys[i % 2]!.url}/webhooks/wallet/${SECRET}`,
          depositSample({ hash: `0x${n.toString(16).padStart(64, 'd')}`, amount }),
        );
        sent.push({ amount, status: res.status, at, done: Date.now() });
      }),
    );
    leader.child.kill('SIGKILL');
    const { ms } = await firstReady(standbys, 10_000);
    expect(ms).toBeLessThan(5_000);
    expect(sent.every((s) => s.status === 200)).toBe(true);
    aliveExcept(standbys, []);
    await eachAckedAlertedOnce(sent);
    await auditVerifies(url, all);
  }, 60_000);
});
