/**
 * The PostgreSQL store (src/store/pg/) on a throwaway local cluster (fsync on, unix socket):
 * commit latency beside the floor any PostgreSQL-backed store pays, a bare
 * `BEGIN; INSERT …; COMMIT` round trip on the same server in the same run, at 1 in flight
 * and at 32 in flight (32 connections for the floor; one leader connection, group commit, for
 * the store). Then the lock-level failover: a leader process SIGKILLed, and the time until a
 * waiting standby in this process holds the lead with the state loaded (10 kills).
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
