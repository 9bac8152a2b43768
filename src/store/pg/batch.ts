/**
 * A group commit's ops, reduced to what one PostgreSQL transaction writes: per record only its
 * last state (a multi-row upsert may touch a row once), each put carrying its place in insertion
 * order, and whether it ends cold (evicted after its last put: src/store/history.ts). Pure; the
 * store's memory applies the same ops in the same order.
 */
import { fieldOf } from '../history.js';
import type { EncodedOp } from '../journal.js';

/** `ord` is a new place for a record that was absent (or deleted earlier in the batch); KEEP_ORD keeps its place. */
export const KEEP_ORD = -1;

export interface PendingOp {
  op: EncodedOp;
  ord: number;
}

/** The fields history searches (HISTORY_FIELDS), as the row's columns ref, subject, request hold them. */
export type ColdKeys = [ref: string | null, subject: string | null, request: string | null];

/** A record taken out of memory: its row is marked cold, its searched fields copied to columns. */
export interface PendingEvict {
  evict: { c: string; id: string; keys: ColdKeys };
}

/** PostgreSQL text cannot hold NUL: it is taken out here and of every value searched for (history.ts). */
export const textOf = (s: string | undefined): string | null => (s === undefined ? null : s.replaceAll('\u0000', ''));

/** A record's searched fields, read in JS when it is evicted: no json operator on stored values in SQL. */
export function coldKeys(value: unknown): ColdKeys {
  return [
    textOf(fieldOf(value, 'merchantReference')),
    textOf(fieldOf(value, 'subject')),
    textOf(fieldOf(value, 'request')),
  ];
}

export interface Batch {
  upserts: { collections: string[]; ids: string[]; ords: number[]; values: string[] };
  deletes: { collections: string[]; ids: string[] };
  /** Marked cold after the upserts (a record put and evicted in one batch is written, then cold). */
  evicts: {
    collections: string[];
    ids: string[];
    refs: Array<string | null>;
    subjects: Array<string | null>;
    requests: Array<string | null>;
  };
}

export function reduceBatch(ops: ReadonlyArray<PendingOp | PendingEvict>): Batch {
  const last = new Map<string, PendingOp>();
  const cold = new Map<string, PendingEvict['evict']>();
  for (const p of ops) {
    if ('evict' in p) {
      cold.set(`${p.evict.c}\u0000${p.evict.id}`, p.evict);
      continue;
    }
    const key = `${p.op.c}\u0000${p.op.id}`;
    // A later put makes it hot again; a later delete leaves nothing to mark.
    cold.delete(key);
    const before = last.get(key);
    // An update of a record first inserted in this same batch keeps that insertion's place.
    if (p.op.op === 'put' && p.ord === KEEP_ORD && before?.op.op === 'put')
      last.set(key, { op: p.op, ord: before.ord });
    else {
      last.delete(key); // re-inserted after a delete: its place is the new one, in map order too
      last.set(key, p);
    }
  }
  const b: Batch = {
    upserts: { collections: [], ids: [], ords: [], values: [] },
    deletes: { collections: [], ids: [] },
    evicts: { collections: [], ids: [], refs: [], subjects: [], requests: [] },
  };
  for (const { c, id, keys } of cold.values()) {
    b.evicts.collections.push(c);
    b.evicts.ids.push(id);
    b.evicts.refs.push(keys[0]);
    b.evicts.subjects.push(keys[1]);
    b.evicts.requests.push(keys[2]);
  }
  for (const { op, ord } of last.values()) {
    if (op.op === 'put') {
      b.upserts.collections.push(op.c);
      b.upserts.ids.push(op.id);
      b.upserts.ords.push(ord);
      b.upserts.values.push(op.json);
    } else {
      b.deletes.collections.push(op.c);
      b.deletes.ids.push(op.id);
    }
  }
  return b;
}

export const UPSERT_SQL = `
  INSERT INTO store_records AS r (collection, id, ord, value)
  SELECT c, i, o, v::json FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS u(c, i, o, v)
  ON CONFLICT (collection, id) DO UPDATE
    SET value = EXCLUDED.value, ord = CASE WHEN EXCLUDED.ord = ${KEEP_ORD} THEN r.ord ELSE EXCLUDED.ord END,
      cold = false`;

export const EVICT_SQL = `
  UPDATE store_records r SET cold = true, ref = u.f, subject = u.s, request = u.q
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(c, i, f, s, q)
  WHERE r.collection = u.c AND r.id = u.i`;

export const DELETE_SQL = `
  DELETE FROM store_records r USING unnest($1::text[], $2::text[]) AS u(c, i)
  WHERE r.collection = u.c AND r.id = u.i`;
