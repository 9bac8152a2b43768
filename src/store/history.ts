/**
 * History: records that left memory (cold) but are still the store's, read on demand.
 *
 * What a decision needs stays in memory (the hot set: Store.get/all/find stay synchronous and see
 * only it). A commit may `tx.evict(c, id)` a record nothing decides on any more (a closed
 * withdrawal, an old audit entry): on PostgreSQL it leaves memory and its row is marked cold in the
 * same group commit, so it is never lost and a leader's start loads only the hot rows. The
 * embedded store keeps every record in memory (evict is a no-op there), so its history is its memory.
 *
 * `store.history` reads hot and cold alike: memory first, then the database. The indexed fields
 * (HISTORY_FIELDS, history-types.ts) are the only ones `findBy` takes: on PostgreSQL each is an expression index (schema.ts),
 * so a lookup never scans the history.
 */
import type { Collection } from './collection.js';
import { type Collections, idVersion } from './memory.js';
import {
  HISTORY_FIELDS,
  type HistoryField,
  type HistoryPage,
  type HistoryQuery,
  type HistoryReads,
} from './history-types.js';

export {
  HISTORY_FIELDS,
  type HistoryField,
  type HistoryPage,
  type HistoryQuery,
  type HistoryReads,
} from './history-types.js';

export const DEFAULT_FIND_LIMIT = 100;

export function fieldOf(value: unknown, field: HistoryField): string | undefined {
  let v: unknown = value;
  for (const k of HISTORY_FIELDS[field])
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return typeof v === 'string' ? v : undefined;
}

export function matches(value: unknown, field: HistoryField, wanted: string, prefix: boolean): boolean {
  const v = fieldOf(value, field);
  if (v === undefined) return false;
  return prefix ? v.toLowerCase().startsWith(wanted.toLowerCase()) : v === wanted;
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What memory holds, as history (the embedded store's whole history; PostgreSQL's hot part). */
export class MemoryHistory implements HistoryReads {
  constructor(private readonly collections: Collections) {}

  async get<T>(c: Collection<T>, id: string): Promise<T | undefined> {
    return this.collections.get(c)?.get(id) as T | undefined;
  }

  async findBy<T>(c: Collection<T>, field: HistoryField, value: string, q: HistoryQuery = {}): Promise<T[]> {
    return this.findNow(c, field, value, q).map(([, v]) => v);
  }

  async findAny<T>(c: Collection<T>, field: HistoryField, values: readonly string[]): Promise<T[]> {
    return this.findAnyNow(c, field, values).map(([, v]) => v);
  }

  async page<T>(c: Collection<T>, after: string | undefined, limit: number): Promise<HistoryPage<T>> {
    const rows = this.pageNow(c, after, limit);
    return { records: rows.map(([, v]) => v), next: rows.length < limit ? undefined : rows.at(-1)?.[0] };
  }

  async *scan<T>(c: Collection<T>, after: string | undefined, pageSize: number): AsyncIterable<T[]> {
    let from = after;
    for (;;) {
      const rows = this.pageNow<T>(c, from, pageSize);
      if (rows.length > 0) yield rows.map(([, v]) => v);
      if (rows.length < pageSize) return;
      from = rows.at(-1)?.[0];
    }
  }

  /** Synchronous, with ids: what PostgreSQL's history merges with the database's rows. */
  findNow<T>(c: Collection<T>, field: HistoryField, value: string, q: HistoryQuery): Array<[string, T]> {
    const out: Array<[string, T]> = [];
    const m = this.collections.get(c);
    if (m) for (const [id, v] of m) if (matches(v, field, value, q.prefix ?? false)) out.push([id, v as T]);
    return out.sort((a, b) => byId(a[0], b[0])).slice(0, q.limit ?? DEFAULT_FIND_LIMIT);
  }

  findAnyNow<T>(c: Collection<T>, field: HistoryField, values: readonly string[]): Array<[string, T]> {
    const wanted = new Set(values);
    const out: Array<[string, T]> = [];
    const m = this.collections.get(c);
    if (m && wanted.size > 0)
      for (const [id, v] of m) {
        const f = fieldOf(v, field);
        if (f !== undefined && wanted.has(f)) out.push([id, v as T]);
      }
    return out.sort((a, b) => byId(a[0], b[0]));
  }

  pageNow<T>(c: Collection<T>, after: string | undefined, limit: number): Array<[string, T]> {
    const m = this.collections.get(c);
    if (!m) return [];
    const ids = sortedIds(m);
    // First id after `after` (binary search): a full walk in pages stays linear.
    let lo = 0;
    let hi = ids.length;
    while (after !== undefined && lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ids[mid]! <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: Array<[string, T]> = [];
    for (let i = lo; i < ids.length && out.length < limit; i++) {
      const v = m.get(ids[i]!);
      if (v !== undefined) out.push([ids[i]!, v as T]);
    }
    return out;
  }
}

const sorted = new WeakMap<Map<string, unknown>, { version: number; ids: string[] }>();

/** A collection's ids in order, sorted again only when ids were added or removed (idVersion). */
function sortedIds(m: Map<string, unknown>): string[] {
  const version = idVersion(m);
  const hit = sorted.get(m);
  if (hit?.version === version) return hit.ids;
  const ids = [...m.keys()].sort(byId);
  sorted.set(m, { version, ids });
  return ids;
}

/**
 * Merges memory's rows with the database's (both in id order): memory's copy wins (it is the
 * newest: a record re-written since it went cold is hot again). At most `limit`.
 */
export function mergeById<T>(hot: Array<[string, T]>, cold: Array<[string, T]>, limit: number): Array<[string, T]> {
  const seen = new Set(hot.map(([id]) => id));
  return [...hot, ...cold.filter(([id]) => !seen.has(id))].sort((a, b) => byId(a[0], b[0])).slice(0, limit);
}
