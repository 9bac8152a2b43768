/**
 * The history API's types (history.ts says what history is); apart from the memory code so that
 * types.ts can name them without an import cycle.
 */
import type { Collection } from './collection.js';

/** Fields history can be searched by: the name callers use, and the JSON path it reads. */
export const HISTORY_FIELDS = {
  /** A withdrawal request's merchant reference (`/treasury withdrawal <ref>`, exports, verification). */
  merchantReference: ['merchantReference'],
  /** An audit entry's subject (the request it is about). */
  subject: ['subject'],
  /** An audit entry's `details.request` (step-up entries name the request they were for). */
  request: ['details', 'request'],
} as const satisfies Record<string, readonly string[]>;

export type HistoryField = keyof typeof HISTORY_FIELDS;

export interface HistoryQuery {
  /** Records whose field starts with `value`, compared case-insensitively (default: equals `value` exactly). */
  prefix?: boolean;
  /** At most this many (default 100). */
  limit?: number;
}

export interface HistoryPage<T> {
  /** Records in id order, after the `after` asked for. */
  records: T[];
  /** The id to ask the next page after; undefined when this was the last. */
  next: string | undefined;
}

/** Reads of hot and cold records alike (async: cold ones come from the database). */
export interface HistoryReads {
  get<T>(c: Collection<T>, id: string): Promise<T | undefined>;
  /** Records whose indexed field matches (see HistoryQuery), in id order. */
  findBy<T>(c: Collection<T>, field: HistoryField, value: string, q?: HistoryQuery): Promise<T[]>;
  /** Records whose indexed field equals one of `values` exactly, in id order (one pass of memory, one query per 1,000 values). */
  findAny<T>(c: Collection<T>, field: HistoryField, values: readonly string[]): Promise<T[]>;
  /** One page of the collection in id order, ids after `after` (all from the start when undefined). */
  page<T>(c: Collection<T>, after: string | undefined, limit: number): Promise<HistoryPage<T>>;
  /**
   * The collection from `after` on, in id order, in pages of `pageSize` (the last one shorter), for
   * a caller that walks all of it once and only reads (the audit chain's check and export): a
   * page's cold records are not frozen; on PostgreSQL they are read on a connection of their own
   * (not the leader's write session, so a walk never queues in front of commits), the next page
   * while the caller handles this one.
   */
  scan<T>(c: Collection<T>, after: string | undefined, pageSize: number): AsyncIterable<T[]>;
}
