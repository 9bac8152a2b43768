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
 *
 * Files in the directory: LOCK (lock.ts), state.json `{version, seq, collections}`,
 * journal.jsonl, and transient *.tmp files (probe.tmp among them) that are deleted on open.
 */
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import type { Logger } from '../log.js';
import { acquireLock, type DirLock } from './lock.js';
import { DurableJsonFile } from './durable-json-file.js';
import { encodeLine, readJournal, type EncodedOp, type JournalOp } from './journal.js';
import { errorCode, fsyncDir, writeAll, writeFileSynced } from './durable-fs.js';
import { StoreClosedError, StoreCorruptError, StoreFailedError, StoreUnavailableError } from './errors.js';

export { StoreLockedError, type LockInfo } from './lock.js';
export { StoreClosedError, StoreCorruptError, StoreFailedError, StoreUnavailableError, type UnavailableReason } from './errors.js';
export { DurableJsonFile } from './durable-json-file.js';

export interface StoreOptions {
  dir: string;
  logger?: Logger;
  /** Journal size that triggers a snapshot; default max(4 MiB, current snapshot size). */
  compactAfterBytes?: number;
  /**
   * Called once if the store can no longer make memory equal to the disk (StoreFailedError).
   * The only safe move for a process is then to stop and restart from what is on disk. A
   * write the disk refuses (full, quota, read-only, I/O error) is not this: the store undoes
   * the unsaved commits, refuses writes and resumes by itself (StoreUnavailableError).
   */
  onFailure?: (err: StoreFailedError) => void;
  /** While writes fail, how often a probe write checks whether the disk takes writes again; default 1 s. */
  probeIntervalMs?: number;
  /**
   * Test seam: consulted before every journal write and every probe; an error it returns is
   * raised as that write's failure (for machines where a real full disk cannot be made).
   */
  writeGate?: (stage: 'write' | 'sync' | 'probe') => Error | undefined;
  /**
   * Called once each time the store takes writes again after refusing them. What a refused
   * commit left half-done outside the store (a withdrawal sent but its outcome not saved) is
   * picked up here, as a restart would.
   */
  onWritable?: () => void;
}

/** Whether the store takes writes now; when not, the error commits are refused with. */
export type StoreHealth = { writable: true } | { writable: false; error: StoreUnavailableError; since: number };

export interface StoreStats {
  records: number;
  journalBytes: number;
  snapshotBytes: number;
  /** Commits accepted since open (including those that changed nothing). */
  commits: number;
  /** Journal write + fdatasync rounds since open. */
  flushes: number;
  /** Snapshots written since open. */
  compactions: number;
  /** Sequence number of the last commit that changed something. */
  seq: number;
  dir: string;
}

export interface Tx {
  get<T>(c: string, id: string): T | undefined;
  all<T>(c: string): T[];
  /** Stores a deep-frozen JSON copy of value; a put of an existing id keeps its place in insertion order. */
  put<T>(c: string, id: string, value: T): void;
  delete(c: string, id: string): void;
}

/**
 * Durability guarantee that domain code relies on: commits become durable in commit order.
 * When the promise of commit B resolves, B and every commit made before B are on disk.
 * After a crash the state is exactly some prefix of the commit sequence, and that prefix
 * includes every commit whose promise had resolved.
 *
 * Reads (here and in later commits) see a commit as soon as commit() returns, before it is
 * durable. So compare-and-set is simply "read, check, put" inside one commit function, and
 * anything done to the outside world (sending a withdrawal, posting to Slack) must wait
 * for the commit's promise, never act on what a read shows.
 */
export interface Store {
  /** Values are deep-frozen: callers never mutate them. */
  get<T>(collection: string, id: string): T | undefined;
  /** In insertion order. */
  all<T>(collection: string): T[];
  find<T>(collection: string, pred: (v: T) => boolean): T[];
  count(collection: string): number;
  /**
   * fn runs synchronously on the current state; its writes apply atomically (all or none: if
   * fn throws nothing changes and the promise rejects with that error) and the promise
   * resolves with fn's result once the change is durable on disk. fn must not be async and
   * must not call commit() itself.
   */
  commit<R>(fn: (tx: Tx) => R): Promise<R>;
  /** Waits for pending writes, then releases the lock. Later commits reject with StoreClosedError. */
  close(): Promise<void>;
  stats(): StoreStats;
  health(): StoreHealth;
}

