/**
 * Vitest global setup for the PostgreSQL tests: it only names a directory for the run's
 * throwaway clusters, one per worker (test/helpers/pg.ts says why). Each is made and started
 * lazily by its worker's first test file that asks for a database, so a run that selects no
 * PostgreSQL test never pays for `initdb`; teardown stops those started and removes the directory.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { clusterPaths, postgresBinDir, runAsOwner } from './helpers/pg-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where test/helpers/pg.ts makes the run's clusters, one per worker (data dir, unix socket, lock). */
    pgBase: string;
  }
}

export default function setup(project: TestProject): () => void {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'vitest-pg-'));
  // initdb refuses to run as root: the cluster belongs to `postgres` when we are root.
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', base]);
  project.provide('pgBase', base);
  return () => {
    const bin = postgresBinDir();
    for (const worker of fs.readdirSync(base)) {
      const { data } = clusterPaths(path.join(base, worker));
      if (!bin || !fs.existsSync(path.join(data, 'postmaster.pid'))) continue;
      try {
        runAsOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone: nothing to stop.
      }
    }
    fs.rmSync(base, { recursive: true, force: true });
  };
}
