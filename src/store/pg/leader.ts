/**
 * One leader at a time (money-safety invariant 15). A replica leads while it holds a
 * session-level advisory lock (on a pg.Client, never a pool: a session lock does not survive
 * pooling or PgBouncer's transaction mode). That lock session lives in a worker thread
 * (lock.ts, lock-worker.mjs) with its heartbeat, so a stall of this event loop up to
 * WRITE_STALL_TOLERANCE_MS (15 s) does not leave it idle and lose the lead; a frozen process freezes
 * the thread too, and the server ends its idle session after SESSION_TIMEOUT_MS, which frees
 * the lock for a standby. A main thread that does not turn for longer (wedged in a loop) is
 * noticed by the thread, which gives the lead up. Taking the lead bumps the epoch row; every write transaction runs on
 * a second connection of this replica and first checks the epoch (`UPDATE … WHERE epoch =
 * $mine`): zero rows means another replica took over, and this one is fenced. That UPDATE also
 * locks the row, so a new leader's bump waits for a write already past its check. Before each
 * wallet POST and each Slack post the app asks `leaseFresh()`: a heartbeat of the lock session that
 * confirmed the epoch within `leaseMs`, read from shared memory, so a leader waking from a
 * freeze finds its lease stale before its first timer runs.
 *
 * Reaching the database is retried (retry.ts): a start while PostgreSQL is down, or a standby
 * whose wait for the lock is cut by a restart, tries again with jittered backoff and logs each
 * try. A leader that loses its session does not: it stops acting at once and the process
 * exits 70 (src/app/store.ts), because its memory may be ahead of the database.
 */
import pg from 'pg';
import type { Logger } from '../../log.js';
import { clientConfig, WRITE_STALL_TOLERANCE_MS } from './connection.js';
import { LockSession, LockSessionError } from './lock.js';
import { backoffDelay, isTransient, pause } from './retry.js';
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
  /** A stall of the event loop longer than this gives up the lead; shorter ones keep it. */
  maxStallMs?: number;
  /** Called once if this replica cannot lead at once (another leads, or the database is not there yet). */
  onWaiting?: () => void;
}

const nowNs = () => process.hrtime.bigint();

export class LeaderSession {
  private chain: Promise<unknown> = Promise.resolve();
  private lostError: LeadershipLostError | undefined;
  private closed = false;
  private readonly lostListeners: Array<(err: LeadershipLostError) => void> = [];
  private readonly leaseNs: bigint;
  private readPool: pg.Pool | undefined;

  constructor(
    private readonly client: pg.Client,
    private readonly lock: LockSession,
    readonly epoch: number,
    /** When the epoch was bumped, with the lock shown held (process.hrtime, ns): the lease's start. */
    private readonly bumpedAt: bigint,
    private readonly o: LeaderOptions,
  ) {
    this.leaseNs = BigInt(o.leaseMs ?? 2_000) * 1_000_000n;
    client.on('error', (err) => this.lose(`the leader's database session failed: ${err.message}`));
    client.on('end', () => this.lose("the leader's database session ended"));
    lock.onLost((reason) => this.lose(reason));
    lock.lead(epoch);
  }

  /** The reason this replica no longer leads, once it knows; undefined while it leads. */
  get lost(): LeadershipLostError | undefined {
    return this.lostError;
  }