const SNAPSHOT_FILE = 'state.json';
const JOURNAL_FILE = 'journal.jsonl';
const SNAPSHOT_VERSION = 1;
const MIN_DEFAULT_COMPACT_BYTES = 4 * 1024 * 1024;
/** A probe write this big must succeed before writes resume: room for a few typical commits. */
const PROBE_BYTES = 64 * 1024;
const PROBE_FILE = 'probe.tmp';

/** Pairs, not an object keyed by id: object keys that look like integers would lose insertion order. */
interface SnapshotData {
  version: number;
  seq: number;
  collections: Record<string, Array<[string, unknown]>>;
}

type Collections = Map<string, Map<string, unknown>>;

export async function openStore(o: StoreOptions): Promise<Store> {
  await fs.mkdir(o.dir, { recursive: true });
  const dir = await fs.realpath(o.dir);
  const lock = await acquireLock(dir, o.logger);
  try {
    // Leftovers of an interrupted snapshot or journal cut; the lock says nobody else owns them.
    for (const name of [`${SNAPSHOT_FILE}.tmp`, `${JOURNAL_FILE}.tmp`, PROBE_FILE]) await fs.rm(path.join(dir, name), { force: true });

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
    o.logger?.info(
      { dir, records, seq, snapshotBytes: snapshotFile.bytes, journalBytes, replayed },
      'store opened',
    );
    return new DurableStore({ dir, lock, low, snapshotFile, journalPath, fh, collections, records, seq, journalBytes, opts: o });
  } catch (err) {
    await lock.release().catch(() => {});
    throw err;
  }
}

interface Loaded {
  collections: Collections;
  records: number;
  seq: number;
  replayed: number;
  journal: Awaited<ReturnType<typeof readJournal>>;
  /** Where the next journal line goes: after the valid lines, or 0 when the snapshot is ahead of them all. */
  journalBytes: number;
}

/**
 * The state as the disk holds it: the snapshot, then the journal lines after it. With
 * `upToSeq`, journal lines after that commit are ignored (they were written but never
 * made durable: a failed fdatasync), so the result is exactly what was acknowledged.
 */
async function loadFromDisk(low: Low<SnapshotData>, snapshotFile: DurableJsonFile<SnapshotData>, journalPath: string, upToSeq = Infinity): Promise<Loaded> {
  await low.read();
  const collections = loadSnapshot(low.data, snapshotFile.file);
  let records = 0;
  for (const m of collections.values()) records += m.size;
  const journal = await readJournal(journalPath);
  let seq = low.data.seq;
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
  if (last && last.seq < low.data.seq) journalBytes = 0;
  return { collections, records, seq, replayed, journal, journalBytes };
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
}

function loadSnapshot(data: SnapshotData, file: string): Collections {
  const bad = (why: string) => new StoreCorruptError(`snapshot ${file} is invalid: ${why}; restore the directory from a backup`, file);
  if (!data || typeof data !== 'object') throw bad('not an object');
  if (data.version !== SNAPSHOT_VERSION) throw bad(`unknown version ${String(data.version)}`);
  if (!Number.isSafeInteger(data.seq) || data.seq < 0) throw bad('invalid seq');
  if (!data.collections || typeof data.collections !== 'object') throw bad('missing collections');
  const out: Collections = new Map();
  for (const [name, pairs] of Object.entries(data.collections)) {
    if (!Array.isArray(pairs)) throw bad(`collection ${name} is not a list`);
    const m = new Map<string, unknown>();
    for (const pair of pairs) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') throw bad(`collection ${name} has a malformed record`);
      m.set(pair[0], deepFreeze(pair[1]));
    }
    out.set(name, m);
  }
  return out;
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

function freezeOp(op: JournalOp): JournalOp {
  if (op.op === 'put') deepFreeze(op.v);
  return op;
}

/** Applies ops in order; returns the change in record count. */
function applyOps(collections: Collections, ops: readonly JournalOp[]): number {
  let delta = 0;
  for (const op of ops) {
    let m = collections.get(op.c);
    if (op.op === 'put') {
      if (!m) collections.set(op.c, (m = new Map()));
      if (!m.has(op.id)) delta++;
      m.set(op.id, op.v);
    } else if (m?.delete(op.id)) {
      delta--;
    }
  }
  return delta;
}

