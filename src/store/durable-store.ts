/**
 * The store itself: commits applied in memory at once and made durable by a group-committing
 * journal writer, snapshots that cut the journal, and the undo-and-probe cycle when the disk
 * refuses writes (see index.ts for the whole picture). Over 400 lines because these three
 * share one set of private state (pending lines, waiters, the journal handle) whose
 * invariants are easier to check in one place than across modules.
 */
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Low } from 'lowdb';
import type { Logger } from '../log.js';
import type { DirLock } from './lock.js';
import type { DurableJsonFile } from './durable-json-file.js';
import { encodeLine } from './journal.js';
import { fsyncDir, writeAll, writeFileSynced } from './durable-fs.js';
import { StoreClosedError, StoreFailedError, StoreUnavailableError } from './errors.js';
import { applyOps, CollectionReads, runCommitFn, type CommitChanges, type Collections } from './memory.js';
import { MemoryHistory } from './history.js';
import { loadFromDisk, SNAPSHOT_VERSION, type Loaded, type SnapshotData } from './load.js';
import type { Store, StoreHealth, StoreOptions, StoreStats, Tx } from './types.js';

const MIN_DEFAULT_COMPACT_BYTES = 4 * 1024 * 1024;
/** A probe write this big must succeed before writes resume: room for a few typical commits. */
const PROBE_BYTES = 64 * 1024;
export const PROBE_FILE = 'probe.tmp';

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
  /** low.data before this compaction set it: put back if the snapshot is abandoned. */
  prevData: SnapshotData;
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
  /** The seq of the snapshot on disk at open. */
  snapshotSeq: number;
  opts: StoreOptions;
}

export class DurableStore extends CollectionReads implements Store {
  /** Everything stays in memory here (evict is a no-op), so memory is the whole history. */
  readonly history = new MemoryHistory(this.collections);
  readonly evicts = false;
  private readonly dir: string;
  private readonly lock: DirLock;
  private readonly low: Low<SnapshotData>;
  private readonly snapshotFile: DurableJsonFile<SnapshotData>;
  private readonly journalPath: string;
  private readonly logger: Logger | undefined;
  private readonly compactAfterBytes: number | undefined;
  private fh: FileHandle;
  private records: number;
  private seq: number;
  private durableSeq: number;
  private journalBytes: number;
  /**
   * The seq of the last snapshot known durable: read at open, or written by this process with
   * every step done (fsynced, renamed, directory fsynced). Only such a snapshot may let a
   * rollback cut the journal below its last durable line.
   */
  private trustedSnapshotSeq: number;
  /** Undurable journal lines may still be in the file (a rollback could not cut them). */
  private cutPending = false;
  /** The probe while it runs: shutdown waits for it, so it never touches the files after the lock is released. */
  private probing: Promise<void> | undefined;
  private commits = 0;
  private flushes = 0;
  private compactions = 0;
  private pending: Array<{ seq: number; line: string }> = [];
  private waiters: Waiter[] = [];
  private loop: Promise<void> | undefined;
  private compaction: Compaction | undefined;
  /** After a failed snapshot, wait for this much journal before trying again. */
  private compactRetryAt = 0;
  /** Set while a commit function runs: a nested commit() is refused. */
  private readonly guard = { inCommit: false };
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
  private readonly onCommitDurable: StoreOptions['onCommitDurable'];

  constructor(p: StoreParts) {
    super(p.collections);
    this.dir = p.dir;
    this.lock = p.lock;
    this.low = p.low;
    this.snapshotFile = p.snapshotFile;
    this.journalPath = p.journalPath;
    this.fh = p.fh;
    this.records = p.records;
    this.seq = p.seq;
    this.durableSeq = p.seq;
    this.journalBytes = p.journalBytes;
    this.trustedSnapshotSeq = p.snapshotSeq;
    this.logger = p.opts.logger;
    this.compactAfterBytes = p.opts.compactAfterBytes;
    this.onFailure = p.opts.onFailure;
    this.probeIntervalMs = p.opts.probeIntervalMs ?? 1_000;
    this.writeGate = p.opts.writeGate;
    this.snapshotFile.gate = this.writeGate;
    this.onWritable = p.opts.onWritable;
    this.onCommitDurable = p.opts.onCommitDurable;
  }

