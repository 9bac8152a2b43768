/**
 * The database as one replica sees it, read at each scrape: whether it answers, and the webhook
 * inbox's backlog (what standbys took in that the leader has not drained). It has its own small
 * pool, apart from the leader's fenced session and the standby's routes, so it reads the same
 * way whatever the role and before either exists: a standby is observable from its start, and
 * a scrape never queues behind the leader's writes.
 */
import pg from 'pg';
import type { Logger } from '../log.js';
import { clientConfig } from '../store/pg/connection.js';
import type { DatabaseReading } from './registry.js';

/** Under Prometheus's default scrape timeout (10 s): a scrape must answer, saying "unreachable". */
const READ_TIMEOUT_MS = 3_000;

/** PostgreSQL's "undefined_table": a database the leader has not migrated yet has no inbox. */
const UNDEFINED_TABLE = '42P01';

// Ages are computed by the database's clock, so the app's and the database's clocks need not agree.
const INBOX_SQL = `SELECT count(*) FILTER (WHERE refused_at IS NULL) AS pending,
  count(*) FILTER (WHERE refused_at IS NOT NULL) AS refused,
  COALESCE(EXTRACT(EPOCH FROM now() - min(received_at) FILTER (WHERE refused_at IS NULL)), 0) AS oldest
  FROM webhook_inbox`;

export interface DatabaseProbe {
  read(): Promise<DatabaseReading>;
  close(): Promise<void>;
}

export function databaseProbe(o: { url: string; logger: Logger; now?: () => number }): DatabaseProbe {
  const now = o.now ?? Date.now;
  const pool = new pg.Pool({
    ...clientConfig(o.url, { application: 'treasury-slack metrics' }),
    connectionTimeoutMillis: READ_TIMEOUT_MS,
    statement_timeout: READ_TIMEOUT_MS,
    max: 1,
  });
  // An idle connection the server dropped: the next read reconnects (and reports what it finds).
  pool.on('error', (err) => o.logger.debug({ err }, 'metrics: database connection error'));
  let last: DatabaseReading & { at: number } = {
    reachable: false,
    inboxPending: 0,
    inboxOldestAgeSeconds: 0,
    inboxRefused: 0,
    at: now(),
  };
  let warned = false;
  return {
    async read() {
      try {
        const reading = await Promise.race([
          query(pool),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('database read timed out')), READ_TIMEOUT_MS).unref(),
          ),
        ]);
        last = { ...reading, at: now() };
        warned = false;
        return reading;
      } catch (err) {
        // Once per outage, not at every scrape: the gauge is what alerts.
        if (!warned) o.logger.warn({ err }, 'metrics: this replica cannot reach the database');
        warned = true;
        // The backlog seen last is still there (nobody drains it without the database) and keeps ageing.
        const aged = last.inboxPending > 0 ? last.inboxOldestAgeSeconds + (now() - last.at) / 1000 : 0;
        return {
          reachable: false,
          inboxPending: last.inboxPending,
          inboxOldestAgeSeconds: aged,
          inboxRefused: last.inboxRefused,
        };
      }
    },
    close: () => pool.end().catch(() => {}),
  };
}

async function query(pool: pg.Pool): Promise<DatabaseReading> {
  try {
    const { rows } = await pool.query<{ pending: string; refused: string; oldest: string }>(INBOX_SQL);
    const r = rows[0];
    return {
      reachable: true,
      inboxPending: Number(r?.pending ?? 0),
      inboxRefused: Number(r?.refused ?? 0),
      inboxOldestAgeSeconds: Math.max(0, Number(r?.oldest ?? 0)),
    };
  } catch (err) {
    if ((err as { code?: string }).code === UNDEFINED_TABLE)
      return { reachable: true, inboxPending: 0, inboxOldestAgeSeconds: 0, inboxRefused: 0 };
    throw err;
  }
}