  /** True while this replica may act on the outside world: not lost, and the epoch confirmed within the lease. */
  leaseFresh(): boolean {
    if (this.lostError || this.closed || this.lock.isGone()) return false;
    // Only the lock session's beats count (or the bump, until the first): a write on the other
    // connection proves the epoch unchanged, not that the lock is still held.
    const beat = this.lock.lastBeat();
    return nowNs() - (beat > this.bumpedAt ? beat : this.bumpedAt) < this.leaseNs;
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
      return fn(this.client);
    });
    this.chain = next.catch(() => {});
    return next;
  }

  /**
   * One read on a connection of its own (history's walks: 10,000-row pages), made on first use:
   * it never queues in front of the leader's writes. It sees only what is durable (callers wait
   * for that first) and writes nothing, so it needs no fencing.
   */
  async read(sql: string, params: unknown[]): Promise<unknown[][]> {
    if (this.lostError) throw this.lostError;
    if (this.closed) throw new LeadershipLostError('the store is closed');
    if (!this.readPool) {
      const app = `treasury-slack ${this.o.holder} history`;
      this.readPool = new pg.Pool({
        ...clientConfig(this.o.url, { application: app }),
        max: 2,
        idleTimeoutMillis: 10_000,
      });
      // An idle reader ended by the server is replaced on the next read; it is no reason to stop.
      this.readPool.on('error', (err) => this.o.logger?.warn({ err }, 'a history read connection failed'));
    }
    // Rows as arrays: no object per row (a walk reads millions).
    return (await this.readPool.query<unknown[]>({ text: sql, values: params, rowMode: 'array' })).rows;
  }

  /** One transaction on the leader's write connection, fenced by the epoch. */
  transaction<T>(fn: (c: pg.ClientBase) => Promise<T>): Promise<T> {
    return this.run(async (c) => {
      try {
        await c.query('BEGIN');
        await this.checkEpoch(c);
        const r = await fn(c);
        await c.query('COMMIT');
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

  private lose(reason: string): void {
    if (this.lostError || this.closed) return;
    this.lostError = new LeadershipLostError(`this replica no longer leads: ${reason}`);
    this.o.logger?.error({ epoch: this.epoch }, this.lostError.message);
    // Ending both sessions lets go of the lock at once if it was still held.
    this.client.end().catch(() => {});
    void this.lock.close();
    for (const l of this.lostListeners.splice(0)) {
      try {
        l(this.lostError);
      } catch (err) {
        this.o.logger?.error({ err }, 'a leadership-lost listener failed');
      }
    }
  }

  /** Gives up the lead: queued work finishes first, then the sessions (and so the lock) end. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.chain;
    this.closed = true;
    await this.readPool?.end().catch(() => {});
    await this.client.end().catch(() => {});
    await this.lock.close();
  }
}

/**
 * Waits for the lock (calling onWaiting once if this replica cannot lead at once), applies the
 * schema migrations, bumps the epoch and returns the session. A database that cannot be reached
 * (down, restarting, out of connection slots) is tried again with jittered backoff, each try
 * logged, until it answers or the signal aborts; any other failure rejects.
 */
export async function acquireLeadership(o: LeaderOptions, signal?: AbortSignal): Promise<LeaderSession> {
  let waiting = false;
  const onWaiting = () => {
    if (waiting) return;
    waiting = true;
    o.onWaiting?.();
  };
  let failures = 0;
  for (;;) {
    if (signal?.aborted) throw new Error('stopped while waiting to lead');
    let reached = false;
    try {
      return await tryToLead(o, signal, () => {
        // The database answered and another replica leads: a later cut starts the backoff afresh.
        reached = true;
        if (failures > 0) o.logger?.info('the database answers again: another replica leads, waiting for the lock');
        failures = 0;
        onWaiting();
      });
    } catch (err) {
      if (signal?.aborted) throw new Error('stopped while waiting to lead', { cause: err });
      if (!isTransient(err)) throw err;
      const delayMs = backoffDelay(reached ? 0 : failures++);
      o.logger?.warn(
        { err: { message: (err as Error).message, code: (err as { code?: string }).code }, try: failures, delayMs },
        'cannot reach the database to lead: trying again',
      );
      onWaiting();
      await pause(delayMs, signal);
    }
  }
}

async function tryToLead(
  o: LeaderOptions,
  signal: AbortSignal | undefined,
  onWaiting: () => void,
): Promise<LeaderSession> {
  const application = `treasury-slack ${o.holder}`;
  const lock = await LockSession.take(
    {
      config: clientConfig(o.url, { sessionTimeout: true, application: `${application} lock` }),
      key: LEADER_LOCK_KEY,
      heartbeatMs: o.heartbeatMs ?? 500,
      maxStallMs: o.maxStallMs ?? WRITE_STALL_TOLERANCE_MS,
      onWaiting,
    },
    signal,
  );
  const client = new pg.Client(clientConfig(o.url, { application, inTransactionTimeoutMs: WRITE_STALL_TOLERANCE_MS }));
  // Until the session exists, a connection error must reject this call rather than go unheard.
  const early = (err: Error) => o.logger?.warn({ err }, 'database connection error while taking the lead');
  client.on('error', early);
  try {
    await client.connect();
    const applied = await migrate(client);
    if (applied.length > 0) o.logger?.info({ applied }, 'database schema migrated');
    // Bumped only while the lock session provably holds the lock (this is another connection): a
    // lock lost just before must not let two replicas each bump and fence the other. The row is
    // locked first (this may wait for a frozen leader's write), and only then is the lock checked,
    // in a statement of its own: a condition inside the UPDATE is read before the wait, not after.
    // The lease counts from before any wait: after a long one it is stale until the lock session's
    // first heartbeat (at once on lead) confirms the epoch, never longer than the lock is known held.
    const bumpedAt = nowNs();
    await client.query('BEGIN');
    let r: pg.QueryResult<{ epoch: string }>;
    try {
      await client.query('SELECT 1 FROM replica_leader WHERE id = 1 FOR UPDATE');
      r = await client.query<{ epoch: string }>(
        `UPDATE replica_leader SET epoch = epoch + 1, holder = $1, since = now(), heartbeat_at = now()
          WHERE id = 1 AND EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
            AND classid = 0 AND objid = $2 AND objsubid = 1 AND pid = $3)
          RETURNING epoch`,
        [o.holder, LEADER_LOCK_KEY, lock.pid],
      );
      await client.query(r.rowCount === 0 ? 'ROLLBACK' : 'COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
    client.off('error', early);
    if (r.rowCount === 0) throw new LockSessionError('the lock session ended while taking the lead', '08006');
    const epoch = Number(r.rows[0]?.epoch);
    o.logger?.info({ epoch, holder: o.holder }, 'this replica leads');
    return new LeaderSession(client, lock, epoch, bumpedAt, o);
  } catch (err) {
    client.off('error', early);
    await client.end().catch(() => {});
    await lock.close();
    throw err;
  }
}
