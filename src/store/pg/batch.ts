/**
 * A group commit's ops, reduced to what one PostgreSQL transaction writes: per record only its
 * last state (a multi-row upsert may touch a row once), each put carrying its place in insertion
 * order, and whether it ends cold (evicted after its last put: src/store/history.ts). Pure; the
 * store's memory applies the same ops in the same order.
 */
import type { EncodedOp } from '../journal.js';

/** `ord` is a new place for a record that was absent (or deleted earlier in the batch); KEEP_ORD keeps its place. */
export const KEEP_ORD = -1;

export interface PendingOp {
  op: EncodedOp;
  ord: number;
}

/** A record taken out of memory: its row is marked cold. */
export interface PendingEvict {
  evict: { c: string; id: string };
}

export interface Batch {
  upserts: { collections: string[]; ids: string[]; ords: number[]; values: string[] };
  deletes: { collections: string[]; ids: string[] };
  /** Marked cold after the upserts (a record put and evicted in one batch is written, then cold). */
  evicts: { collections: string[]; ids: string[] };
}

export function reduceBatch(ops: ReadonlyArray<PendingOp | PendingEvict>): Batch {
  const last = new Map<string, PendingOp>();
  const cold = new Map<string, { c: string; id: string }>();
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
    evicts: { collections: [], ids: [] },
  };
  for (const { c, id } of cold.values()) {
    b.evicts.collections.push(c);
    b.evicts.ids.push(id);
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
  UPDATE store_records r SET cold = true FROM unnest($1::text[], $2::text[]) AS u(c, i)
  WHERE r.collection = u.c AND r.id = u.i`;

export const DELETE_SQL = `
  DELETE FROM store_records r USING unnest($1::text[], $2::text[]) AS u(c, i)
  WHERE r.collection = u.c AND r.id = u.i`;
