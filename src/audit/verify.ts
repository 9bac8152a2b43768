/**
 * Reading the audit log without holding it: old entries leave memory (src/history/rules.ts) and
 * are read from the store's history in pages, in seq order (ids are zero-padded seqs).
 *
 * Verification walks the chain page by page (history's scan: on PostgreSQL a connection of its
 * own, the next page read while one is hashed) and never loads it whole. A checkpoint (the seq
 * and hash of an entry a walk verified, kept in the store) lets the interactive check
 * (`/treasury audit`) walk only the entries written since: it re-hashes the checkpoint's own entry
 * (so the chain still has to reach it) and links on from there. That is not a full check (an
 * entry before the checkpoint edited in the database goes unseen), so the daily `store.prune` job
 * walks the whole chain (checkFullAudit) and logs the head's hash, a record kept outside the
 * database; `/treasury audit export` walks it whole too, in the same pass that writes the CSV.
 */
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { collection, type Store } from '../store/index.js';
import {
  AUDIT_COLLECTION,
  type AuditEntry,
  type AuditHead,
  type AuditVerification,
  AUDIT_CSV_OPTIONS,
  auditCsvCells,
  auditHead,
  auditId,
  entryProblem,
  GENESIS_HASH,
  headProblem,
} from './log.js';

export interface AuditCheckpoint {
  /** The last entry a walk verified, and its hash. */
  seq: number;
  hash: string;
  /** When it was verified (ISO 8601). */
  at: string;
}

export const AUDIT_CHECKPOINT = collection<AuditCheckpoint>('audit_checkpoint');
const CHECKPOINT_ID = 'checkpoint';
/** Entries per page: one index range scan each on PostgreSQL (a few MB). */
export const AUDIT_PAGE = 10_000;

export type ChainCheck = AuditVerification & {
  /** Entries hashed by this walk (all of them for a full check, the new ones from a checkpoint). */
  walked: number;
  /** Where the walk began: 0 for a full check. */
  from: number;
  /** When the checkpoint it began from was verified (ISO 8601); undefined for a full check. */
  since?: string;
  /** The hash of the last entry it verified (the head's when the chain verified). */
  lastHash: string;
};

type HistoryStore = Pick<Store, 'get' | 'history'>;

/** Links entries in order from `prev` (the hash of the entry before `expected`) up to `end`. */
class ChainWalk {
  walked = 0;
  problem: { seq: number; reason: string } | undefined;
  constructor(
    public prev: string,
    public expected: number,
    private readonly end: number,
  ) {}

  /** False once the walk is done: past `end` (written after it began) or at a problem. */
  link(e: AuditEntry): boolean {
    if (this.problem || this.expected > this.end) return false;
    this.problem = entryProblem(e, this.expected, this.prev);
    if (this.problem) return false;
    this.prev = e.hash;
    this.expected++;
    this.walked++;
    return true;
  }

  result(head: AuditHead | undefined, from: number, since?: string): ChainCheck {
    const base = { walked: this.walked, from, since, lastHash: this.prev };
    if (this.problem) return { ok: false, ...this.problem, ...base };
    return { ...headProblem(head, this.expected - 1, this.prev), ...base };
  }
}

/**
 * Walks the chain in pages up to the head as it was when the walk began (entries written during
 * it are for the next one). `from: 'checkpoint'` starts at the checkpoint, if there is one.
 */
export async function verifyAuditChain(
  store: HistoryStore,
  o: { from?: 'start' | 'checkpoint'; pageSize?: number } = {},
): Promise<ChainCheck> {
  const head = auditHead(store);
  const cp = o.from === 'checkpoint' ? store.get(AUDIT_CHECKPOINT, CHECKPOINT_ID) : undefined;
  const end = head?.seq ?? Number.POSITIVE_INFINITY;
  let walk = new ChainWalk(GENESIS_HASH, 1, end);
  let from = 0;
  let since: string | undefined;
  if (cp && head && cp.seq <= head.seq) {
    const fail = (walked: number, p: { seq: number; reason: string }): ChainCheck => ({
      ok: false,
      ...p,
      walked,
      from: cp.seq,
      since: cp.at,
      lastHash: cp.hash,
    });
    const at = await store.history.get(AUDIT_COLLECTION, auditId(cp.seq));
    if (!at) return fail(0, { seq: cp.seq, reason: `entry ${cp.seq} is missing` });
    const problem = entryProblem(at, cp.seq, at.prevHash);
    if (problem) return fail(1, problem);
    if (at.hash !== cp.hash)
      return fail(1, { seq: cp.seq, reason: `entry ${cp.seq} was altered after it was verified` });
    walk = new ChainWalk(cp.hash, cp.seq + 1, end);
    from = cp.seq;
    since = cp.at;
  }
  if (walk.expected <= end) {
    const after = walk.expected > 1 ? auditId(walk.expected - 1) : undefined;
    pages: for await (const page of store.history.scan(AUDIT_COLLECTION, after, o.pageSize ?? AUDIT_PAGE))
      for (const e of page) if (!walk.link(e)) break pages;
  }
  return walk.result(head, from, since);
}

