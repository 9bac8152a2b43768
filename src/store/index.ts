/**
 * The durable store: all application state (withdrawal requests, audit log, webhook events,
 * outbox, settings) lives here and nowhere else.
 *
 * Collections of JSON records keyed by id are held in memory. A commit runs a synchronous
 * function against the current state; its writes are applied at once in memory and appended
 * as one line to `journal.jsonl`. Commits that arrive while a journal write is in progress are
 * grouped into the next single write + fdatasync (group commit). When the journal grows past
 * a threshold, the whole state is written to `state.json` (a lowdb `Low` with our
 * `DurableJsonFile` adapter) and the journal is cut down to the lines the snapshot lacks.
 *
 * When the disk refuses a journal write, every commit not yet durable is undone by reloading
 * memory from the disk (so reads never show what a crash would lose), those commits reject
 * with StoreUnavailableError, later commits are refused at once, and a probe write every
 * probeIntervalMs finds when the disk takes writes again; then the store resumes by itself.
 * "What the disk holds" is read from the files, never from lowdb's memory: a snapshot counts
 * only once it is known durable (its directory fsynced), and the journal is never cut below its
 * last durable line except under such a snapshot. Where that cannot be made sure (the
 * directory fsync keeps failing, or close() cannot cut the lines of refused commits) the store
 * fails (StoreFailedError, onFailure) rather than guess.
 *
 * Files in the directory: LOCK (lock.ts), state.json `{version, seq, collections}`,
 * journal.jsonl, and transient *.tmp files (probe.tmp among them) that are deleted on open.
 *
 * History (history.ts): `tx.evict` takes a record nothing decides on out of memory and
 * `store.history` reads it on demand. Here it is a no-op: the embedded store keeps every record in
 * memory (so it holds only so much: PostgreSQL is the store for years of history); on PostgreSQL (pg/) the record's
 * row is marked cold and the leader's start loads only the hot rows.
 *
 * Modules: collection.ts (typed collection handles), types.ts (the API), memory.ts (state and
 * transactions), history.ts and history-types.ts (hot and cold reads), load.ts (reading the disk), durable-store.ts (commits, journal, snapshots,
 * recovery), journal.ts, lock.ts, durable-fs.ts, durable-json-file.ts, errors.ts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { acquireLock } from './lock.js';
import { DurableJsonFile } from './durable-json-file.js';
import { fsyncDir } from './durable-fs.js';
import { exists, loadFromDisk, SNAPSHOT_VERSION, type SnapshotData } from './load.js';
import { DurableStore, PROBE_FILE } from './durable-store.js';
import type { Store, StoreOptions } from './types.js';

export { StoreLockedError } from './lock.js';
export {
  StoreClosedError,
  StoreCorruptError,
  StoreFailedError,
  StoreUnavailableError,
  type UnavailableReason,
} from './errors.js';
export { collection, singletons, type AnyCollection, type Collection, type Singletons } from './collection.js';
export type { Reads, Store, StoreHealth, StoreOptions, StoreStats, Tx } from './types.js';
export type { HistoryField, HistoryPage, HistoryQuery, HistoryReads } from './history-types.js';

export const SNAPSHOT_FILE = 'state.json';
export const JOURNAL_FILE = 'journal.jsonl';

export async function openStore(o: StoreOptions): Promise<Store> {
  await fs.mkdir(o.dir, { recursive: true });
  const dir = await fs.realpath(o.dir);
  const lock = await acquireLock(dir, o.logger);
  try {
    // Leftovers of an interrupted snapshot or journal cut; the lock says nobody else owns them.
    for (const name of [`${SNAPSHOT_FILE}.tmp`, `${JOURNAL_FILE}.tmp`, PROBE_FILE])
      await fs.rm(path.join(dir, name), { force: true });

    const snapshotFile = new DurableJsonFile<SnapshotData>(path.join(dir, SNAPSHOT_FILE));
    const low = new Low<SnapshotData>(snapshotFile, { version: SNAPSHOT_VERSION, seq: 0, collections: {} });
    const journalPath = path.join(dir, JOURNAL_FILE);
    const loaded = await loadFromDisk(low, snapshotFile, journalPath);
    const { collections, records, seq, replayed, journal } = loaded;
    let journalBytes = loaded.journalBytes;
    const existed = journal.totalBytes > 0 || (await exists(journalPath));
    if (journalBytes === journal.validBytes && journal.validBytes < journal.totalBytes) {
      o.logger?.warn(
        { dir, droppedBytes: journal.totalBytes - journal.validBytes },
        'dropping the torn last line of the journal (a crash interrupted an unacknowledged commit)',
      );
    }
    if (journalBytes < journal.totalBytes) await fs.truncate(journalPath, journalBytes);
    journalBytes = Math.min(journalBytes, journal.totalBytes);
    const fh = await fs.open(journalPath, 'a');
    try {
      await fh.sync(); // makes the truncation durable before anything is appended after it
      if (!existed) await fsyncDir(dir);
    } catch (err) {
      await fh.close();
      throw err;
    }
    o.logger?.info({ dir, records, seq, snapshotBytes: snapshotFile.bytes, journalBytes, replayed }, 'store opened');
    return new DurableStore({
      dir,
      lock,
      low,
      snapshotFile,
      journalPath,
      fh,
      collections,
      records,
      seq,
      journalBytes,
      snapshotSeq: loaded.snapshotSeq,
      opts: o,
    });
  } catch (err) {
    await lock.release().catch(() => {});
    throw err;
  }
}
