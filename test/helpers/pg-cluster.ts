/**
 * Where PostgreSQL's binaries are, and how to run them as the cluster's owner (initdb and the
 * server refuse root: as root, they run as the `postgres` user). Shared by the global setup
 * (teardown), the per-file helper (start) and the bench.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

/** The directory holding initdb, pg_ctl and postgres; undefined when PostgreSQL is not installed. */
export function postgresBinDir(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl')))
      return fs.realpathSync(path.dirname(fs.realpathSync(path.join(dir, 'initdb'))));
  }
  // Debian's packages keep the binaries off PATH, one directory per major version: the newest wins.
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

export function clusterPaths(base: string) {
  return {
    data: path.join(base, 'data'),
    /** The unix socket's directory (the socket is `.s.PGSQL.5432` in it). */
    socketDir: base,
    log: path.join(base, 'server.log'),
    lock: path.join(base, 'starting.lock'),
    ready: path.join(base, 'ready'),
  };
}

const asRoot = () => process.getuid?.() === 0;

export function runAsOwner(file: string, args: string[]): string {
  const [cmd, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * initdb (trust auth, no TCP: unix socket only) and start. `fsync` stays on, as in production:
 * the failover tests count on a commit being durable when the server says so. initdb's own
 * flush of the fresh cluster is skipped (a throwaway cluster need not survive a power cut).
 */
export function startCluster(bin: string, base: string): void {
  const p = clusterPaths(base);
  runAsOwner(path.join(bin, 'initdb'), [
    '-D',
    p.data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  const opts = [
    `-k ${p.socketDir}`,
    "-c listen_addresses=''",
    '-c fsync=on',
    '-c max_connections=200',
    '-c shared_buffers=32MB',
  ].join(' ');
  runAsOwner(path.join(bin, 'pg_ctl'), ['-D', p.data, '-o', opts, '-l', p.log, '-w', '-t', '60', 'start']);
}

/** A connection string for a database of the cluster, over its unix socket. */
export function clusterUrl(base: string, database: string): string {
  return `postgres://postgres@localhost/${database}?host=${encodeURIComponent(clusterPaths(base).socketDir)}`;
}

/** Makes a database on the running cluster at `base`; its URL. */
export async function createDatabaseOn(base: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: clusterUrl(base, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return clusterUrl(base, name);
}
