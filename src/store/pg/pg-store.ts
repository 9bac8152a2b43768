/**
 * The Store on PostgreSQL: the same in-memory state and commit semantics as the embedded store
 * (memory.ts), made durable by group commit: the commits that arrive while a write is in
 * flight go together in the next one, one PostgreSQL transaction on the leader's connection
 * (fenced by its epoch, leader.ts) holding a multi-row upsert and a multi-row delete.
 *
 * A failed write is final for this process: memory is ahead of the database and this replica
 * may no longer lead (fenced, or its session gone with its lock), so every waiting commit is
 * rejected, later ones are refused, and onFailure asks the process to stop; a restart (or the
 * standby) loads the rows as they are. This is the crash the failover tests make.
 */
import { performance } from 'node:perf_hooks';
import { StoreClosedError, StoreFailedError, StoreUnavailableError } from '../errors.js';
import {
  applyOps,
  CollectionReads,
  deepFreeze,
  removeIds,
  runCommitFn,
  type CommitChanges,
  type Collections,
} from '../memory.js';
import type { Store, StoreHealth, StoreOptions, StoreStats, Tx } from '../types.js';
import {
  DELETE_SQL,
  coldKeys,
  EVICT_SQL,
  KEEP_ORD,
  type PendingEvict,
  type PendingOp,
  reduceBatch,
  UPSERT_SQL,
} from './batch.js';
import { PgHistory } from './history.js';
import type { LeaderSession } from './leader.js';

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export type PgStoreOptions = Pick<StoreOptions, 'logger' | 'onFailure' | 'onCommitDurable'>;

/**
 * Reads the hot records (not evicted: src/store/history.ts), in insertion order, on the leader's
 * connection: what start and takeover load does not grow with history.
 */
export async function loadRecords(
  session: LeaderSession,
): Promise<{ collections: Collections; records: number; nextOrd: number; cold: number }> {
  return session.run(async (c) => {
    const { rows } = await c.query<{ collection: string; id: string; value: unknown; ord: string }>(
      'SELECT collection, id, value, ord FROM store_records WHERE NOT cold ORDER BY ord',
    );
    // Places in insertion order continue after every row's, cold ones included (index-only: store_records_ord).
    const top = await c.query<{ ord: string | null }>('SELECT max(ord) AS ord FROM store_records');
    // An estimate (the planner's), so start never counts the history row by row.
    const est = await c.query<{ n: string }>(
      "SELECT GREATEST(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = 'store_records'::regclass",
    );
    const collections: Collections = new Map();
    let nextOrd = Number(top.rows[0]?.ord ?? 0) + 1;
    for (const r of rows) {
      let m = collections.get(r.collection);
      if (!m) {
        m = new Map();
        collections.set(r.collection, m);
      }
      m.set(r.id, deepFreeze(r.value));
      nextOrd = Math.max(nextOrd, Number(r.ord) + 1);
    }
    return { collections, records: rows.length, nextOrd, cold: Math.max(0, Number(est.rows[0]?.n ?? 0) - rows.length) };
  });
}

export class PgStore extends CollectionReads implements Store {
  private readonly guard = { inCommit: false };
  private commits = 0;
  private flushes = 0;
  private seq = 0;
  private durableSeq = 0;
  private pending: Array<PendingOp | PendingEvict> = [];
  readonly history: PgHistory;
  readonly evicts = true;
  private pendingSeq = 0;
  private waiters: Waiter[] = [];
  private loop: Promise<void> | undefined;
  private closing = false;
  private failed: StoreFailedError | undefined;
  private failedSince = 0;

  constructor(
    private readonly session: LeaderSession,
    collections: Collections,
    private records: number,
    private nextOrd: number,
    private readonly where: string,
    private readonly o: PgStoreOptions,
  ) {
    super(collections);
    session.onLost((err) => this.fail(err));
    this.history = new PgHistory(
      collections,
      session,
      () => this.commit(() => undefined),
      (sql, params) => session.read(sql, params),
    );
  }

