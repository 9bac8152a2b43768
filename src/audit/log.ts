/**
 * The append-only, hash-chained audit log (ARCHITECTURE.md invariant 7).
 *
 * Entries are written with `appendAudit(tx, ...)` inside the SAME store commit as the state
 * change they describe, so the log and the state can never disagree after a crash. Each entry
 * carries the hash of the previous one; a head record holds the last seq and hash so that
 * deleting the newest entry is detected too, not only edits and gaps in the middle.
 */
import { createHash } from 'node:crypto';
import { stringify as csvStringify } from 'csv-stringify/sync';
import { configure } from 'safe-stable-stringify';
import { collection, type Store, type Tx } from '../store/index.js';
import type { AuditAction } from './actions.js';

export const AUDIT_COLLECTION = collection<AuditEntry>('audit');
export const AUDIT_HEAD_COLLECTION = collection<AuditHead>('audit_head');
const HEAD_ID = 'head';
export const GENESIS_HASH = '0'.repeat(64);

// Strict: a value JSON cannot represent (bigint, function, cycle) must fail loudly, not be hashed as something else.
const canonical = configure({ bigint: false, circularValue: Error, deterministic: true, strict: true });

export interface AuditEntry {
  seq: number;
  /** ISO 8601. */
  at: string;
  /** Slack user id, or "system" for jobs and recovery. */
  actor: string;
  action: string;
  /** What the step is about, e.g. a withdrawal request id. */
  subject: string;
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

export interface AuditInput {
  actor: string;
  /** One of the app's actions: each has words in `/treasury audit` (src/slack/audit-words.ts). */
  action: AuditAction;
  subject: string;
  details?: Record<string, unknown>;
  /** Default: now. */
  at?: Date | number | string;
}

export interface AuditHead {
  seq: number;
  hash: string;
}

export type AuditVerification = { ok: true; count: number } | { ok: false; seq: number; reason: string };

export function auditId(seq: number): string {
  return String(seq).padStart(12, '0');
}

export function hashAuditEntry(e: Omit<AuditEntry, 'hash'>): string {
  const body = {
    seq: e.seq,
    at: e.at,
    actor: e.actor,
    action: e.action,
    subject: e.subject,
    details: e.details,
    prevHash: e.prevHash,
  };
  const text = canonical(body);
  if (typeof text !== 'string') throw new TypeError('audit entry cannot be serialized');
  return createHash('sha256').update(text).digest('hex');
}

function toIso(at: AuditInput['at']): string {
  if (at === undefined) return new Date().toISOString();
  return new Date(at).toISOString();
}

/** Appends one entry to the chain within the caller's commit; returns it. */
export function appendAudit(tx: Tx, input: AuditInput): AuditEntry {
  const head = tx.get(AUDIT_HEAD_COLLECTION, HEAD_ID) ?? { seq: 0, hash: GENESIS_HASH };
  // Round-trip through JSON so the hash covers exactly what the store will hold (no undefined fields, no Dates).
  const details = JSON.parse(JSON.stringify(input.details ?? {})) as Record<string, unknown>;
  const base = {
    seq: head.seq + 1,
    at: toIso(input.at),
    actor: input.actor,
    action: input.action,
    subject: input.subject,
    details,
    prevHash: head.hash,
  };
  const entry: AuditEntry = { ...base, hash: hashAuditEntry(base) };
  tx.put(AUDIT_COLLECTION, auditId(entry.seq), entry);
  tx.put(AUDIT_HEAD_COLLECTION, HEAD_ID, { seq: entry.seq, hash: entry.hash });
  return entry;
}

/** Why an entry breaks the chain (it should be entry `expected`, linking to `prev`), or undefined. */
export function entryProblem(
  e: AuditEntry,
  expected: number,
  prev: string,
): { seq: number; reason: string } | undefined {
  if (e.seq !== expected) return { seq: expected, reason: `entry ${expected} is missing (found ${e.seq} next)` };
  if (e.prevHash !== prev) return { seq: e.seq, reason: `entry ${e.seq} does not link to the entry before it` };
  let actual: string;
  try {
    actual = hashAuditEntry(e);
  } catch {
    return { seq: e.seq, reason: `entry ${e.seq} cannot be serialized` };
  }
  if (actual !== e.hash)
    return { seq: e.seq, reason: `entry ${e.seq} was altered (its hash does not match its content)` };
  return undefined;
}

/** Whether the chain walked (ending at entry `last` with hash `prev`) ends where the head says. */
export function headProblem(head: AuditHead | undefined, last: number, prev: string): AuditVerification {
  if (!head) {
    if (last === 0) return { ok: true, count: 0 };
    return { ok: false, seq: last, reason: 'the audit head record is missing' };
  }
  if (head.seq !== last || head.hash !== prev) {
    return {
      ok: false,
      seq: Math.min(head.seq, last + 1),
      reason: `the log ends at entry ${last} but ${head.seq} entries were written: entries were removed from the end`,
    };
  }
  return { ok: true, count: last };
}

export function auditHead(store: Pick<Store, 'get'>): AuditHead | undefined {
  return store.get(AUDIT_HEAD_COLLECTION, HEAD_ID);
}

/** The newest n entries held in memory, oldest first (commands read history: readRecentAudit, verify.ts). */
export function recentAudit(store: Store, n: number): AuditEntry[] {
  if (n <= 0) return [];
  const all = store.all(AUDIT_COLLECTION);
  return all.slice(Math.max(0, all.length - n));
}

/** The log held in memory as CSV (commands read history: exportAuditCsv, verify.ts). */
export function auditCsv(store: Store): string {
  return auditCsvRows(store.all(AUDIT_COLLECTION), true);
}

/**
 * Walks the chain held in memory: for a store that keeps every entry there (the embedded store,
 * the migration's source). A store with history verifies with verifyAuditChain (verify.ts).
 */
export function verifyAudit(store: Store): AuditVerification {
  const entries = [...store.all(AUDIT_COLLECTION)].sort((a, b) => a.seq - b.seq);
  let prev = GENESIS_HASH;
  let expected = 1;
  for (const e of entries) {
    const problem = entryProblem(e, expected, prev);
    if (problem) return { ok: false, ...problem };
    prev = e.hash;
    expected++;
  }
  return headProblem(auditHead(store), expected - 1, prev);
}

export const AUDIT_CSV_COLUMNS = ['seq', 'at', 'actor', 'action', 'subject', 'details', 'prevHash', 'hash'] as const;

/** One entry as a CSV row's cells (AUDIT_CSV_COLUMNS); details as canonical JSON. */
export function auditCsvCells(e: AuditEntry): Array<string | number> {
  return [e.seq, e.at, e.actor, e.action, e.subject, canonical(e.details) ?? '{}', e.prevHash, e.hash];
}

/** csv-stringify's options for the log (sync here, streamed by the export: verify.ts). */
// escape_formulas: a cell a spreadsheet would run as a formula gets a leading ' (details are JSON, never affected).
export const AUDIT_CSV_OPTIONS = { columns: [...AUDIT_CSV_COLUMNS], escape_formulas: true };

/** Entries as CSV rows (the header row first when `header`). */
export function auditCsvRows(entries: readonly AuditEntry[], header: boolean): string {
  return csvStringify(entries.map(auditCsvCells), { header, ...AUDIT_CSV_OPTIONS });
}
