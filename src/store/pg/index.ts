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
    // Only the hot set is loaded; the history (cold rows, an estimate) stays in the database.
    o.logger?.info({ where, records, history: cold, epoch: leader.epoch }, 'store opened');
    return { store: new PgStore(leader, collections, records, nextOrd, where, o), leader };
  } catch (err) {
    await leader.close();
    throw err;
  }
}
