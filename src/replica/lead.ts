/**
 * Waiting for the lead with PostgreSQL: a replica that finds another leading, or cannot reach
 * the database yet (it keeps trying: store/pg/leader.ts), serves the standby routes
 * (standby.ts) until the lock is free, then closes them and opens the store as
 * the leader (the rest of the app is built only then, as after a restart: recovery runs, the
 * outbox resumes). The leader drains the inbox every INBOX_POLL_MS.
 */
import type { Logger } from '../log.js';
import type { HttpServer } from '../http/server.js';
import { openPgStore, type LeaderSession } from '../store/pg/index.js';
import type { Store, StoreOptions } from '../store/index.js';
import { type DrainOptions, drainInbox, hashLegacyRows } from './inbox.js';
import { drainVerifications } from './standby-verify.js';
import { startStandby, type StandbyOptions } from './standby.js';

const INBOX_POLL_MS = 500;

/** What the drain needs from the app: its webhook ingestion and the secrets' hash key. */
export type InboxDrain = Pick<DrainOptions, 'ingest' | 'hashKey' | 'accepted'>;

export interface Lead {
  store: Store;
  leader: LeaderSession;
  /** Starts draining the standby's inbox into this app's webhook ingestion; returns its stop. */
  drainInbox(o: InboxDrain): () => Promise<void>;
}

export async function waitToLead(
  o: Omit<StandbyOptions, 'logger'> & {
    logger: Logger;
    onFailure?: StoreOptions['onFailure'];
    onCommitDurable?: StoreOptions['onCommitDurable'];
    /** Stops waiting (the connection waiting for the lock is closed): the promise rejects. */
    signal?: AbortSignal;
  },
): Promise<Lead> {
  let standby: Promise<HttpServer | undefined> | undefined;
  let opened: Awaited<ReturnType<typeof openPgStore>>;
  try {
    if (o.signal?.aborted) throw new Error('stopped before leading');
    opened = await openPgStore({
      url: o.url,
      logger: o.logger.child({ component: 'store' }),
      onFailure: o.onFailure,
      onCommitDurable: o.onCommitDurable,
      signal: o.signal,
      onWaiting: () => {
        standby = startStandby(o).catch((err: unknown) => {
          o.logger.error({ err }, 'could not serve the standby routes');
          return undefined;
        });
      },
    });
  } catch (err) {
    // A standby that stops (or cannot wait) closes its routes, so the process can exit.
    await (await standby)?.close();
    throw err;
  }
  const { store, leader } = opened;
  const served = await standby;
  if (served) {
    await served.close();
    o.logger.info('taking over: this replica leads now');
  }
  return {
    store,
    leader,
    drainInbox: (drain) => {
      let stopped = false;
      const run: DrainOptions['run'] = (fn) => leader.run(fn);
      // Rows an older standby wrote with the secret in clear are hashed before anything else.
      let round: Promise<unknown> = hashLegacyRows(run, drain.hashKey).catch((err: unknown) =>
        o.logger.warn({ err }, 'inbox: could not hash the secrets of older rows; trying at the next start'),
      );
      const tick = () => {
        if (stopped || leader.lost) return;
        const query: Parameters<typeof drainVerifications>[0]['query'] = (sql, params) =>
          run((c) => c.query(sql, params));
        round = round
          .then(() => drainInbox({ ...drain, run, logger: o.logger }))
          .then(() => drainVerifications({ query, store }))
          .catch((err: unknown) => o.logger.warn({ err }, 'inbox: draining failed; trying again'))
          .finally(() => {
            if (!stopped) timer = setTimeout(tick, INBOX_POLL_MS);
          });
      };
      let timer: NodeJS.Timeout | undefined = setTimeout(tick, 0);
      return async () => {
        stopped = true;
        clearTimeout(timer);
        await round;
      };
    },
  };
}
