/** The store's public shape: options, the reads and writes callers use, and its health. */
import type { WriteGate } from './durable-fs.js';
import type { Logger } from '../log.js';
import type { AnyCollection, Collection, Singletons } from './collection.js';
import type { StoreFailedError, StoreUnavailableError } from './errors.js';
import type { HistoryReads } from './history-types.js';

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
   * Test seam: consulted before each step that touches the disk; an error it returns is raised
   * as that step's failure (for machines where a real full disk cannot be made). Stages:
   * 'write' (a journal append, refused before any byte), 'partial' (half the append is written,
   * then it fails), 'sync' (the journal fdatasync), 'probe', 'snapshot' (the snapshot write),
   * 'dirsync' (a directory fsync: after a snapshot's rename, or before trusting a snapshot that
   * ended in an error), 'cut' (cutting undurable lines off the journal). A real full disk still
   * shrinks files and syncs directories, so a "disk full" gate should refuse only the first four.
   */
  writeGate?: WriteGate;
  /**
   * Called once each time the store takes writes again after refusing them. What a refused
   * commit left half-done outside the store (a withdrawal sent but its outcome not saved) is
   * picked up here, as a restart would.
   */
  onWritable?: () => void;
  /** Each commit that wrote, once durable: seconds from commit() to durability (metrics). */
  onCommitDurable?: (seconds: number) => void;
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

/**
 * Reads by collection handle: the record type is the one the collection was declared with
 * (see collection.ts), so callers never name a type. Values are deep-frozen: never mutate them.
 */
export interface Reads {
  get<T>(c: Collection<T>, id: string): T | undefined;
  get<M, K extends keyof M & string>(c: Singletons<M>, id: K): M[K] | undefined;
  /** In insertion order. */
  all<T>(c: Collection<T>): T[];
  all<M>(c: Singletons<M>): Array<M[keyof M]>;
}

export interface Tx extends Reads {
  /** Stores a deep-frozen JSON copy of value; a put of an existing id keeps its place in insertion order. */
  put<T>(c: Collection<T>, id: string, value: NoInfer<T>): void;
  put<M, K extends keyof M & string>(c: Singletons<M>, id: K, value: NoInfer<M[K]>): void;
  delete(c: AnyCollection, id: string): void;
  /**
   * Takes the record out of memory once this commit applies, keeping it in the store's history
   * (history.ts): on PostgreSQL its row is marked cold in the same group commit; the embedded
   * store keeps it in memory (a no-op). Only for what no decision reads any more: after the
   * commit, get/all/find no longer see it, `store.history` does. Reads in this commit still see it.
   */
  evict(c: AnyCollection, id: string): void;
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
export interface Store extends Reads {
  /** Hot and cold records alike, read on demand (history.ts). */
  readonly history: HistoryReads;
  /**
   * Whether `tx.evict` takes records out of memory (PostgreSQL) or keeps them (the embedded store:
   * a no-op). What an eviction folds into a summary must be folded only where the record leaves,
   * or it would count twice.
   */
  readonly evicts: boolean;
  find<T>(c: Collection<T>, pred: (v: T) => boolean): T[];
  count(c: AnyCollection): number;
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
  /** Record counts per collection name (what /treasury status shows). */
  counts(): Record<string, number>;
  /** Snapshot now and cut the journal (after pruning, so the files shrink); see DurableStore. */
  compact(): Promise<void>;
}
