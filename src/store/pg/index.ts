/**
 * PostgreSQL as the system of record (DATABASE_URL). `openPgStore` waits to lead (leader.ts),
 * migrates, loads the hot records (not the history: ../history.ts) and returns a Store with the embedded store's semantics
 * (pg-store.ts); its `leader` answers the lease checks made before each wallet POST and Slack post.
 */
import os from 'node:os';
import type { Store } from '../types.js';
import { describeUrl } from './connection.js';
import { acquireLeadership, type LeaderOptions, type LeaderSession } from './leader.js';
import { loadRecords, PgStore, type PgStoreOptions } from './pg-store.js';

export { LeadershipLostError, type LeaderSession } from './leader.js';
export { describeUrl } from './connection.js';

export interface PgStoreOpen extends PgStoreOptions {
  url: string;
  holder?: string;
  onWaiting?: LeaderOptions['onWaiting'];
  heartbeatMs?: number;
  leaseMs?: number;
  maxStallMs?: number;
  signal?: AbortSignal;
  /**
   * 'open' only for store:migrate, which resumes and checks its own copy. Anything else (the
   * app) refuses a database holding an unfinished copy: leading on it would post and send from
   * a half-copied history (withdrawals missing, limits and the audit chain short).
   */
  unfinishedCopy?: 'refuse' | 'open';
}

/** The record store:migrate keeps while a copy is not finished and proven (migration/to-postgres.ts). */
export const UNFINISHED_COPY = 'store_migration';

export class UnfinishedCopyError extends Error {
  override name = 'UnfinishedCopyError';
  constructor(where: string) {
    super(
      `${where} holds an unfinished store:migrate copy: run the same command again to finish; ` +
        'the app will not start on this database until then',
    );
  }
}

export async function openPgStore(o: PgStoreOpen): Promise<{ store: Store; leader: LeaderSession }> {
  const where = describeUrl(o.url);
  const leader = await acquireLeadership(
    {
      url: o.url,
      holder: o.holder ?? `${os.hostname()}:${process.pid}`,
      logger: o.logger,
      heartbeatMs: o.heartbeatMs,
      leaseMs: o.leaseMs,
      maxStallMs: o.maxStallMs,
      onWaiting: o.onWaiting,
    },
    o.signal,
  );
  try {
    const { collections, records, nextOrd, cold } = await loadRecords(leader);
    if ((o.unfinishedCopy ?? 'refuse') === 'refuse' && (collections.get(UNFINISHED_COPY)?.size ?? 0) > 0)
      throw new UnfinishedCopyError(where);
    // Only the hot set is loaded; the history (cold rows, an estimate) stays in the database.
    o.logger?.info({ where, records, history: cold, epoch: leader.epoch }, 'store opened');
    return { store: new PgStore(leader, collections, records, nextOrd, where, o), leader };
  } catch (err) {
    await leader.close();
    throw err;
  }
}
