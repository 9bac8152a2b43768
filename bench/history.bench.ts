/**
 * `npm run bench history [-- --sizes 10k,100k] [--stores embedded,pg]`: years of history
 * (issue 42). A store is filled with N closed withdrawals (bench/history/fill.ts: replicated
 * from a few the real app requested, approved, sent and settled, with their audit entries; on
 * PostgreSQL what the daily job would have moved out of memory is evicted in the fill's own
 * commits), then the built app (`node dist/src/main.js`, built first) is started on it as a child
 * process and measured, each figure beside the same figure at 10k from the same run (10k is
 * always run first, as the baseline):
 * - time from spawn to `/readyz` 200 and resident memory once ready (the median of 5 samples),
 *   each the median of 3 starts;
 * - failover (PostgreSQL): from just before a leader is SIGKILLed to the standby's `/readyz` 200;
 * - `/treasury withdrawal <ref>` p50/p99 through signed slash commands to the app (each answer
 *   must name the reference asked for);
 * - a full audit verification (the streaming walk, fullAuditCheck) by a fresh store session
 *   reading the database or the directory, after one warm-up walk, entries/s;
 * - commit latency p50/p99 on the filled store, in the filling process.
 * Sizes default to 10k, 100k and 1M; the embedded store runs up to EMBEDDED_MAX and always at its
 * stated ceiling (EMBEDDED_CEILING withdrawals, docs/guides/replicas.md), PostgreSQL at every size.
 * PostgreSQL is a throwaway cluster (as the store-pg bench makes one).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { fullAuditCheck } from '../src/audit/verify.js';
import { collection, openStore, type Store } from '../src/store/index.js';
import { openPgStore } from '../src/store/pg/index.js';
import { startFakeSlack, type FakeSlack } from '../test/helpers/fake-slack.js';
import { clusterPaths, clusterUrl, postgresBinDir, runAsOwner, startCluster } from '../test/helpers/pg-cluster.js';
import { TEST_POLICY_YAML } from '../test/helpers/treasury-app.js';
import { prepareFill } from './history/fill.js';
import { ensureBuilt, lookups, type Replica, startReplica } from './history/replica.js';
import { makeTemplate } from './history/template.js';
import { median, nowMs, percentile, result, type Bench, type BenchResult } from './lib.js';

const BENCH = 'history';
const BASE = 10_000;
const EMBEDDED_MAX = 30_000;
/** The embedded store's stated ceiling, 300,000 records: about 27k withdrawals of the fill's 11. */
const EMBEDDED_CEILING = 27_000;
/** Starts per size for time to ready and memory (the median is reported). */
const STARTS = 3;
const TEMPLATE = 20;
const LOOKUPS = 100;
const WARMUP = 5;
const COMMITS = 200;
const KILLS = 3;
const PROBE = collection<{ n: number }>('bench_probe');

type StoreKind = 'embedded' | 'pg';

/** `10k` -> 10000, `1M` -> 1000000. */
export function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(s.trim());
  if (!m) throw new Error(`--sizes: "${s}" is not a size (e.g. 10k, 100k, 1M)`);
  return Math.round(Number(m[1]) * ({ k: 1e3, m: 1e6 }[m[2]!.toLowerCase()] ?? 1));
}

function option(name: string): string | undefined {
  const argv = process.argv;
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

const label = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);

interface Figures {
  fillSeconds: number;
  records: number;
  /** Records left in memory after the fill (fewer than `records` where the store evicts). */
  hotRecords: number;
  auditEntries: number;
  verifyPerSecond: number;
  commitP50: number;
  commitP99: number;
  readyMs: number;
  rssMiB: number;
  lookupP50: number;
  lookupP99: number;
  failoverMs?: number;
}

async function commitLatencies(store: Store): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < COMMITS; i++) {
    const t = nowMs();
    await store.commit((tx) => tx.put(PROBE, String(i % 10), { n: i }));
    times.push(nowMs() - t);
  }
  await store.commit((tx) => {
    for (let i = 0; i < 10; i++) tx.delete(PROBE, String(i));
  });
  return times;
}

