/**
 * A PostgreSQL cluster of a test file's own, for the tests that stop, restart or fill the server
 * (test/replica/chaos.test.ts): the run's shared cluster (pg.ts) serves every other file at the
 * same time and must never go down. Unix socket only, like the shared one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clusterPaths, createDatabaseOn, postgresBinDir, runAsOwner } from './pg-cluster.js';

export interface OwnCluster {
  base: string;
  /** A fresh database on this cluster (the cluster must be running). */
  createDatabase(name: string): Promise<string>;
  start(): void;
  running(): boolean;
  /** pg_ctl stop in fast mode: every session is told 57P01 and the socket disappears. */
  stop(): void;
  /** pg_ctl restart (fast): what an operator or a package upgrade does. */
  restart(): void;
  /** Stops the server (if it runs) and removes its files. */
  remove(): void;
}

export function ownCluster(o: { maxConnections: number }): OwnCluster {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-own-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', base]);
  const p = clusterPaths(base);
  const pgCtl = (...args: string[]) => runAsOwner(path.join(bin, 'pg_ctl'), ['-D', p.data, ...args]);
  runAsOwner(path.join(bin, 'initdb'), ['-D', p.data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const opts = [
    `-k ${p.socketDir}`,
    "-c listen_addresses=''",
    '-c fsync=on',
    `-c max_connections=${o.maxConnections}`,
    '-c superuser_reserved_connections=0',
    '-c shared_buffers=16MB',
  ].join(' ');
  const cluster: OwnCluster = {
    base,
    createDatabase: (name) => createDatabaseOn(base, name),
    start: () => void pgCtl('-o', opts, '-l', p.log, '-w', '-t', '60', 'start'),
    running: () => fs.existsSync(path.join(p.data, 'postmaster.pid')),
    stop: () => void pgCtl('-m', 'fast', '-w', '-t', '60', 'stop'),
    restart: () => void pgCtl('-o', opts, '-l', p.log, '-m', 'fast', '-w', '-t', '60', 'restart'),
    remove() {
      if (fs.existsSync(path.join(p.data, 'postmaster.pid'))) {
        try {
          pgCtl('-m', 'immediate', '-w', 'stop');
        } catch {
          // already stopped
        }
      }
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
