/**
 * Vitest global setup for the PostgreSQL tests: it only names a directory for one throwaway
 * cluster. The cluster itself is made and started lazily by the first test file that asks for a
 * database (test/helpers/pg.ts), so a run that selects no PostgreSQL test never pays for
 * `initdb`; teardown stops it (if it was started) and removes the directory.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { clusterPaths, postgresBinDir, runAsOwner } from './helpers/pg-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where test/helpers/pg.ts makes the run's one cluster (data dir, unix socket, lock). */
    pgBase: string;
  }
}

export default function setup(project: TestProject): () => void {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'vitest-pg-'));
  // initdb refuses to run as root: the cluster belongs to `postgres` when we are root.
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', base]);
  project.provide('pgBase', base);
  return () => {
    const { data } = clusterPaths(base);
    const bin = postgresBinDir();
    if (bin && fs.existsSync(path.join(data, 'postmaster.pid'))) {
      try {
        runAsOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone: nothing to stop.
      }
    }
    fs.rmSync(base, { recursive: true, force: true });
  };
}