/** The chain walked in full by a fresh session (what the disk or database holds), after one warm-up walk. */
async function verifyRate(kind: StoreKind, dir: string, databaseUrl?: string) {
  const store = kind === 'pg' ? (await openPgStore({ url: databaseUrl! })).store : await openStore({ dir });
  try {
    await fullAuditCheck(store);
    const r = await fullAuditCheck(store);
    if (!r.check.ok) throw new Error(`the filled audit log does not verify: ${r.check.reason}`);
    return { entries: r.check.walked, perSecond: r.perSecond };
  } finally {
    await store.close();
  }
}

/** STARTS starts: the median time to ready and memory; the last replica is left running. */
async function starts(start: () => Promise<Replica>): Promise<{ leader: Replica; readyMs: number; rssMiB: number }> {
  const ready: number[] = [];
  const rss: number[] = [];
  for (let i = 0; ; i++) {
    const r = await start();
    try {
      ready.push(await r.ready());
      // Settled: what the process holds once its start's garbage is collectable.
      await new Promise((res) => setTimeout(res, 1_000));
      rss.push(await r.rssSampled(5, 200));
    } catch (err) {
      await r.stop();
      throw err;
    }
    if (i === STARTS - 1) return { leader: r, readyMs: median(ready), rssMiB: median(rss) };
    await r.stop();
  }
}

