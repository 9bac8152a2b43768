/** Reading the state the disk holds: the snapshot, then the journal lines after it. */
import fs from 'node:fs/promises';
import type { Low } from 'lowdb';
import type { DurableJsonFile } from './durable-json-file.js';
import { readJournal } from './journal.js';
import { errorCode } from './durable-fs.js';
import { StoreCorruptError } from './errors.js';
import { applyOps, deepFreeze, freezeOp, type Collections } from './memory.js';

export const SNAPSHOT_VERSION = 1;

/** Pairs, not an object keyed by id: object keys that look like integers would lose insertion order. */
export interface SnapshotData {
  version: number;
  seq: number;
  collections: Record<string, Array<[string, unknown]>>;
}

export interface Loaded {
  collections: Collections;
  records: number;
  seq: number;
  replayed: number;
  journal: Awaited<ReturnType<typeof readJournal>>;
  /** Where the next journal line goes: after the valid lines, or 0 when the snapshot is ahead of them all. */
  journalBytes: number;
  /** The seq the snapshot file holds (0 when there is none). */
  snapshotSeq: number;
}

const EMPTY_SNAPSHOT: SnapshotData = { version: SNAPSHOT_VERSION, seq: 0, collections: {} };

/**
 * The state as the disk holds it: the snapshot, then the journal lines after it. With
 * `upToSeq`, journal lines after that commit are ignored (they were written but never
 * made durable: a failed fdatasync), so the result is exactly what was acknowledged.
 */
export async function loadFromDisk(
  low: Low<SnapshotData>,
  snapshotFile: DurableJsonFile<SnapshotData>,
  journalPath: string,
  upToSeq = Infinity,
): Promise<Loaded> {
  // The file itself, not low.read(): with no file lowdb keeps low.data, which a compaction may
  // have set to a picture that never reached the disk (and may hold commits not yet durable).
  const snapshot = (await snapshotFile.read()) ?? EMPTY_SNAPSHOT;
  if (snapshot === EMPTY_SNAPSHOT) snapshotFile.bytes = 0;
  const collections = loadSnapshot(snapshot, snapshotFile.file);
  low.data = snapshot;
  let records = 0;
  for (const m of collections.values()) records += m.size;
  const journal = await readJournal(journalPath);
  let seq = snapshot.seq;
  const first = journal.entries[0];
  if (first && first.seq > seq + 1) {
    throw new StoreCorruptError(
      `journal ${journalPath} starts at commit ${first.seq} but the snapshot ends at ${seq}: commits are missing. Restore the directory from a backup.`,
      journalPath,
      0,
    );
  }
  let replayed = 0;
  let kept = 0;
  for (const e of journal.entries) {
    if (e.seq > upToSeq) break;
    kept++;
    if (e.seq <= seq) continue; // already in the snapshot (crash between snapshot and journal cut)
    records += applyOps(collections, e.ops.map(freezeOp));
    seq = e.seq;
    replayed++;
  }
  let journalBytes = journal.validBytes;
  if (kept < journal.entries.length) journalBytes = journal.lineEnds?.[kept - 1] ?? 0;
  const last = journal.entries[kept - 1];
  // A snapshot can hold commits the journal never got (crash right after the snapshot);
  // appending seq+1 after these lines would leave a gap that the next open must refuse.
  if (last && last.seq < snapshot.seq) journalBytes = 0;
  return { collections, records, seq, replayed, journal, journalBytes, snapshotSeq: snapshot.seq };
}

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
}

function loadSnapshot(data: SnapshotData, file: string): Collections {
  const bad = (why: string) =>
    new StoreCorruptError(`snapshot ${file} is invalid: ${why}; restore the directory from a backup`, file);
  if (!data || typeof data !== 'object') throw bad('not an object');
  if (data.version !== SNAPSHOT_VERSION) throw bad(`unknown version ${String(data.version)}`);
  if (!Number.isSafeInteger(data.seq) || data.seq < 0) throw bad('invalid seq');
  if (!data.collections || typeof data.collections !== 'object') throw bad('missing collections');
  const out: Collections = new Map();
  for (const [name, pairs] of Object.entries(data.collections)) {
    if (!Array.isArray(pairs)) throw bad(`collection ${name} is not a list`);
    const m = new Map<string, unknown>();
    for (const pair of pairs) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string')
        throw bad(`collection ${name} has a malformed record`);
      m.set(pair[0], deepFreeze(pair[1]));
    }
    out.set(name, m);
  }
  return out;
}
