/**
 * Copies an embedded store (a DATA_DIR) into an empty PostgreSQL database, as one commit, then
 * proves the copy: the database is read back by a fresh leader session and every collection's
 * count, every record, and the audit hash chain must match the source. The source is held with
 * its directory lock throughout (a running app refuses to start on it, and the copy waits for none).
 */
import path from 'node:path';
import fs from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { Low } from 'lowdb';
import { verifyAudit } from '../audit/log.js';
import type { Logger } from '../log.js';
import { DurableJsonFile } from '../store/durable-json-file.js';
import { JOURNAL_FILE, openStore, SNAPSHOT_FILE } from '../store/index.js';
import { acquireLock } from '../store/lock.js';
import { loadFromDisk, SNAPSHOT_VERSION, type SnapshotData } from '../store/load.js';
import type { Collections } from '../store/memory.js';
import { collection } from '../store/collection.js';
import { openPgStore } from '../store/pg/index.js';

export interface MigrationReport {
  counts: Record<string, number>;
  records: number;
  auditEntries: number;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Reads the directory as the store would open it (snapshot + journal), ids included. */
export async function readSource(dir: string): Promise<Collections> {
  const snapshotFile = new DurableJsonFile<SnapshotData>(path.join(dir, SNAPSHOT_FILE));
  const low = new Low<SnapshotData>(snapshotFile, { version: SNAPSHOT_VERSION, seq: 0, collections: {} });
  return (await loadFromDisk(low, snapshotFile, path.join(dir, JOURNAL_FILE))).collections;
}

export async function migrateToPostgres(o: {
  from: string;
  url: string;
  logger?: Logger;
  /** Ends the wait for the database and its lock (the copy then fails, having copied nothing). */
  signal?: AbortSignal;
  /** Called once if the database is not reachable at once, or a replica holds its lock. */
  onWaiting?: () => void;
}): Promise<MigrationReport> {
  const dir = await fs.realpath(o.from).catch(() => {
    throw new MigrationError(`${o.from} does not exist: nothing to copy`);
  });
  // First as the app opens it (torn tail dropped, the chain checked), then the records with their ids.
  const source = await openStore({ dir, logger: o.logger });
  let auditEntries: number;
  try {
    const chain = verifyAudit(source);
    if (!chain.ok) throw new MigrationError(`the source's audit log does not verify (${chain.reason}): not copied`);
    auditEntries = chain.count;
  } finally {
    await source.close();
  }
  const lock = await acquireLock(dir, o.logger);
  try {
    const collections = await readSource(dir);
    const counts: Record<string, number> = {};
    for (const [name, m] of collections) if (m.size > 0) counts[name] = m.size;
    const records = Object.values(counts).reduce((a, b) => a + b, 0);

    const target = await openPgStore({ url: o.url, logger: o.logger, signal: o.signal, onWaiting: o.onWaiting });
    try {
      if (target.store.stats().records > 0) {
        throw new MigrationError(
          `the database already holds ${target.store.stats().records} records: copy only into an empty database`,
        );
      }
      await target.store.commit((tx) => {
        for (const [name, m] of collections) for (const [id, v] of m) tx.put(collection<unknown>(name), id, v);
      });
    } finally {
      await target.store.close();
    }

    // Read back by a new session: what the database holds, not this process's memory.
    const check = await openPgStore({ url: o.url, logger: o.logger, signal: o.signal });
    try {
      const got = check.store.counts();
      for (const name of new Set([...Object.keys(counts), ...Object.keys(got)])) {
        if ((got[name] ?? 0) !== (counts[name] ?? 0))
          throw new MigrationError(`${name}: ${counts[name] ?? 0} records in the source, ${got[name] ?? 0} copied`);
      }
      for (const [name, m] of collections) {
        for (const [id, v] of m) {
          if (!isDeepStrictEqual(check.store.get(collection<unknown>(name), id), v))
            throw new MigrationError(`${name}/${id} differs from the source after the copy`);
        }
      }
      const chain = verifyAudit(check.store);
      if (!chain.ok || chain.count !== auditEntries)
        throw new MigrationError(
          `the copied audit log does not verify (${chain.ok ? `${chain.count} of ${auditEntries} entries` : chain.reason})`,
        );
    } finally {
      await check.store.close();
    }
    return { counts, records, auditEntries };
  } finally {
    await lock.release();
  }
}
