/**
 * A group commit's ops, reduced to what one PostgreSQL transaction writes: per record only its
 * last state (a multi-row upsert may touch a row once), each put carrying its place in insertion
 * order. Pure; the store's memory applies the same ops in the same order.
 */
import type { EncodedOp } from '../journal.js';

/** `ord` is a new place for a record that was absent (or deleted earlier in the batch); KEEP_ORD keeps its place. */
export const KEEP_ORD = -1;

export interface PendingOp {
  op: EncodedOp;
  ord: number;
}

export interface Batch {
  upserts: { collections: string[]; ids: string[]; ords: number[]; values: string[] };
  deletes: { collections: string[]; ids: string[] };
}

export function reduceBatch(ops: readonly PendingOp[]): Batch {
  const last = new Map<string, PendingOp>();
  for (const p of ops) {
    const key = `${p.op.c}\u0000${p.op.id}`;
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
  };
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
    SET value = EXCLUDED.value, ord = CASE WHEN EXCLUDED.ord = ${KEEP_ORD} THEN r.ord ELSE EXCLUDED.ord END`;

export const DELETE_SQL = `
  DELETE FROM store_records r USING unnest($1::text[], $2::text[]) AS u(c, i)
  WHERE r.collection = u.c AND r.id = u.i`;
