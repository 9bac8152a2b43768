/**
 * One leader at a time (money-safety invariant 15). A replica leads while it holds a
 * session-level advisory lock on one dedicated connection (a pg.Client, never a pool: a
 * session lock does not survive pooling or PgBouncer's transaction mode). Taking the lead bumps
 * the epoch row; every write transaction runs on that same connection and first checks the
 * epoch (`UPDATE … WHERE epoch = $mine`): zero rows means another replica took over, and this
 * one is fenced. A heartbeat every `heartbeatMs` keeps the lease: before each wallet POST and
 * each Slack post the app asks `leaseFresh()` (a beat that succeeded within `leaseMs`). A
 * frozen leader's session ends on the server after SESSION_TIMEOUT_MS idle, which frees the
 * lock for a standby; when it wakes, its lease is stale before its first timer runs.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Logger } from '../../log.js';
import { clientConfig } from './connection.js';
import { migrate } from './schema.js';

/** The advisory lock's key: one per database (run one app per database). */
export const LEADER_LOCK_KEY = 7_249_001;

export class LeadershipLostError extends Error {
  override name = 'LeadershipLostError';
  /** Thrown before a call leaves (the lease check): whatever it guarded was not sent. */
  readonly nothingSent = true;
}

export interface LeaderOptions {
  url: string;
  /** Who leads, as the epoch row records it (host and pid). */
  holder: string;
  logger?: Logger;
  heartbeatMs?: number;
  leaseMs?: number;
  /** Called once if the lock is not free at once: this replica waits as a standby. */
  onWaiting?: () => void;
}

export class LeaderSession {
  private lastBeat = performance.now();
  private chain: Promise<unknown> = Promise.resolve();
  private busy = 0;
  private timer: NodeJS.Timeout | undefined;
  private lostError: LeadershipLostError | undefined;
  private closed = false;
  private readonly lostListeners: Array<(err: LeadershipLostError) => void> = [];
  private readonly leaseMs: number;

  constructor(
    private readonly client: pg.Client,
    readonly epoch: number,
    private readonly o: LeaderOptions,
  ) {
    this.leaseMs = o.leaseMs ?? 2_000;
    client.on('error', (err) => this.lose(`the leader's database session failed: ${err.message}`));
    client.on('end', () => this.lose("the leader's database session ended"));
    this.timer = setInterval(() => this.beat(), o.heartbeatMs ?? 500);
    this.timer.unref();
  }

  /** The reason this replica no longer leads, once it knows; undefined while it leads. */
  get lost(): LeadershipLostError | undefined {
    return this.lostError;
  }

  /** True while this replica may act on the outside world: not lost, and a beat within the lease. */
  leaseFresh(): boolean {
    return !this.lostError && !this.closed && performance.now() - this.lastBeat < this.leaseMs;
  }

  /** Throws unless leaseFresh(): called right before each wallet POST and each Slack post. */
  assertLease(): void {
    if (this.leaseFresh()) return;
    throw this.lostError ?? new LeadershipLostError('this replica has not confirmed its lead recently: not acting');
  }

  onLost(listener: (err: LeadershipLostError) => void): void {
    if (this.lostError) listener(this.lostError);
    else this.lostListeners.push(listener);
  }

  /** Runs on the leader's connection, after everything queued before it (never inside another's transaction). */
  run<T>(fn: (c: pg.ClientBase) => Promise<T>): Promise<T> {
    const next = this.chain.then(async () => {
      if (this.lostError) throw this.lostError;
      this.busy++;
      try {
        return await fn(this.client);
      } finally {
        this.busy--;
      }
    });
    this.chain = next.catch(() => {});
    return next;
  }

  /** One transaction on the leader's connection, fenced by the epoch; a success counts as a beat. */
  transaction<T>(fn: (c: pg.ClientBase) => Promise<T>): Promise<T> {
    return this.run(async (c) => {
      const started = performance.now();
      try {
        await c.query('BEGIN');
        await this.checkEpoch(c);
        const r = await fn(c);
        await c.query('COMMIT');
        this.lastBeat = Math.max(this.lastBeat, started);
        return r;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        // A write that failed leaves memory ahead of the database: this leader cannot go on.
        this.lose(err instanceof Error ? err.message : String(err));
        throw err;
      }
    });
  }

  private async checkEpoch(c: pg.ClientBase): Promise<void> {
    const r = await c.query('UPDATE replica_leader SET heartbeat_at = now() WHERE id = 1 AND epoch = $1', [this.epoch]);
    if (r.rowCount === 0) {
      const err = new LeadershipLostError(`fenced: another replica took over (this one held epoch ${this.epoch})`);
      this.lose(err.message);
      throw err;
    }
  }

  private beat(): void {
    if (this.lostError || this.closed || this.busy > 0) return;
    const started = performance.now();
    this.run(async (c) => {
      await this.checkEpoch(c);
      this.lastBeat = Math.max(this.lastBeat, started);
    }).catch((err: unknown) => this.lose(`heartbeat failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  private lose(reason: string): void {
    if (this.lostError || this.closed) return;
    this.lostError = new LeadershipLostError(`this replica no longer leads: ${reason}`);
    clearInterval(this.timer);
    this.o.logger?.error({ epoch: this.epoch }, this.lostError.message);
    // Ending the session lets go of the lock at once if it was still held.
    this.client.end().catch(() => {});
    for (const l of this.lostListeners.splice(0)) {
      try {
        l(this.lostError);
      } catch (err) {
        this.o.logger?.error({ err }, 'a leadership-lost listener failed');
      }
    }
  }

  /** Gives up the lead: queued work finishes first, then the session (and so the lock) ends. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    await this.chain;
    this.closed = true;
    await this.client.end().catch(() => {});
  }
}

/**
 * Connects, waits for the lock (calling onWaiting if another replica holds it), applies the
 * schema migrations, bumps the epoch and returns the session. Rejects if the connection fails.
 */
export async function acquireLeadership(o: LeaderOptions, signal?: AbortSignal): Promise<LeaderSession> {
  const client = new pg.Client(
    clientConfig(o.url, { sessionTimeout: true, application: `treasury-slack ${o.holder}` }),
  );
  const abort = () => client.end().catch(() => {});
  signal?.addEventListener('abort', abort, { once: true });
  // Until the session exists, a connection error must reject this call rather than go unheard.
  const early = (err: Error) => o.logger?.warn({ err }, 'database connection error while waiting to lead');
  client.on('error', early);
  try {
    await client.connect();
    const first = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY]);
    if (!first.rows[0]?.ok) {
      o.onWaiting?.();
      // A waiting query is not idle: the session timeout does not end it.
      await client.query('SELECT pg_advisory_lock($1)', [LEADER_LOCK_KEY]);
    }
    if (signal?.aborted) throw new Error('stopped while waiting to lead');
    const applied = await migrate(client);
    if (applied.length > 0) o.logger?.info({ applied }, 'database schema migrated');
    const r = await client.query<{ epoch: string }>(
      'UPDATE replica_leader SET epoch = epoch + 1, holder = $1, since = now(), heartbeat_at = now() WHERE id = 1 RETURNING epoch',
      [o.holder],
    );
    const epoch = Number(r.rows[0]?.epoch);
    client.off('error', early);
    o.logger?.info({ epoch, holder: o.holder }, 'this replica leads');
    return new LeaderSession(client, epoch, o);
  } catch (err) {
    client.off('error', early);
    await client.end().catch(() => {});
    throw err;
  } finally {
    signal?.removeEventListener('abort', abort);
  }
}
