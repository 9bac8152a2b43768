/**
 * Reading the audit log without holding it: old entries leave memory (src/history/rules.ts) and
 * are read from the store's history in pages, in seq order (ids are zero-padded seqs).
 *
 * Verification walks the chain page by page and never loads it whole. A checkpoint (the seq and
 * hash of an entry a walk verified, kept in the store) lets the routine check (`/treasury audit`,
 * the daily `store.prune` job) walk only the entries written since: it re-hashes the checkpoint's
 * own entry (so the chain still has to reach it) and links on from there. The full walk from
 * entry 1 (`/treasury audit export`, `fullAuditCheck` for the bench) is always available.
 */
import { performance } from 'node:perf_hooks';
import { collection, type Store } from '../store/index.js';
import {
  AUDIT_COLLECTION,
  type AuditEntry,
  type AuditVerification,
  auditCsvRows,
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
/** Entries per page: one index range scan each on PostgreSQL. */
export const AUDIT_PAGE = 2_000;

export type ChainCheck = AuditVerification & {
  /** Entries hashed by this walk (all of them for a full check, the new ones from a checkpoint). */
  walked: number;
  /** Where the walk began: 0 for a full check. */
  from: number;
};

type HistoryStore = Pick<Store, 'get' | 'history'>;

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
  let prev = GENESIS_HASH;
  let expected = 1;
  let from = 0;
  if (cp && head && cp.seq <= head.seq) {
    const at = await store.history.get(AUDIT_COLLECTION, auditId(cp.seq));
    if (!at) return { ok: false, seq: cp.seq, reason: `entry ${cp.seq} is missing`, walked: 0, from: cp.seq };
    const problem = entryProblem(at, cp.seq, at.prevHash);
    if (problem) return { ok: false, ...problem, walked: 1, from: cp.seq };
    if (at.hash !== cp.hash)
      return {
        ok: false,
        seq: cp.seq,
        reason: `entry ${cp.seq} was altered after it was verified`,
        walked: 1,
        from: cp.seq,
      };
    prev = cp.hash;
    expected = cp.seq + 1;
    from = cp.seq;
  }
  const end = head?.seq ?? Number.POSITIVE_INFINITY;
  const size = o.pageSize ?? AUDIT_PAGE;
  const fetch = (after: string | undefined) => {
    const p = store.history.page(AUDIT_COLLECTION, after, size);
    p.catch(() => {}); // a walk that stops early leaves its prefetch unread
    return p;
  };
  let walked = 0;
  let next = expected <= end ? fetch(expected > 1 ? auditId(expected - 1) : undefined) : undefined;
  while (next) {
    const page = await next;
    // The next page is read while this one is hashed: the walk takes the longer of the two, not their sum.
    const last = page.records.at(-1)?.seq ?? end;
    next = page.next !== undefined && last < end ? fetch(page.next) : undefined;
    for (const e of page.records) {
      if (expected > end) break; // written after the walk began
      const problem = entryProblem(e, expected, prev);
      if (problem) return { ok: false, ...problem, walked, from };
      prev = e.hash;
      expected++;
      walked++;
    }
  }
  return { ...headProblem(head, expected - 1, prev), walked, from };
}

/**
 * The routine check: from the checkpoint, then the checkpoint moves to where this walk ended (only
 * when the chain verified). What `/treasury audit` and the daily job run.
 */
export async function checkAuditSinceCheckpoint(store: Store, now: () => number = Date.now): Promise<ChainCheck> {
  const check = await verifyAuditChain(store, { from: 'checkpoint' });
  // The walk verified entries 1 to count against the head it began with (later ones wait for the next walk).
  if (check.ok && check.count > 0) {
    const verified = await store.history.get(AUDIT_COLLECTION, auditId(check.count));
    // The checkpoint only saves the next walk some work: a store refusing writes (disk full) must
    // not turn a check that verified into a failure, so a refused write is left for the next check.
    if (verified)
      await store
        .commit((tx) => {
          const cur = tx.get(AUDIT_CHECKPOINT, CHECKPOINT_ID);
          if (!cur || cur.seq < verified.seq)
            tx.put(AUDIT_CHECKPOINT, CHECKPOINT_ID, {
              seq: verified.seq,
              hash: verified.hash,
              at: new Date(now()).toISOString(),
            });
        })
        .catch(() => undefined);
  }
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

/** The whole log as CSV (header row included), read page by page. */
export async function exportAuditCsv(store: HistoryStore, pageSize = AUDIT_PAGE): Promise<string> {
  const parts: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.history.page(AUDIT_COLLECTION, after, pageSize);
    if (parts.length === 0 || page.records.length > 0) parts.push(auditCsvRows(page.records, parts.length === 0));
    if (page.next === undefined) break;
    after = page.next;
  }
  return parts.join('');
}
