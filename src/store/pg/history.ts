/**
 * History on PostgreSQL (src/store/history.ts): memory first, then the cold rows.
 *
 * A record is always in one place or the other: an eviction takes it out of memory at commit and
 * marks its row cold in that commit's group write. So each read takes memory's matches first, then
 * waits until every commit made so far is durable (an eviction that emptied memory is then in the
 * database), then asks for cold rows; a record that went cold between the two is in both, and
 * memory's copy wins (mergeById). Memory is read again after the query: a record put again (hot
 * once more) meanwhile may have left the cold rows, and its copy in memory is the newest. Lookups
 * run on the leader's connection after the writes queued before them, each one index lookup
 * (schema.ts, version 5) of at most `limit` rows; `scan` (a whole walk) on a connection of its own.
 */
import { deepFreeze, type Collections } from '../memory.js';
import type { Collection } from '../collection.js';
import {
  DEFAULT_FIND_LIMIT,
  type HistoryField,
  type HistoryPage,
  type HistoryQuery,
  type HistoryReads,
  MemoryHistory,
  fieldOf,
  matches,
  mergeById,
} from '../history.js';
import { textOf } from './batch.js';
import type { LeaderSession } from './leader.js';

/**
 * The column of each field of HISTORY_FIELDS (copied from the value when the row went cold, NUL
 * taken out: batch.ts coldKeys), exactly as its index is written (or the index is not used).
 */
const FIELD_SQL: Record<HistoryField, string> = {
  merchantReference: 'lower(ref)',
  subject: 'subject',
  request: 'request',
};
/** The column itself, for the exact comparison after the index narrowed by lower(). */
const EXACT_SQL: Record<HistoryField, string> = {
  merchantReference: 'ref',
  subject: 'subject',
  request: 'request',
};