const DELETED = Symbol('deleted');
type Write = { json: string; value: unknown } | typeof DELETED;

/** Buffers a commit's writes so that a throwing fn leaves the store untouched. */
class Transaction implements Tx {
  readonly writes = new Map<string, Map<string, Write>>();
  active = true;

  constructor(private readonly base: Collections) {}

  private check(c: string, id: unknown, needId: boolean): void {
    if (!this.active) throw new Error('this transaction is finished: commit functions must be synchronous and not keep the tx');
    if (typeof c !== 'string' || c === '') throw new TypeError('collection must be a non-empty string');
    if (needId && typeof id !== 'string') throw new TypeError('id must be a string');
  }

  get<T>(c: string, id: string): T | undefined {
    this.check(c, id, true);
    const w = this.writes.get(c)?.get(id);
    if (w === DELETED) return undefined;
    if (w !== undefined) return w.value as T;
    return this.base.get(c)?.get(id) as T | undefined;
  }

  all<T>(c: string): T[] {
    this.check(c, undefined, false);
    const base = this.base.get(c);
    const overlay = this.writes.get(c);
    if (!overlay) return base ? ([...base.values()] as T[]) : [];
    const out: unknown[] = [];
    if (base) {
      for (const [id, v] of base) {
        const w = overlay.get(id);
        if (w === undefined) out.push(v);
        else if (w !== DELETED) out.push(w.value);
      }
    }
    for (const [id, w] of overlay) if (w !== DELETED && !base?.has(id)) out.push(w.value);
    return out as T[];
  }

  put<T>(c: string, id: string, value: T): void {
    this.check(c, id, true);
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`cannot store ${typeof value} in ${c}/${id}: values must be JSON`);
    // What memory holds is exactly what a replay will rebuild (no Dates, undefined fields, shared references).
    this.overlay(c).set(id, { json, value: deepFreeze(JSON.parse(json)) });
  }

  delete(c: string, id: string): void {
    this.check(c, id, true);
    this.overlay(c).set(id, DELETED);
  }

  private overlay(c: string): Map<string, Write> {
    let m = this.writes.get(c);
    if (!m) this.writes.set(c, (m = new Map()));
    return m;
  }
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Compaction {
  /** The snapshot holds every commit up to this seq. */
  seq: number;
  /** Journal lines after `seq` written while the snapshot was being written: the new journal starts with them. */
  tail: string[];
  snapshotDone: boolean;
  ended: Promise<void>;
  end: () => void;
}

interface StoreParts {
  dir: string;
  lock: DirLock;
  low: Low<SnapshotData>;
  snapshotFile: DurableJsonFile<SnapshotData>;
  journalPath: string;
  fh: FileHandle;
  collections: Collections;
  records: number;
  seq: number;
  journalBytes: number;
  opts: StoreOptions;
}

class DurableStore implements Store {
  private readonly dir: string;
  private readonly lock: DirLock;
  private readonly low: Low<SnapshotData>;
  private readonly snapshotFile: DurableJsonFile<SnapshotData>;
  private readonly journalPath: string;
  private readonly logger: Logger | undefined;
  private readonly compactAfterBytes: number | undefined;
  private fh: FileHandle;
  private readonly collections: Collections;
  private records: number;
  private seq: number;
  private durableSeq: number;
  private journalBytes: number;
  private commits = 0;
  private flushes = 0;
  private compactions = 0;
  private pending: Array<{ seq: number; line: string }> = [];
  private waiters: Waiter[] = [];
  private loop: Promise<void> | undefined;
  private compaction: Compaction | undefined;
  /** After a failed snapshot, wait for this much journal before trying again. */
  private compactRetryAt = 0;
  private inCommit = false;
  private closing = false;
  private closed: Promise<void> | undefined;
  private failed: StoreFailedError | undefined;
  private readonly onFailure: StoreOptions['onFailure'];
  /** Set while the disk refuses writes: commits are refused with it until a probe write succeeds. */
  private unavailable: { error: StoreUnavailableError; since: number } | undefined;
  /** The rollback after a failed write, while it runs. */
  private recovery: Promise<void> | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private readonly probeIntervalMs: number;
  private readonly writeGate: StoreOptions['writeGate'];
  private readonly onWritable: StoreOptions['onWritable'];