  health(): StoreHealth {
    if (!this.failed) return { writable: true };
    return { writable: false, error: new StoreUnavailableError(this.where, this.failed), since: this.failedSince };
  }

  commit<R>(fn: (tx: Tx) => R): Promise<R> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.closing) return Promise.reject(new StoreClosedError(this.where));
    let changes: CommitChanges<R>;
    try {
      changes = runCommitFn(this.collections, this.guard, fn);
    } catch (err) {
      return Promise.reject(err);
    }
    const { result, ops, encoded, evictions } = changes;
    this.commits++;
    if (ops.length > 0 || evictions.length > 0) {
      // Places in insertion order are decided now, against memory: only the leader writes.
      encoded.forEach((op, i) => {
        const absent = !this.collections.get(op.c)?.has(op.id);
        this.pending.push({ op, ord: op.op === 'put' && absent ? this.nextOrd++ : KEEP_ORD });
        // applied one by one so the next op's "absent" sees this one
        this.records += applyOps(this.collections, [ops[i]!]);
      });
      // Out of memory now, cold in the database with this same group commit: history reads wait
      // for it to be durable before asking the database, so a record is always in one or the other.
      // The searched fields are read from memory's copy first; a record not in memory (already
      // cold, or deleted) has nothing to mark.
      for (const e of evictions) {
        const v = this.collections.get(e.c)?.get(e.id);
        if (v !== undefined) this.pending.push({ evict: { ...e, keys: coldKeys(v) } });
      }
      this.records -= removeIds(this.collections, evictions);
      this.pendingSeq = ++this.seq;
      this.kick();
    }
    if (this.seq <= this.durableSeq) return Promise.resolve(result);
    const started = performance.now();
    return new Promise<R>((resolve, reject) => {
      this.waiters.push({
        seq: this.seq,
        resolve: () => {
          this.o.onCommitDurable?.((performance.now() - started) / 1000);
          resolve(result);
        },
        reject,
      });
    });
  }

  private kick(): void {
    if (this.loop) return;
    this.loop = this.flushLoop().finally(() => {
      this.loop = undefined;
      // A commit made after the loop's last look but before this callback waits for nobody else.
      if (this.pending.length > 0 && !this.failed) this.kick();
    });
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0 && !this.failed) {
      const ops = this.pending.splice(0);
      const upTo = this.pendingSeq;
      const batch = reduceBatch(ops);
      try {
        await this.session.transaction(async (c) => {
          if (batch.deletes.ids.length > 0) await c.query(DELETE_SQL, [batch.deletes.collections, batch.deletes.ids]);
          const u = batch.upserts;
          if (u.ids.length > 0) await c.query(UPSERT_SQL, [u.collections, u.ids, u.ords, u.values]);
          const e = batch.evicts;
          if (e.ids.length > 0) await c.query(EVICT_SQL, [e.collections, e.ids, e.refs, e.subjects, e.requests]);
        });
      } catch (err) {
        this.fail(err);
        return;
      }
      this.flushes++;
      this.durableSeq = upTo;
      const done = this.waiters.filter((w) => w.seq <= upTo);
      this.waiters = this.waiters.filter((w) => w.seq > upTo);
      for (const w of done) w.resolve();
    }
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = new StoreFailedError(this.where, err);
    this.failedSince = Date.now();
    this.o.logger?.fatal(
      { err, where: this.where },
      'a database write failed or this replica lost its lead; refusing further commits',
    );
    this.pending = [];
    for (const w of this.waiters.splice(0)) w.reject(this.failed);
    this.o.onFailure?.(this.failed);
  }

  stats(): StoreStats {
    return {
      records: this.records,
      journalBytes: 0,
      snapshotBytes: 0,
      commits: this.commits,
      flushes: this.flushes,
      compactions: 0,
      seq: this.seq,
      dir: this.where,
    };
  }

  /** Nothing to compact: the database reclaims space itself (autovacuum). Waits for what is committed. */
  async compact(): Promise<void> {
    await this.commit(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    while (this.loop) await this.loop;
    await this.session.close();
  }
}