/** A LIKE pattern matching what starts with `s` (its own %, _ and \ taken literally). */
export function likePrefix(s: string): string {
  return `${s.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

type Row = { id: string; value: unknown };
/** Runs one read on history's own connections (openPgStore's pool), never on the leader's write session. */
export type ColdReader = (sql: string, params: unknown[]) => Promise<unknown[][]>;
/** Ids in byte order, as memory sorts them (whatever the database's locale): store_records_cold_id. */
const BY_ID = 'id COLLATE "C"';
/** Values per `= ANY` query of findAny. */
const ANY_CHUNK = 1_000;

export class PgHistory implements HistoryReads {
  private readonly memory: MemoryHistory;

  constructor(
    private readonly collections: Collections,
    private readonly session: LeaderSession,
    /** Resolves once every commit made before the call is durable. */
    private readonly durable: () => Promise<unknown>,
    private readonly reader: ColdReader,
  ) {
    this.memory = new MemoryHistory(collections);
  }

  async get<T>(c: Collection<T>, id: string): Promise<T | undefined> {
    const hot = this.collections.get(c)?.get(id);
    if (hot !== undefined) return hot as T;
    const rows = await this.cold<T>('SELECT id, value FROM store_records WHERE collection = $1 AND id = $2 AND cold', [
      c,
      id,
    ]);
    // Put again (hot once more) while the query ran: memory's copy now is the newest, and its row may no longer be cold.
    return (this.collections.get(c)?.get(id) as T | undefined) ?? rows[0]?.[1];
  }

  async findBy<T>(c: Collection<T>, field: HistoryField, value: string, q: HistoryQuery = {}): Promise<T[]> {
    const limit = q.limit ?? DEFAULT_FIND_LIMIT;
    const hot = this.memory.findNow(c, field, value, q);
    const lowered = field === 'merchantReference';
    let where: string;
    let arg: string;
    if (q.prefix) {
      where = lowered ? `${FIELD_SQL[field]} LIKE $2` : `lower(${EXACT_SQL[field]}) LIKE $2`;
      arg = likePrefix(textOf(value)!.toLowerCase());
    } else {
      where = lowered ? `${FIELD_SQL[field]} = lower($2) AND ${EXACT_SQL[field]} = $2` : `${FIELD_SQL[field]} = $2`;
      arg = textOf(value)!;
    }
    const cold = await this.cold<T>(
      `SELECT id, value FROM store_records WHERE collection = $1 AND cold AND ${where} ORDER BY ${BY_ID} LIMIT $3`,
      [c, arg, limit],
    );
    // The columns lost any NUL: the value itself decides (a row matched only without it is not a match).
    const real = cold.filter(([, v]) => matches(v, field, value, q.prefix ?? false));
    return mergeById(this.memory.findNow(c, field, value, q), mergeById(hot, real, limit), limit).map(([, v]) => v);
  }

  async findAny<T>(c: Collection<T>, field: HistoryField, values: readonly string[]): Promise<T[]> {
    const hot = this.memory.findAnyNow(c, field, values);
    const cold: Array<[string, T]> = [];
    const unique = [...new Set(values)];
    for (let i = 0; i < unique.length; i += ANY_CHUNK) {
      const chunk = unique.slice(i, i + ANY_CHUNK);
      const where =
        field === 'merchantReference'
          ? `${FIELD_SQL[field]} = ANY($2::text[]) AND ${EXACT_SQL[field]} = ANY($3::text[])`
          : `${FIELD_SQL[field]} = ANY($2::text[])`;
      const texts = chunk.map((v) => textOf(v)!);
      const params = field === 'merchantReference' ? [c, texts.map((v) => v.toLowerCase()), texts] : [c, texts];
      cold.push(
        ...(await this.cold<T>(
          `SELECT id, value FROM store_records WHERE collection = $1 AND cold AND ${where} ORDER BY ${BY_ID}`,
          params,
        )),
      );
    }
    const wanted = new Set(values);
    const real = cold.filter(([, v]) => wanted.has(fieldOf(v, field) as string));
    const all = Number.POSITIVE_INFINITY;
    return mergeById(this.memory.findAnyNow(c, field, values), mergeById(hot, real, all), all).map(([, v]) => v);
  }

  async page<T>(c: Collection<T>, after: string | undefined, limit: number): Promise<HistoryPage<T>> {
    const hot = this.memory.pageNow(c, after, limit);
    const cold = await this.cold<T>(
      after === undefined
        ? `SELECT id, value FROM store_records WHERE collection = $1 AND cold ORDER BY ${BY_ID} LIMIT $2`
        : `SELECT id, value FROM store_records WHERE collection = $1 AND cold AND ${BY_ID} > $3 ORDER BY ${BY_ID} LIMIT $2`,
      after === undefined ? [c, limit] : [c, limit, after],
    );
    const rows = mergeById(this.memory.pageNow(c, after, limit), mergeById(hot, cold, limit), limit);
    return { records: rows.map(([, v]) => v), next: rows.length < limit ? undefined : rows.at(-1)?.[0] };
  }

  async *scan<T>(c: Collection<T>, after: string | undefined, pageSize: number): AsyncIterable<T[]> {
    const read = (from: string | undefined) => {
      // Memory first, then (once what is committed is durable) the rows, as cold() does: a record
      // evicted in between is in one or the other.
      const hot = this.memory.pageNow<T>(c, from, pageSize);
      const cold = this.durable().then(() =>
        this.reader(
          from === undefined
            ? `SELECT id, value FROM store_records WHERE collection = $1 AND cold ORDER BY ${BY_ID} LIMIT $2`
            : `SELECT id, value FROM store_records WHERE collection = $1 AND cold AND ${BY_ID} > $3 ORDER BY ${BY_ID} LIMIT $2`,
          from === undefined ? [c, pageSize] : [c, pageSize, from],
        ),
      );
      cold.catch(() => {}); // a walk that stops early leaves its prefetch unread
      return { hot, cold, from };
    };
    let next = read(after);
    for (;;) {
      const cold = (await next.cold).map((r): [string, T] => [r[0] as string, r[1] as T]);
      // Memory again, after the query (as the lookups do).
      const rows = merged(rehot(next.hot, this.memory.pageNow<T>(c, next.from, pageSize), pageSize), cold, pageSize);
      const done = rows.length < pageSize;
      // The next page is read while the caller handles this one.
      if (!done) next = read(rows.at(-1)?.[0]);
      if (rows.length > 0) yield rows.map(([, v]) => v);
      if (done) return;
    }
  }

  private async cold<T>(sql: string, params: unknown[]): Promise<Array<[string, T]>> {
    await this.durable();
    const { rows } = await this.session.run((client) => client.query<Row>(sql, params));
    return rows.map((r) => [r.id, deepFreeze(r.value) as T]);
  }
}

/** mergeById, without its sort where memory's page lies wholly after the rows' (an audit walk's old pages). */
function merged<T>(hot: Array<[string, T]>, cold: Array<[string, T]>, limit: number): Array<[string, T]> {
  const lastCold = cold.at(-1)?.[0];
  const inRange = cold.length < limit || lastCold === undefined ? hot : hot.filter(([id]) => id <= lastCold);
  return inRange.length === 0 ? cold : mergeById(inRange, cold, limit);
}

/**
 * Memory's page read before the query, and read again after it (a record put again meanwhile
 * may have left the cold rows): usually the same ids, then the newer copies alone.
 */
function rehot<T>(before: Array<[string, T]>, after: Array<[string, T]>, limit: number): Array<[string, T]> {
  if (after.length === before.length && after.every(([id], i) => id === before[i]![0])) return after;
  return mergeById(after, before, limit);
}