  constructor(p: StoreParts) {
    this.dir = p.dir;
    this.lock = p.lock;
    this.low = p.low;
    this.snapshotFile = p.snapshotFile;
    this.journalPath = p.journalPath;
    this.fh = p.fh;
    this.collections = p.collections;
    this.records = p.records;
    this.seq = p.seq;
    this.durableSeq = p.seq;
    this.journalBytes = p.journalBytes;
    this.logger = p.opts.logger;
    this.compactAfterBytes = p.opts.compactAfterBytes;
    this.onFailure = p.opts.onFailure;
    this.probeIntervalMs = p.opts.probeIntervalMs ?? 1_000;
    this.writeGate = p.opts.writeGate;
    this.onWritable = p.opts.onWritable;
  }

  health(): StoreHealth {
    return this.unavailable ? { writable: false, ...this.unavailable } : { writable: true };
  }

  get<T>(collection: string, id: string): T | undefined {
    return this.collections.get(collection)?.get(id) as T | undefined;
  }

  all<T>(collection: string): T[] {
    const m = this.collections.get(collection);
    return m ? ([...m.values()] as T[]) : [];
  }

  find<T>(collection: string, pred: (v: T) => boolean): T[] {
    const out: T[] = [];
    const m = this.collections.get(collection);
    if (m) for (const v of m.values()) if (pred(v as T)) out.push(v as T);
    return out;
  }

  count(collection: string): number {
    return this.collections.get(collection)?.size ?? 0;
  }

