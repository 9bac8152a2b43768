/**
 * Copies an embedded store (a DATA_DIR) into an empty PostgreSQL database in batches, then
 * proves the copy: the database is read back by a fresh leader session and every collection's
 * count, every record, and the audit hash chain must match the source. The source is held with
 * its directory lock throughout (a running app refuses to start on it, and the copy waits for none).
 *
 * Batches, resumable: years of history in one transaction make one long transaction and one
 * WAL burst that a failure throws away whole, so records go in commits of `batch` (default
 * 5,000), in a fixed order, each commit also writing how far the copy got (a `store_migration`
 * record: the source's identity and the records done). The batches shrink the transactions,
 * not the memory: the source is read whole first, and the database's leader session keeps what
 * it wrote. A copy stopped half-way (killed, database gone) resumes where its last commit ended
 * when run again on the same, unchanged source; a source that changed since (the app ran on
 * it) is refused, naming what to do. The progress record outlives the last batch: it is
 * deleted only once the read-back check has passed, so until then the app refuses to lead on
 * the database (store/pg/index.ts), and a second run after that finds the database in use.
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
import { openPgStore, UNFINISHED_COPY } from '../store/pg/index.js';

export const DEFAULT_BATCH = 5_000;
const CHECK_WAIT_MS = 120_000;

export interface MigrationReport {
  counts: Record<string, number>;
  records: number;
  auditEntries: number;
  /** Records found already copied by an earlier, interrupted run (0 for a fresh copy). */
  resumedAt: number;
}

export interface MigrationProgress {
  done: number;
  total: number;
  /** Records an earlier, interrupted run had copied (the copy resumed after them). */
  resumedAt: number;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** How far a copy got, written in each batch's commit; deleted by the last one. */
interface CopyProgress {
  /** The source's real path, its last commit's sequence number and its record count. */
  source: string;
  seq: number;
  total: number;
  done: number;
  startedAt: string;
}
const PROGRESS = collection<CopyProgress>(UNFINISHED_COPY);
const PROGRESS_ID = 'copy';

/** Reads the directory as the store would open it (snapshot + journal), ids included. */
export async function readSource(dir: string): Promise<Collections> {
  return (await loadSource(dir)).collections;
}

/** The records and the sequence number of the last commit, read in one pass. */
async function loadSource(dir: string): Promise<{ collections: Collections; seq: number }> {
  const snapshotFile = new DurableJsonFile<SnapshotData>(path.join(dir, SNAPSHOT_FILE));
  const low = new Low<SnapshotData>(snapshotFile, { version: SNAPSHOT_VERSION, seq: 0, collections: {} });
  const { collections, seq } = await loadFromDisk(low, snapshotFile, path.join(dir, JOURNAL_FILE));
  return { collections, seq };
}

export async function migrateToPostgres(o: {
  from: string;
  url: string;
  logger?: Logger;
  /** Ends the wait for the database and its lock (the copy then fails, having copied nothing). */
  signal?: AbortSignal;
  /** Called once if the database is not reachable at once, or a replica holds its lock. */
  onWaiting?: () => void;
  /** Records per commit; default DEFAULT_BATCH. */
  batch?: number;
  /** After each batch is committed (durable in the database). */
  onProgress?: (p: MigrationProgress) => void;
}): Promise<MigrationReport> {
  const batch = o.batch ?? DEFAULT_BATCH;
  if (!Number.isInteger(batch) || batch < 1) throw new MigrationError(`a batch is at least 1 record, not ${batch}`);
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
    // The commit number is read under the lock, with the records: an app that wrote between
    // the check above and the lock is in both, so a resumed copy compares the source it copies.
    const { collections, seq } = await loadSource(dir);
    const counts: Record<string, number> = {};
    for (const [name, m] of collections) if (m.size > 0) counts[name] = m.size;
    // One fixed order (collections, then ids, as stored), so a resumed copy knows what is done.
    const rows: Array<[string, string, unknown]> = [];
    for (const [name, m] of collections) for (const [id, v] of m) rows.push([name, id, v]);
    const total = rows.length;

    const target = await openPgStore({
      url: o.url,
      logger: o.logger,
      signal: o.signal,
      onWaiting: o.onWaiting,
      unfinishedCopy: 'open',
    });
    let resumedAt = 0;
    try {
      resumedAt = resumePoint(target.store, { source: dir, seq, total });
      for (let done = resumedAt; done < total; ) {
        const end = Math.min(total, done + batch);
        const from = done;
        await target.store.commit((tx) => {
          for (let i = from; i < end; i++) {
            const [name, id, v] = rows[i]!;
            tx.put(collection<unknown>(name), id, v);
          }
          // Written by the last batch too: the check below deletes it once the copy is proven.
          const started = tx.get(PROGRESS, PROGRESS_ID)?.startedAt ?? new Date().toISOString();
          tx.put(PROGRESS, PROGRESS_ID, { source: dir, seq, total, done: end, startedAt: started });
        });
        done = end;
        o.onProgress?.({ done, total, resumedAt });
      }
    } finally {
      await target.store.close();
    }

    // Read back by a new session: what the database holds, not this process's memory. Its own
    // wait: the caller's may have run out during a long copy, and only a replica started
    // meanwhile could hold the lock now.
    const check = await openPgStore({
      url: o.url,
      logger: o.logger,
      signal: AbortSignal.timeout(CHECK_WAIT_MS),
      unfinishedCopy: 'open',
    });
    try {
      const { [PROGRESS]: _marker, ...got } = check.store.counts();
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
      // Proven: only now may the app lead on this database.
      if (check.store.get(PROGRESS, PROGRESS_ID)) await check.store.commit((tx) => tx.delete(PROGRESS, PROGRESS_ID));
    } finally {
      await check.store.close();
    }
    return { counts, records: total, auditEntries, resumedAt };
  } finally {
    await lock.release();
  }
}

/**
 * Where the copy starts: 0 in an empty database; where an interrupted copy of this same,
 * unchanged source stopped; refused otherwise (a database in use, or another source's copy).
 */
function resumePoint(
  store: { stats(): { records: number }; get(c: typeof PROGRESS, id: string): CopyProgress | undefined },
  me: { source: string; seq: number; total: number },
): number {
  const held = store.stats().records;
  if (held === 0) return 0;
  const p = store.get(PROGRESS, PROGRESS_ID);
  if (!p) throw new MigrationError(`the database already holds ${held} records: copy only into an empty database`);
  if (p.source !== me.source)
    throw new MigrationError(
      `the database holds an unfinished copy of ${p.source}, not of ${me.source}: finish that one, or start again on an empty database`,
    );
  if (p.seq !== me.seq || p.total !== me.total)
    throw new MigrationError(
      'the source changed since the interrupted copy (the app ran on it): start again on an empty database (drop and create it)',
    );
  // The records copied and the progress record itself.
  if (held !== p.done + 1)
    throw new MigrationError(
      `the database holds ${held - 1} records besides the unfinished copy's ${p.done}: start again on an empty database`,
    );
  return p.done;
}
