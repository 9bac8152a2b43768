/**
 * One PostgreSQL database per test file, on its worker's throwaway cluster: one cluster per
 * vitest worker, not one per run. A worker runs its files one at a time, so what a file does to
 * the whole cluster reaches no file running beside it: the store's lease test ends every idle
 * session named for the app (pg_stat_activity spans databases), and on a shared cluster that
 * once ended a replica test's sessions in another worker mid-start. The cluster is made by the
 * worker's first file that asks (a lock directory keeps two starts apart all the same); the
 * global setup (test/pg-global-setup.ts) stops every one after the run.
 *
 * Without PostgreSQL installed, `pg.available` is false and the file's tests skip, saying
 * why; under CI=true that is an error instead, so CI never passes by skipping them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { inject } from 'vitest';
import { clusterPaths, createDatabaseOn, postgresBinDir, startCluster } from './pg-cluster.js';

const bin = postgresBinDir();

export const pgSkipReason = bin
  ? undefined
  : 'PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql): the PostgreSQL tests are skipped';

if (!bin && process.env.CI === 'true') {
  throw new Error(`${pgSkipReason}; under CI=true they must run (.ci/run installs Debian's postgresql)`);
}
if (pgSkipReason) console.warn(pgSkipReason);

/** Whether this file's PostgreSQL tests run (for describe.skipIf(!pgAvailable)). */
export const pgAvailable = bin !== undefined;

async function ensureCluster(base: string): Promise<void> {
  const p = clusterPaths(base);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (fs.existsSync(p.ready)) return;
    try {
      fs.mkdirSync(p.lock);
    } catch {
      if (Date.now() > deadline) throw new Error('timed out waiting for another worker to start PostgreSQL');
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      if (!fs.existsSync(p.ready)) {
        startCluster(bin!, base);
        fs.writeFileSync(p.ready, 'ok');
      }
    } finally {
      fs.rmdirSync(p.lock);
    }
    return;
  }
}

/** This worker's cluster directory, under the run's (test/pg-global-setup.ts stops what is in it). */
function workerBase(): string {
  const base = path.join(inject('pgBase'), `worker-${process.env.VITEST_POOL_ID ?? '0'}`);
  if (!fs.existsSync(base)) {
    fs.mkdirSync(base, { recursive: true });
    // initdb refuses to run as root: the cluster belongs to `postgres` when we are root.
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', base]);
  }
  return base;
}

/** Makes a fresh database on this worker's cluster (starting the cluster if it is not yet); its URL. */
export async function createTestDatabase(prefix = 't'): Promise<string> {
  if (!bin) throw new Error(pgSkipReason);
  const base = workerBase();
  await ensureCluster(base);
  return createDatabaseOn(base, `${prefix}_${randomBytes(6).toString('hex')}`);
}