async function measure(
  kind: StoreKind,
  size: number,
  o: { fake: FakeSlack; fill: ReturnType<typeof prepareFill>; databaseUrl?: string },
): Promise<Figures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-history-${kind}-`));
  fs.writeFileSync(path.join(dir, 'policy.yml'), TEST_POLICY_YAML);
  try {
    const store = kind === 'pg' ? (await openPgStore({ url: o.databaseUrl! })).store : await openStore({ dir });
    const t = nowMs();
    let last = 0;
    await o.fill.write(store, 0, size, {
      // ~1,100 records per PostgreSQL commit: twice as fast as ~22,000 (the store's unnest arrays and the server's
      // JSON parsing grow worse than linearly), measured with 10k withdrawals on this machine.
      batch: kind === 'pg' ? 100 : 500,
      onBatch: (done) => {
        if (done - last >= size / 10 || done === size) {
          last = done;
          console.error(`  history ${kind} ${label(size)}: ${done} withdrawals written`);
        }
      },
    });
    const fillSeconds = (nowMs() - t) / 1000;
    // Everything written: the withdrawals' records and audit entries, and the chain's head.
    const records = Math.round(size * o.fill.recordsPerWithdrawal) + 1;
    const hotRecords = store.stats().records;
    const commits = await commitLatencies(store);
    await store.close();
    const verify = await verifyRate(kind, dir, o.databaseUrl);

    const start = () => startReplica({ dir, fake: o.fake, databaseUrl: o.databaseUrl });
    const { leader, readyMs, rssMiB } = await starts(start);
    let current = leader;
    try {
      const refs = Array.from({ length: LOOKUPS + WARMUP }, (_, i) => o.fill.reference(Math.floor((i * 7919) % size)));
      const times = (await lookups(leader, o.fake, refs)).slice(WARMUP);
      let failoverMs: number | undefined;
      if (kind === 'pg') {
        const kills: number[] = [];
        for (let k = 0; k < KILLS; k++) {
          const standby = await start();
          await standby.answering();
          // From the kill itself: the leader's death is part of what a failover takes.
          const killedAt = nowMs();
          current.child.kill('SIGKILL');
          await current.exited;
          current = standby;
          kills.push(await standby.ready(killedAt));
        }
        failoverMs = percentile(kills, 50);
      }
      return {
        fillSeconds,
        records,
        hotRecords,
        auditEntries: verify.entries,
        verifyPerSecond: verify.perSecond,
        commitP50: percentile(commits, 50),
        commitP99: percentile(commits, 99),
        readyMs,
        rssMiB,
        lookupP50: percentile(times, 50),
        lookupP99: percentile(times, 99),
        ...(failoverMs !== undefined ? { failoverMs } : {}),
      };
    } finally {
      await current.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function rows(kind: StoreKind, size: number, f: Figures, base: Figures): BenchResult[] {
  const store = kind === 'pg' ? 'PostgreSQL' : 'embedded';
  const hot = f.hotRecords < f.records ? `, ${f.hotRecords} in memory` : '';
  const ceiling = kind === 'embedded' && size === EMBEDDED_CEILING ? ', the stated ceiling' : '';
  const c = `${label(size)} withdrawals, ${store}${ceiling} (${f.records} records${hot}, ${f.auditEntries} audit entries)`;
  const row = (metric: string, unit: string, better: 'lower' | 'higher', pick: (x: Figures) => number | undefined) => {
    const value = pick(f);
    if (value === undefined) return [];
    return [
      result({
        bench: BENCH,
        case: c,
        metric: `${metric} (baseline: at 10k)`,
        value,
        unit,
        baseline: pick(base),
        better,
      }),
    ];
  };
  return [
    result({ bench: BENCH, case: c, metric: 'fill, seconds', value: f.fillSeconds, unit: 's' }),
    ...row(`resident memory once ready, median of ${STARTS} starts`, 'MiB', 'lower', (x) => x.rssMiB),
    ...row(`spawn to ready, median of ${STARTS} starts`, 'ms', 'lower', (x) => x.readyMs),
    ...row('failover: SIGKILL to standby ready, median of 3', 'ms', 'lower', (x) => x.failoverMs),
    ...row('/treasury withdrawal <ref> p50', 'ms', 'lower', (x) => x.lookupP50),
    ...row('/treasury withdrawal <ref> p99', 'ms', 'lower', (x) => x.lookupP99),
    ...row('full audit verification, fresh session', 'entries/s', 'higher', (x) => x.verifyPerSecond),
    ...row('commit p50', 'ms', 'lower', (x) => x.commitP50),
    ...row('commit p99', 'ms', 'lower', (x) => x.commitP99),
  ];
}

async function withCluster<T>(fn: (database: (name: string) => Promise<string>) => Promise<T>): Promise<T> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed: run with --stores embedded');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-history-pg-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', base]);
  try {
    startCluster(bin, base);
    return await fn(async (name) => {
      const admin = new pg.Client({ connectionString: clusterUrl(base, 'postgres') });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return clusterUrl(base, name);
    });
  } finally {
    try {
      runAsOwner(path.join(bin, 'pg_ctl'), ['-D', clusterPaths(base).data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // not started
    }
    fs.rmSync(base, { recursive: true, force: true });
  }
}

const bench: Bench = {
  name: BENCH,
  description: 'years of history: ready, memory, failover, lookup and audit verification at 10k..1M withdrawals',
  async run() {
    const sizes = [...new Set([BASE, ...(option('sizes') ?? '10k,100k,1M').split(',').map(parseSize)])].sort(
      (a, b) => a - b,
    );
    const stores = (option('stores') ?? 'embedded,pg').split(',') as StoreKind[];
    ensureBuilt();
    const { template, ids } = await makeTemplate(TEMPLATE);
    const fake = await startFakeSlack();
    const out: BenchResult[] = [];
    try {
      const run = async (kind: StoreKind, database?: (name: string) => Promise<string>) => {
        let base: Figures | undefined;
        const mine =
          kind === 'embedded'
            ? [...new Set([...sizes.filter((n) => n <= EMBEDDED_MAX), EMBEDDED_CEILING])].sort((a, b) => a - b)
            : sizes;
        for (const size of mine) {
          const fill = prepareFill(template, ids, size);
          const databaseUrl = database ? await database(`history_${size}`) : undefined;
          const f = await measure(kind, size, { fake, fill, databaseUrl });
          base ??= f;
          out.push(...rows(kind, size, f, base));
        }
      };
      if (stores.includes('embedded')) await run('embedded');
      if (stores.includes('pg')) await withCluster((database) => run('pg', database));
    } finally {
      await fake.close();
    }
    return out;
  },
};

export default bench;
