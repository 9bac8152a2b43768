/**
 * One PostgreSQL database per test file, on the run's one throwaway cluster. The cluster is
 * made by whichever test file asks first (a lock directory keeps two workers from both
 * running initdb); the global setup (test/pg-global-setup.ts) stops it after the run.
 *
 * Without PostgreSQL installed, `pg.available` is false and the file's tests skip, saying
 * why; under CI=true that is an error instead, so CI never passes by skipping them.
 */
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
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

/** Makes a fresh database on the run's cluster (starting the cluster if nobody has yet); its URL. */
export async function createTestDatabase(prefix = 't'): Promise<string> {
  if (!bin) throw new Error(pgSkipReason);
  const base = inject('pgBase');
  await ensureCluster(base);
  return createDatabaseOn(base, `${prefix}_${randomBytes(6).toString('hex')}`);
}
