/**
 * The in-memory state (collection name -> id -> frozen record), how journal ops change it,
 * and the transaction a commit function writes through.
 */
import type { EncodedOp, JournalOp } from './journal.js';
import type { AnyCollection, Collection, Singletons } from './collection.js';
import type { Tx } from './types.js';

export type Collections = Map<string, Map<string, unknown>>;

export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

export function freezeOp(op: JournalOp): JournalOp {
  if (op.op === 'put') deepFreeze(op.v);
  return op;
}

const idVersions = new WeakMap<Map<string, unknown>, number>();

/** Changes each time an id is added to or removed from the map (history's sorted ids are kept until then). */
export function idVersion(m: Map<string, unknown>): number {
  return idVersions.get(m) ?? 0;
}

function idsChanged(m: Map<string, unknown>): void {
  idVersions.set(m, idVersion(m) + 1);
}

/** Takes records out of memory (PostgreSQL's evictions); returns how many left. */
export function removeIds(collections: Collections, ids: readonly { c: string; id: string }[]): number {
  let n = 0;
  for (const { c, id } of ids) {
    const m = collections.get(c);
    if (m?.delete(id)) {
      idsChanged(m);
      n++;
    }
  }
  return n;
}

/** Applies ops in order; returns the change in record count. */
export function applyOps(collections: Collections, ops: readonly JournalOp[]): number {
  let delta = 0;
  for (const op of ops) {
    let m = collections.get(op.c);
    if (op.op === 'put') {
      if (!m) {
        m = new Map();
        collections.set(op.c, m);
      }
      if (!m.has(op.id)) {
        delta++;
        idsChanged(m);
      }
      m.set(op.id, op.v);
    } else if (m?.delete(op.id)) {
      delta--;
      idsChanged(m);
    }
  }
  return delta;
}

export const DELETED = Symbol('deleted');
type Write = { json: string; value: unknown } | typeof DELETED;

/** Buffers a commit's writes so that a throwing fn leaves the store untouched. */
export class Transaction implements Tx {
  readonly writes = new Map<string, Map<string, Write>>();
  /** Records to take out of memory once this commit applies (history.ts); reads in the commit still see them. */
  readonly evictions: Array<{ c: string; id: string }> = [];
  active = true;

  constructor(private readonly base: Collections) {}

  private check(c: string, id: unknown, needId: boolean): void {
    if (!this.active)
      throw new Error('this transaction is finished: commit functions must be synchronous and not keep the tx');
    if (typeof c !== 'string' || c === '') throw new TypeError('collection must be a non-empty string');
    if (needId && typeof id !== 'string') throw new TypeError('id must be a string');
  }

  // The handles are the collection names (collection.ts): the typed overloads are the API, the
  // string signature below each is the one implementation.
  get<T>(c: Collection<T>, id: string): T | undefined;
  get<M, K extends keyof M & string>(c: Singletons<M>, id: K): M[K] | undefined;
  get(c: string, id: string): unknown {
    this.check(c, id, true);
    const w = this.writes.get(c)?.get(id);
    if (w === DELETED) return undefined;
    if (w !== undefined) return w.value;
    return this.base.get(c)?.get(id);
  }

  all<T>(c: Collection<T>): T[];
  all<M>(c: Singletons<M>): Array<M[keyof M]>;
  all(c: string): unknown[] {
    this.check(c, undefined, false);
    const base = this.base.get(c);
    const overlay = this.writes.get(c);
    if (!overlay) return base ? [...base.values()] : [];
    const out: unknown[] = [];
    if (base) {
      for (const [id, v] of base) {
        const w = overlay.get(id);
        if (w === undefined) out.push(v);
        else if (w !== DELETED) out.push(w.value);
      }
    }
    for (const [id, w] of overlay) if (w !== DELETED && !base?.has(id)) out.push(w.value);
    return out;
  }

  put<T>(c: Collection<T>, id: string, value: NoInfer<T>): void;
  put<M, K extends keyof M & string>(c: Singletons<M>, id: K, value: NoInfer<M[K]>): void;
  put(c: string, id: string, value: unknown): void {
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

  evict(c: AnyCollection, id: string): void {
    this.check(c, id, true);
    this.evictions.push({ c, id });
  }

  private overlay(c: string): Map<string, Write> {
    let m = this.writes.get(c);
    if (!m) {
      m = new Map();
      this.writes.set(c, m);
    }
    return m;
  }
}

/** What one commit function changed: the ops to apply (deletes of absent ids dropped), each put with its JSON. */
export interface CommitChanges<R> {
  result: R;
  ops: JournalOp[];
  encoded: EncodedOp[];
  /** Records to take out of memory after the ops (only those that exist then); backends that keep everything ignore them. */
  evictions: Array<{ c: string; id: string }>;
}

/**
 * Runs a commit function against the state (shared by both backends): synchronous, all or
 * nothing, no nesting (`inCommit` is the backend's flag, set while fn runs). Throws fn's error,
 * or a TypeError for an async fn; returns the ops without applying them.
 */
export function runCommitFn<R>(
  collections: Collections,
  guard: { inCommit: boolean },
  fn: (tx: Tx) => R,
): CommitChanges<R> {
  if (guard.inCommit) {
    throw new Error('commit() called inside a commit function: put all writes in the outer transaction');
  }
  const tx = new Transaction(collections);
  let result: R;
  guard.inCommit = true;
  try {
    result = fn(tx);
  } finally {
    tx.active = false;
    guard.inCommit = false;
  }
  if (result !== null && typeof (result as { then?: unknown } | undefined)?.then === 'function') {
    throw new TypeError('commit functions must be synchronous: do async work before commit() and pass the results in');
  }
  const ops: JournalOp[] = [];
  const encoded: EncodedOp[] = [];
  for (const [c, writes] of tx.writes) {
    const base = collections.get(c);
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
  const evictions: Array<{ c: string; id: string }> = [];
  const seen = new Set<string>();
  for (const e of tx.evictions) {
    const key = `${e.c}\u0000${e.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const w = tx.writes.get(e.c)?.get(e.id);
    const exists = w === undefined ? collections.get(e.c)?.has(e.id) === true : w !== DELETED;
    if (exists) evictions.push(e);
  }
  return { result, ops, encoded, evictions };
}

/**
 * The reads of a store over its in-memory collections, the same for every backend (the
 * embedded store and PostgreSQL keep the state in memory alike; only how a commit becomes
 * durable differs).
 */
export abstract class CollectionReads {
  constructor(protected readonly collections: Collections) {}

  // Typed overloads are the API (see Reads); the string signature is the one implementation.
  get<T>(c: Collection<T>, id: string): T | undefined;
  get<M, K extends keyof M & string>(c: Singletons<M>, id: K): M[K] | undefined;
  get(collection: string, id: string): unknown {
    return this.collections.get(collection)?.get(id);
  }

  all<T>(c: Collection<T>): T[];
  all<M>(c: Singletons<M>): Array<M[keyof M]>;
  all(collection: string): unknown[] {
    const m = this.collections.get(collection);
    return m ? [...m.values()] : [];
  }

  find<T>(collection: Collection<T>, pred: (v: T) => boolean): T[] {
    const out: T[] = [];
    const m = this.collections.get(collection);
    if (m) for (const v of m.values()) if (pred(v as T)) out.push(v as T);
    return out;
  }

  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, m] of this.collections) if (m.size > 0) out[name] = m.size;
    return out;
  }

  count(collection: AnyCollection): number {
    return this.collections.get(collection)?.size ?? 0;
  }
}