  health(): StoreHealth {
    return this.unavailable ? { writable: false, ...this.unavailable } : { writable: true };
  }

  commit<R>(fn: (tx: Tx) => R): Promise<R> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.closing) return Promise.reject(new StoreClosedError(this.dir));
    if (this.unavailable) return Promise.reject(this.unavailable.error);
    let changes: CommitChanges<R>;
    try {
      changes = runCommitFn(this.collections, this.guard, fn);
    } catch (err) {
      return Promise.reject(err);
    }
    const { result, ops, encoded } = changes;
    this.commits++;

    // A commit that changed nothing takes no seq; it resolves once everything before it is durable.
    if (ops.length > 0) {
      const seq = ++this.seq;
      this.records += applyOps(this.collections, ops);
      this.pending.push({ seq, line: encodeLine(seq, encoded) });
      this.kick();
    }
    if (this.seq <= this.durableSeq) return Promise.resolve(result);
    const started = performance.now();
    return new Promise<R>((resolve, reject) => {
      const durable = () => {
        this.onCommitDurable?.((performance.now() - started) / 1000);
        resolve(result);
      };
      this.waiters.push({ seq: this.seq, resolve: durable, reject });
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

  /**
   * Writes a snapshot now, whatever the journal's size, and cuts the journal under it (after
   * pruning, so the files shrink). The same snapshot path as the automatic one, so every crash
   * point is as safe; resolves when it is done, or at once if the store cannot write.
   */
  async compact(): Promise<void> {
    await this.commit(() => undefined); // everything committed so far is durable first
    while (this.compaction) await this.compaction.ended;
    if (this.closing || this.failed || this.unavailable) return;
    this.maybeStartCompaction(true);
    const c = this.compaction as Compaction | undefined;
    if (c) await c.ended;
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
      if (this.probing) await this.probing;
      // A refused write may have left complete lines that were never acknowledged (their
      // callers were told they failed): they must not replay on the next open.
      if ((this.unavailable || this.cutPending) && !this.failed) {
        try {
          await this.cutJournal(this.journalBytes);
        } catch (err) {
          this.fail(err);
        }
      }
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
    const torn = this.writeGate?.('partial');
    if (torn) {
      await writeAll(this.fh, buf.subarray(0, Math.ceil(buf.length / 2)));
      throw torn;
    }
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
  private maybeStartCompaction(force = false): void {
    if (this.compaction || this.closing || this.failed || this.unavailable) return;
    if (!force && (this.journalBytes < this.threshold() || this.journalBytes < this.compactRetryAt)) return;
    const collections: SnapshotData['collections'] = {};
    for (const [name, m] of this.collections) if (m.size > 0) collections[name] = [...m.entries()];
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    const c: Compaction = { seq: this.seq, tail: [], snapshotDone: false, prevData: this.low.data, ended, end };
    this.compaction = c;
    // Values are frozen and replaced, never mutated, so these arrays stay a consistent picture of seq M.
    this.low.data = { version: SNAPSHOT_VERSION, seq: c.seq, collections };
    this.low.write().then(
      () => {
        c.snapshotDone = true;
        this.trustedSnapshotSeq = Math.max(this.trustedSnapshotSeq, c.seq);
        this.kick();
        // kick() does nothing if the store failed or is unavailable; nobody will finish this compaction then.
        if (this.failed || this.unavailable) this.abandonCompaction(c);
      },
      (err: unknown) => {
        this.logger?.error(
          { err, dir: this.dir },
          'writing the snapshot failed; the journal keeps everything, will retry later',
        );
        this.abandonCompaction(c);
      },
    );
  }

  private abandonCompaction(c: Compaction): void {
    if (this.compaction === c) this.compaction = undefined;
    // low.data must not keep a picture that may never have reached the disk.
    if (!c.snapshotDone && this.low.data?.seq === c.seq) this.low.data = c.prevData;
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
    this.logger?.debug(
      { dir: this.dir, seq: c.seq, snapshotBytes: this.snapshotFile.bytes, journalBytes: this.journalBytes },
      'snapshot written',
    );
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
    this.logger?.error(
      { err: error, dir: this.dir, code: error.code },
      'journal write failed; undoing unsaved commits and refusing writes until the disk takes them again',
    );
    if (this.compaction?.snapshotDone) this.abandonCompaction(this.compaction);
    this.recovery = this.rollBack(error).finally(() => (this.recovery = undefined));
  }

  private async rollBack(error: StoreUnavailableError): Promise<void> {
    // A snapshot being written is part of what the disk will hold: wait until it is in or out.
    while (this.compaction) await this.compaction.ended;
    let loaded: Loaded;
    try {
      loaded = await loadFromDisk(this.low, this.snapshotFile, this.journalPath, this.durableSeq);
      if (loaded.snapshotSeq !== this.trustedSnapshotSeq) {
        // Only a snapshot whose write failed after its rename gets here: its content is whole
        // (fsynced before the rename) but its name may not survive a crash. Trusting it means
        // resolving its commits and cutting the journal under it, so make the name durable first.
        await fsyncDir(this.dir, this.writeGate);
        this.trustedSnapshotSeq = loaded.snapshotSeq;
      }
      // Below the last durable line only under a snapshot this process saw complete that holds all of it.
      if (
        loaded.journalBytes < this.journalBytes &&
        !(loaded.snapshotSeq === this.trustedSnapshotSeq && loaded.snapshotSeq >= this.durableSeq)
      ) {
        throw new Error(
          `the journal would be cut below its last acknowledged line (to ${loaded.journalBytes} of ${this.journalBytes} bytes)`,
        );
      }
      if (loaded.seq < this.durableSeq) {
        throw new Error(`the disk holds commits up to ${loaded.seq} but ${this.durableSeq} were acknowledged`);
      }
    } catch (err) {
      // The disk cannot be read back, or what it holds cannot be trusted: memory cannot be made
      // equal to it. Stop; a restart reloads whatever the disk really holds.
      this.unavailable = undefined;
      this.fail(err);
      return;
    }
    // Cut the undurable tail now (a crash before the next write must not bring back commits
    // their callers were told failed); shrinking a file works on a full disk. If it fails,
    // probe() cuts it before anything is written, and close() before it lets go.
    try {
      await this.cutJournal(loaded.journalBytes);
    } catch (err) {
      this.cutPending = true;
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
    this.probeTimer = setTimeout(() => {
      // Set before the probe's first step runs, so a close() from anywhere sees it.
      this.probing = Promise.resolve()
        .then(() => this.probe())
        .catch((err: unknown) => this.logger?.error({ err, dir: this.dir }, 'probe failed unexpectedly'))
        .finally(() => (this.probing = undefined));
    }, this.probeIntervalMs);
    this.probeTimer.unref();
  }

  /** Cut the journal back to its durable length, then try a small synced write; on success, resume. */
  private async probe(): Promise<void> {
    if (!this.unavailable || this.closing || this.failed) return;
    const file = path.join(this.dir, PROBE_FILE);
    try {
      const refused = this.writeGate?.('probe');
      if (refused) throw refused;
      await this.cutJournal(this.journalBytes);
      this.cutPending = false;
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

  /** Cut the journal to `bytes` (dropping lines that were never made durable) and sync the cut. */
  private async cutJournal(bytes: number): Promise<void> {
    const refused = this.writeGate?.('cut');
    if (refused) throw refused;
    const fh = await fs.open(this.journalPath, 'r+');
    try {
      await fh.truncate(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = new StoreFailedError(this.dir, err);
    this.logger?.fatal({ err, dir: this.dir }, 'journal write failed; refusing further commits');
    this.pending = [];
    for (const w of this.waiters.splice(0)) w.reject(this.failed);
    if (this.compaction?.snapshotDone) this.abandonCompaction(this.compaction);
    this.onFailure?.(this.failed);
  }
}