  commit<R>(fn: (tx: Tx) => R): Promise<R> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.closing) return Promise.reject(new StoreClosedError(this.dir));
    if (this.unavailable) return Promise.reject(this.unavailable.error);
    if (this.inCommit) {
      return Promise.reject(new Error('commit() called inside a commit function: put all writes in the outer transaction'));
    }
    const tx = new Transaction(this.collections);
    let result: R;
    this.inCommit = true;
    try {
      result = fn(tx);
    } catch (err) {
      return Promise.reject(err);
    } finally {
      tx.active = false;
      this.inCommit = false;
    }
    if (result !== null && typeof (result as { then?: unknown } | undefined)?.then === 'function') {
      return Promise.reject(new TypeError('commit functions must be synchronous: do async work before commit() and pass the results in'));
    }
    this.commits++;

    const ops: JournalOp[] = [];
    const encoded: EncodedOp[] = [];
    for (const [c, writes] of tx.writes) {
      const base = this.collections.get(c);
      for (const [id, w] of writes) {
        if (w === DELETED) {
          if (!base?.has(id)) continue;
          ops.push({ op: 'del', c, id });
          encoded.push({ op: 'del', c, id });
        } else {
          ops.push({ op: 'put', c, id, v: w.value });
          encoded.push({ op: 'put', c, id, json: w.json });
        }
      }
    }
    // A commit that changed nothing takes no seq; it resolves once everything before it is durable.
    if (ops.length > 0) {
      const seq = ++this.seq;
      this.records += applyOps(this.collections, ops);
      this.pending.push({ seq, line: encodeLine(seq, encoded) });
      this.kick();
    }
    if (this.seq <= this.durableSeq) return Promise.resolve(result);
    return new Promise<R>((resolve, reject) => {
      this.waiters.push({ seq: this.seq, resolve: () => resolve(result), reject });
    });
  }

  stats(): StoreStats {
    return {
      records: this.records,
      journalBytes: this.journalBytes,
      snapshotBytes: this.snapshotFile.bytes,
      commits: this.commits,
      flushes: this.flushes,
      compactions: this.compactions,
      seq: this.seq,
      dir: this.dir,
    };
  }

  close(): Promise<void> {
    this.closing = true;
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    try {
      for (;;) {
        if (this.recovery) await this.recovery;
        else if (this.compaction) await this.compaction.ended;
        else if (this.loop) await this.loop;
        else if (this.pending.length > 0 && !this.failed && !this.unavailable) this.kick();
        else break;
      }
      clearTimeout(this.probeTimer);
      await this.fh.close();
    } finally {
      await this.lock.release();
    }
  }

  /** Starts the writer unless it is running; it runs on a microtask so that a burst of synchronous commits forms one batch. */
  private kick(): void {
    if (this.loop || this.failed || this.unavailable) return;
    this.loop = Promise.resolve().then(() => this.writeLoop());
  }

  private async writeLoop(): Promise<void> {
    try {
      for (;;) {
        if (this.failed || this.unavailable) return;
        const c = this.compaction;
        if (c?.snapshotDone) {
          await this.finishCompaction(c);
          continue;
        }
        if (this.pending.length === 0) return;
        try {
          await this.flushBatch();
        } catch (err) {
          // The disk refused the journal write: survivable. Undo what is not durable and wait for space.
          this.degrade(err);
          return;
        }
        this.maybeStartCompaction();
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.loop = undefined;
    }
  }

  private async flushBatch(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const buf = Buffer.from(batch.map((l) => l.line).join(''));
    const refused = this.writeGate?.('write');
    if (refused) throw refused;
    await writeAll(this.fh, buf);
    // After the bytes are in the file: a failed fsync leaves complete lines that are not durable.
    const unsynced = this.writeGate?.('sync');
    if (unsynced) throw unsynced;
    await this.fh.datasync();
    this.flushes++;
    this.journalBytes += buf.length;
    const c = this.compaction;
    if (c) for (const l of batch) if (l.seq > c.seq) c.tail.push(l.line);
    this.durableSeq = batch[batch.length - 1]!.seq;
    let n = 0;
    while (n < this.waiters.length && this.waiters[n]!.seq <= this.durableSeq) n++;
    for (const w of this.waiters.splice(0, n)) w.resolve();
  }

  private threshold(): number {
    return this.compactAfterBytes ?? Math.max(MIN_DEFAULT_COMPACT_BYTES, this.snapshotFile.bytes);
  }

  /**
   * Snapshot the in-memory state as of now (seq M). Journal writes go on meanwhile; when the
   * snapshot is durable the journal is replaced by the lines after M. Every crash point is
   * safe: before the snapshot rename the old snapshot + full journal hold everything; after
   * it, replay skips journal lines <= M; after the journal swap only lines > M remain.
   */
  private maybeStartCompaction(): void {
    if (this.compaction || this.closing || this.failed || this.unavailable) return;
    if (this.journalBytes < this.threshold() || this.journalBytes < this.compactRetryAt) return;
    const collections: SnapshotData['collections'] = {};
    for (const [name, m] of this.collections) if (m.size > 0) collections[name] = [...m.entries()];
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    const c: Compaction = { seq: this.seq, tail: [], snapshotDone: false, ended, end };
    this.compaction = c;
    // Values are frozen and replaced, never mutated, so these arrays stay a consistent picture of seq M.
    this.low.data = { version: SNAPSHOT_VERSION, seq: c.seq, collections };
    this.low.write().then(
      () => {
        c.snapshotDone = true;
        this.kick();
        // kick() does nothing if the store failed or is unavailable; nobody will finish this compaction then.
        if (this.failed || this.unavailable) this.abandonCompaction(c);
      },
      (err: unknown) => {
        this.logger?.error({ err, dir: this.dir }, 'writing the snapshot failed; the journal keeps everything, will retry later');
        this.abandonCompaction(c);
      },
    );
  }

  private abandonCompaction(c: Compaction): void {
    if (this.compaction === c) this.compaction = undefined;
    this.compactRetryAt = this.journalBytes + this.threshold();
    c.end();
  }

  private async finishCompaction(c: Compaction): Promise<void> {
    const tmp = `${this.journalPath}.tmp`;
    const tail = Buffer.from(c.tail.join(''));
    try {
      await writeFileSynced(tmp, tail);
      await fs.rename(tmp, this.journalPath);
    } catch (err) {
      // Before the rename nothing changed: the old journal is complete (lines <= M are skipped on replay).
      await fs.rm(tmp, { force: true }).catch(() => {});
      this.logger?.error({ err, dir: this.dir }, 'cutting the journal after a snapshot failed; will retry later');
      this.abandonCompaction(c);
      return;
    }
    // From here a failure is fatal (writeLoop fails the store): our handle points at the replaced file.
    const old = this.fh;
    this.fh = await fs.open(this.journalPath, 'a');
    // The new name must be durable before any commit appended to it is acknowledged.
    await fsyncDir(this.dir);
    await old.close();
    this.journalBytes = tail.length;
    this.compactions++;
    this.compaction = undefined;
    this.compactRetryAt = 0;
    c.end();
    this.logger?.debug({ dir: this.dir, seq: c.seq, snapshotBytes: this.snapshotFile.bytes, journalBytes: this.journalBytes }, 'snapshot written');
  }

  /**
   * A journal write failed. Every commit not yet durable is undone: memory is reloaded from
   * what the disk holds (snapshot + the journal's durable lines; a snapshot written meanwhile
   * counts, its commits are durable), those commits' promises settle accordingly, and the
   * store refuses commits until probe() finds the disk writable again.
   */
  private degrade(cause: unknown): void {
    const error = new StoreUnavailableError(this.dir, cause);
    this.unavailable = { error, since: Date.now() };
    this.logger?.error({ err: error, dir: this.dir, code: error.code }, 'journal write failed; undoing unsaved commits and refusing writes until the disk takes them again');
    if (this.compaction?.snapshotDone) this.abandonCompaction(this.compaction);
    this.recovery = this.rollBack(error).finally(() => (this.recovery = undefined));
  }

  private async rollBack(error: StoreUnavailableError): Promise<void> {
    // A snapshot being written is part of what the disk will hold: wait until it is in or out.
    while (this.compaction) await this.compaction.ended;
    let loaded: Loaded;
    try {
      loaded = await loadFromDisk(this.low, this.snapshotFile, this.journalPath, this.durableSeq);
    } catch (err) {
      // The disk cannot even be read back: memory cannot be made equal to it. Stop, as before.
      this.unavailable = undefined;
      this.fail(err);
      return;
    }
    // Cut the undurable tail now (a crash before the next write must not bring back commits
    // their callers were told failed); shrinking a file works on a full disk. If it fails,
    // probe() cuts it before anything is written.
    try {
      const fh = await fs.open(this.journalPath, 'r+');
      try {
        await fh.truncate(loaded.journalBytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (err) {
      this.logger?.warn({ err, dir: this.dir }, 'could not cut the journal back yet; will before the next write');
    }
    this.collections.clear();
    for (const [name, m] of loaded.collections) this.collections.set(name, m);
    this.records = loaded.records;
    this.seq = loaded.seq;
    this.durableSeq = loaded.seq;
    // Appends continue after the durable lines; the undurable tail is cut by probe() before any write.
    this.journalBytes = loaded.journalBytes;
    this.pending = [];
    const waiters = this.waiters.splice(0);
    let undone = 0;
    for (const w of waiters) {
      if (w.seq <= loaded.seq) w.resolve();
      else {
        undone++;
        w.reject(error);
      }
    }
    this.logger?.warn({ dir: this.dir, seq: loaded.seq, undone }, 'unsaved commits undone; memory equals the disk');
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.closing || this.failed) return;
    this.probeTimer = setTimeout(() => void this.probe(), this.probeIntervalMs);
    this.probeTimer.unref();
  }

  /** Cut the journal back to its durable length, then try a small synced write; on success, resume. */
  private async probe(): Promise<void> {
    if (!this.unavailable || this.closing || this.failed) return;
    const file = path.join(this.dir, PROBE_FILE);
    try {
      const refused = this.writeGate?.('probe');
      if (refused) throw refused;
      const fh = await fs.open(this.journalPath, 'r+');
      try {
        await fh.truncate(this.journalBytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await writeFileSynced(file, Buffer.alloc(PROBE_BYTES));
      await fs.rm(file, { force: true });
      // A fresh handle: after a failed write or fsync the old one's state is not worth trusting.
      const fresh = await fs.open(this.journalPath, 'a');
      if (this.closing) {
        await fresh.close();
        return;
      }
      const old = this.fh;
      this.fh = fresh;
      await old.close().catch(() => {});
    } catch (err) {
      await fs.rm(file, { force: true }).catch(() => {});
      this.logger?.debug({ err, dir: this.dir }, 'store still cannot write');
      this.scheduleProbe();
      return;
    }
    const since = this.unavailable.since;
    this.unavailable = undefined;
    this.logger?.info({ dir: this.dir, unavailableMs: Date.now() - since }, 'store writable again');
    try {
      this.onWritable?.();
    } catch (err) {
      this.logger?.error({ err, dir: this.dir }, 'onWritable failed');
    }
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = new StoreFailedError(this.dir, err);
    this.logger?.fatal({ err, dir: this.dir }, 'journal write failed; refusing further commits');
    this.pending = [];
    for (const w of this.waiters.splice(0)) w.reject(this.failed);
    if (this.compaction && this.compaction.snapshotDone) this.abandonCompaction(this.compaction);
    this.onFailure?.(this.failed);
  }
}