/** Moves the checkpoint to the entry a walk verified last (only forward). */
async function moveCheckpoint(store: Store, check: ChainCheck, now: () => number): Promise<void> {
  if (!check.ok || check.count === 0) return;
  // The checkpoint only saves the next walk some work: a store refusing writes (disk full) must
  // not turn a check that verified into a failure, so a refused write is left for the next check.
  await store
    .commit((tx) => {
      const cur = tx.get(AUDIT_CHECKPOINT, CHECKPOINT_ID);
      if (!cur || cur.seq < check.count)
        tx.put(AUDIT_CHECKPOINT, CHECKPOINT_ID, {
          seq: check.count,
          hash: check.lastHash,
          at: new Date(now()).toISOString(),
        });
    })
    .catch(() => undefined);
}

/**
 * The interactive check (`/treasury audit`): from the checkpoint, which then moves to where this
 * walk ended (only when the chain verified). Not a full check: see checkFullAudit.
 */
export async function checkAuditSinceCheckpoint(store: Store, now: () => number = Date.now): Promise<ChainCheck> {
  const check = await verifyAuditChain(store, { from: 'checkpoint' });
  await moveCheckpoint(store, check, now);
  return check;
}

/** The daily check: the whole chain from entry 1; the checkpoint moves to its end. */
export async function checkFullAudit(store: Store, now: () => number = Date.now): Promise<ChainCheck> {
  const check = await verifyAuditChain(store, { from: 'start' });
  await moveCheckpoint(store, check, now);
  return check;
}

/** A full verification, timed (the bench's "audit verification rate"). */
export async function fullAuditCheck(
  store: HistoryStore,
  pageSize = AUDIT_PAGE,
): Promise<{ check: ChainCheck; seconds: number; perSecond: number }> {
  const t0 = performance.now();
  const check = await verifyAuditChain(store, { from: 'start', pageSize });
  const seconds = (performance.now() - t0) / 1000;
  return { check, seconds, perSecond: seconds > 0 ? check.walked / seconds : check.walked };
}

/** The newest n entries, oldest first (from history: they may have left memory). */
export async function readRecentAudit(store: HistoryStore, n: number): Promise<AuditEntry[]> {
  const head = auditHead(store);
  if (n <= 0 || !head) return [];
  const first = Math.max(0, head.seq - n);
  const page = await store.history.page(AUDIT_COLLECTION, first > 0 ? auditId(first) : undefined, n);
  return page.records;
}

/**
 * The whole log as CSV (header row included) streamed into `out` (never one string: a log of
 * millions of entries exceeds what a string may hold), and a full check of the chain in the same
 * walk (up to the head as it was when the walk began). `out` is ended.
 */
export async function exportAuditCsv(store: HistoryStore, out: Writable, pageSize = AUDIT_PAGE): Promise<ChainCheck> {
  const head = auditHead(store);
  const walk = new ChainWalk(GENESIS_HASH, 1, head?.seq ?? Number.POSITIVE_INFINITY);
  const csv = stringify({ header: true, ...AUDIT_CSV_OPTIONS });
  csv.pipe(out);
  const done = finished(out);
  done.catch(() => {}); // awaited below; an early failure must not go unhandled meanwhile
  for await (const page of store.history.scan(AUDIT_COLLECTION, undefined, pageSize)) {
    for (const e of page) {
      walk.link(e);
      if (!csv.write(auditCsvCells(e))) await once(csv, 'drain');
    }
  }
  csv.end();
  await done;
  return walk.result(head, 0);
}
