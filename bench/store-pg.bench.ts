/**
 * The PostgreSQL store (src/store/pg/) on a throwaway local cluster (fsync on, unix socket):
 * commit latency beside the floor any PostgreSQL-backed store pays, a bare
 * `BEGIN; INSERT …; COMMIT` round trip on the same server in the same run, at 1 in flight
 * and at 32 in flight (32 connections for the floor; one leader connection, group commit, for
 * the store). Then the lock-level failover: a leader process SIGKILLed, and the time until a
 * waiting standby in this process holds the lead with the state loaded (10 kills). Then the
 * app-level failover, what a load balancer and a treasury team see: real src/main.ts replicas
 * (HTTP mode, the recording fake Slack), the leader SIGKILLed 10 times, and the time from the
 * kill to `/readyz` 200 on the standby and to the first alert it posts (a deposit webhook sent
 * to it right after the kill).
 * Skipped (no rows) when PostgreSQL is not installed.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { collection } from '../src/store/index.js';
import { openPgStore } from '../src/store/pg/index.js';
import { clusterPaths, clusterUrl, postgresBinDir, runAsOwner, startCluster } from '../test/helpers/pg-cluster.js';
import { depositSample, send } from '../test/alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../test/helpers/fake-slack.js';
import { freePort, TEST_POLICY_YAML } from '../test/helpers/treasury-app.js';
import { nowMs, percentile, result, runConcurrent, type Bench, type BenchResult } from './lib.js';

const SEQUENTIAL_OPS = 300;
const CONCURRENT_OPS = 2_000;
const IN_FLIGHT = 32;
const KILLS = 10;
const RECORDS = collection<Record<string, unknown>>('withdrawals');
const here = path.dirname(fileURLToPath(import.meta.url));

function record(i: number): Record<string, unknown> {
  return {
    id: `wd_${i}`,
    state: i % 2 ? 'executing' : 'approved',
    amount: `${i + 1}.125`,
    currency: 'USDT',
    destination: `0x${i.toString(16).padStart(40, '0')}`,
    merchantReference: `ref-${i}`,
    note: 'quarterly exchange rebalance',
  };
}

async function floor(url: string, json: string) {
  const one = new pg.Client({ connectionString: url });
  await one.connect();
  await one.query('CREATE TABLE floor (id bigserial PRIMARY KEY, v json NOT NULL)');
  const insert = async (c: pg.ClientBase) => {
    await c.query('BEGIN');
    await c.query('INSERT INTO floor (v) VALUES ($1)', [json]);
    await c.query('COMMIT');
  };
  const seq: number[] = [];
  for (let i = 0; i < SEQUENTIAL_OPS; i++) {
    const t = nowMs();
    await insert(one);
    seq.push(nowMs() - t);
  }
  await one.end();
  const pool = new pg.Pool({ connectionString: url, max: IN_FLIGHT });
  const conc = await runConcurrent(CONCURRENT_OPS, IN_FLIGHT, async () => {
    const c = await pool.connect();
    try {
      await insert(c);
    } finally {
      c.release();
    }
  });
  await pool.end();
  return { seq, conc: conc.latencies };
}

async function failovers(url: string): Promise<number[]> {
  const times: number[] = [];
  for (let k = 0; k < KILLS; k++) {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'pg-leader-child.ts')], {
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('LEADING') && resolve());
      child.on('exit', (code) => reject(new Error(`leader child exited ${code}`)));
    });
    let waiting!: () => void;
    const isWaiting = new Promise<void>((r) => (waiting = r));
    const standby = openPgStore({ url, onWaiting: () => waiting() });
    await isWaiting;
    const t = nowMs();
    child.kill('SIGKILL');
    const { store } = await standby;
    times.push(nowMs() - t);
    await store.close();
  }
  return times;
}

interface AppReplica {
  child: import('node:child_process').ChildProcess;
  url: string;
  exited: Promise<void>;
}

async function appReplica(url: string, fake: FakeSlack, dir: string): Promise<AppReplica> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, '../src/main.ts')], {
    cwd: path.join(here, '..'),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: dir,
      DATABASE_URL: url,
      POLICY_FILE: path.join(dir, 'policy.yml'),
      SLACK_BOT_TOKEN: 'xoxb-bench-failover-0123456789',
      SLACK_SIGNING_SECRET: 'bench-failover-signing-secret-01',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      SLACK_API_URL: fake.url,
      WEBHOOK_SECRET: APP_SECRET,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, url: `http://127.0.0.1:${port}`, exited };
}

const APP_SECRET = 'wh_bench_failover_0123456789abcd';

async function statusOf(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { headers: { connection: 'close' } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 10) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Kill → /readyz 200 on the standby, and kill → the first alert it posts, over KILLS SIGKILLs. */
async function appFailovers(url: string): Promise<{ ready: number[]; alert: number[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-failover-'));
  fs.writeFileSync(path.join(dir, 'policy.yml'), TEST_POLICY_YAML);
  const fake = await startFakeSlack();
  const all: AppReplica[] = [];
  const ready: number[] = [];
  const alert: number[] = [];
  try {
    let leader = await appReplica(url, fake, dir);
    all.push(leader);
    await waitFor('the first leader', async () => (await statusOf(`${leader.url}/readyz`)) === 200, 60_000, 50);
    for (let k = 0; k < KILLS; k++) {
      const standby = await appReplica(url, fake, dir);
      all.push(standby);
      await waitFor('a standby', async () => (await statusOf(`${standby.url}/readyz`)) === 503, 60_000, 50);
      const amount = `${700 + k}.${String(k).padStart(2, '0')}`;
      const alerted = () =>
        fake.calls('chat.postMessage').some((c) => !c.args.thread_ts && JSON.stringify(c.args).includes(amount));
      const body = depositSample({ hash: `0x${(k + 16).toString(16).repeat(32).slice(0, 64)}`, amount });
      leader.child.kill('SIGKILL');
      await leader.exited;
      const t = nowMs();
      // the webhook reaches the standby (its inbox, or its own route once it leads)
      let readyAt: number | undefined;
      let alertAt: number | undefined;
      const readiness = waitFor(
        'the standby ready',
        async () => {
          if ((await statusOf(`${standby.url}/readyz`)) !== 200) return false;
          readyAt = nowMs();
          return true;
        },
        30_000,
      );
      await waitFor(
        'the webhook taken',
        async () =>
          (await send(`${standby.url}/webhooks/wallet/${APP_SECRET}`, body).catch(() => ({ status: 0 }))).status ===
          200,
        30_000,
      );
      await waitFor(
        'the alert',
        () => {
          if (alerted()) alertAt ??= nowMs();
          return alerted();
        },
        30_000,
        5,
      );
      await readiness;
      ready.push(readyAt! - t);
      alert.push(alertAt! - t);
      leader = standby;
    }
  } finally {
    for (const r of all) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(all.map((r) => r.exited));
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { ready, alert };
}

/**
 * STORE_PG_ACK=1: the slack-ack bench (its ratios to a bare Bolt app) with the embedded store,
 * then with DATABASE_URL on this cluster, in this run; rows relabelled with the store. Minutes
 * long (ACK_CONCURRENCY and BENCH_ROUNDS shorten it).
 */
async function ackBesideEmbedded(base: string): Promise<BenchResult[]> {
  const ack = (await import('./slack-ack.bench.js')).default;
  const admin = new pg.Client({ connectionString: clusterUrl(base, 'postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE bench_ack');
  await admin.end();
  const label = (rows: BenchResult[], store: string) =>
    rows.map((r) => ({ ...r, bench: 'store-pg', case: `slack-ack ${r.case}, ${store}` }));
  const embedded = label(await ack.run(), 'embedded');
  process.env.BENCH_DATABASE_URL = clusterUrl(base, 'bench_ack');
  try {
    return [...embedded, ...label(await ack.run(), 'PostgreSQL')];
  } finally {
    delete process.env.BENCH_DATABASE_URL;
  }
}

const bench: Bench = {
  name: 'store-pg',
  description: 'PostgreSQL store commits beside BEGIN/INSERT/COMMIT, and lock takeover after SIGKILL',
  async run(): Promise<BenchResult[]> {
    const bin = postgresBinDir();
    if (!bin) {
      console.error('  store-pg: PostgreSQL is not installed; skipped');
      return [];
    }
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pg-'));
    // initdb refuses root: as root, the cluster belongs to `postgres` (as in test/pg-global-setup.ts).
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', base]);
    try {
      startCluster(bin, base);
      const admin = new pg.Client({ connectionString: clusterUrl(base, 'postgres') });
      await admin.connect();
      await admin.query('CREATE DATABASE bench');
      await admin.end();
      const url = clusterUrl(base, 'bench');
      const f = await floor(url, JSON.stringify(record(1)));

      const { store } = await openPgStore({ url });
      for (let i = 0; i < 1_000; i++) await store.commit((tx) => tx.put(RECORDS, String(i), record(i)));
      const seq: number[] = [];
      for (let i = 0; i < SEQUENTIAL_OPS; i++) {
        const t = nowMs();
        await store.commit((tx) => tx.put(RECORDS, String(i % 1_000), { ...record(i), touched: i }));
        seq.push(nowMs() - t);
      }
      const conc = await runConcurrent(CONCURRENT_OPS, IN_FLIGHT, (i) =>
        store.commit((tx) => tx.put(RECORDS, String(i % 1_000), { ...record(i), touched: i })),
      );
      await store.close();
      const fo = await failovers(url);
      // a fresh database for the app: the store rows above are not an app's records
      const admin2 = new pg.Client({ connectionString: clusterUrl(base, 'postgres') });
      await admin2.connect();
      await admin2.query('CREATE DATABASE bench_app');
      await admin2.end();
      const app = await appFailovers(clusterUrl(base, 'bench_app'));
      const acks = process.env.STORE_PG_ACK ? await ackBesideEmbedded(base) : [];

      const row = (metric: string, value: number, baseline?: number) =>
        result({ bench: 'store-pg', case: '1k records', metric, value, unit: 'ms', baseline, better: 'lower' });
      return [
        row('commit p50, 1 in flight', percentile(seq, 50), percentile(f.seq, 50)),
        row('commit p99, 1 in flight', percentile(seq, 99), percentile(f.seq, 99)),
        row('commit p50, 32 in flight', percentile(conc.latencies, 50), percentile(f.conc, 50)),
        row('commit p99, 32 in flight', percentile(conc.latencies, 99), percentile(f.conc, 99)),
        result({
          bench: 'store-pg',
          case: `${KILLS} SIGKILLs`,
          metric: 'leader killed to standby leading, p50',
          value: percentile(fo, 50),
          unit: 'ms',
          better: 'lower',
        }),
        result({
          bench: 'store-pg',
          case: `${KILLS} SIGKILLs`,
          metric: 'leader killed to standby leading, max',
          value: Math.max(...fo),
          unit: 'ms',
          better: 'lower',
        }),
        ...(
          [
            ['app: killed to /readyz 200 on the standby', app.ready],
            ['app: killed to the first alert it posted', app.alert],
          ] as const
        ).flatMap(([metric, xs]) => [
          result({
            bench: 'store-pg',
            case: `${KILLS} SIGKILLs of main.ts`,
            metric: `${metric}, p50`,
            value: percentile([...xs], 50),
            unit: 'ms',
            better: 'lower',
          }),
          result({
            bench: 'store-pg',
            case: `${KILLS} SIGKILLs of main.ts`,
            metric: `${metric}, max`,
            value: Math.max(...xs),
            unit: 'ms',
            better: 'lower',
          }),
        ]),
        ...acks,
      ];
    } finally {
      try {
        runAsOwner(path.join(bin, 'pg_ctl'), ['-D', clusterPaths(base).data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // not started
      }
      fs.rmSync(base, { recursive: true, force: true });
    }
  },
};

export default bench;
