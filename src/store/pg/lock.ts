/**
 * The main thread's handle on the lock session (lock-worker.mjs): start it, learn whether it
 * holds the lock, read its last heartbeat without waiting for any message (shared memory, so
 * the lease is judged right even after a stall of this event loop), and end it.
 */
import { Worker } from 'node:worker_threads';
import type pg from 'pg';

export interface LockSessionOptions {
  config: pg.ClientConfig;
  key: number;
  heartbeatMs: number;
  /** A stall of the main thread longer than this gives up the lead (lock-worker.mjs). */
  maxStallMs: number;
  /** Called once if another replica holds the lock: this one waits for it. */
  onWaiting?: () => void;
}

/** A failure before the lock was held, with the driver's code (ECONNREFUSED, 57P01…) to judge a retry by. */
export class LockSessionError extends Error {
  override name = 'LockSessionError';
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

type FromWorker =
  | { t: 'waiting' }
  | { t: 'locked'; pid: number }
  | { t: 'failed'; message: string; code?: string }
  | { t: 'lost'; reason: string };

export class LockSession {
  private readonly beatAt: BigInt64Array;
  private readonly gone: Int32Array;
  private readonly mainTurn: BigInt64Array;
  private turns: NodeJS.Timeout | undefined;
  private lostListener: ((reason: string) => void) | undefined;
  private lostReason: string | undefined;
  private readonly exited: Promise<void>;
  private closing = false;
  /** The lock session's server process id, to prove from another connection that it holds the lock. */
  pid = 0;

  private constructor(
    private readonly worker: Worker,
    shared: SharedArrayBuffer,
  ) {
    this.beatAt = new BigInt64Array(shared, 0, 1);
    this.gone = new Int32Array(shared, 8, 1);
    this.mainTurn = new BigInt64Array(shared, 16, 1);
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    // A thread that ends or throws without saying why still ends the lease.
    worker.once('exit', () => this.markLost('the lock session ended'));
    worker.on('error', (err) => this.markLost(`the lock session's thread failed: ${err.message}`));
  }

  /** Resolves once the lock is held (after waiting for it as long as another replica holds it). */
  static async take(o: LockSessionOptions, signal?: AbortSignal): Promise<LockSession> {
    const shared = new SharedArrayBuffer(24);
    const worker = new Worker(new URL('./lock-worker.mjs', import.meta.url), {
      workerData: { config: o.config, key: o.key, heartbeatMs: o.heartbeatMs, maxStallMs: o.maxStallMs, shared },
    });
    const session = new LockSession(worker, shared);
    const abort = () => void session.close();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (m: FromWorker) => {
          if (m.t === 'waiting') o.onWaiting?.();
          else if (m.t === 'locked') {
            session.pid = m.pid;
            resolve();
          } else if (m.t === 'failed') reject(new LockSessionError(m.message, m.code));
          else if (m.t === 'lost') session.markLost(m.reason);
        });
        worker.once('error', reject);
        worker.once('exit', () => reject(new LockSessionError('the lock session ended', undefined)));
      });
    } catch (err) {
      await session.close();
      throw err;
    } finally {
      signal?.removeEventListener('abort', abort);
    }
    if (signal?.aborted) {
      await session.close();
      throw new Error('stopped while waiting to lead');
    }
    return session;
  }

  /** Starts the heartbeat, which confirms `epoch` is still the database's. */
  lead(epoch: number): void {
    // This thread's proof of life for the lock session: a turn of the event loop every 250 ms.
    const turn = () => Atomics.store(this.mainTurn, 0, process.hrtime.bigint());
    turn();
    this.turns = setInterval(turn, 250);
    this.turns.unref();
    this.worker.postMessage({ t: 'lead', epoch });
  }

  /** process.hrtime (ns) at the start of the last confirming heartbeat; 0n before the first. */
  lastBeat(): bigint {
    return Atomics.load(this.beatAt, 0);
  }

  /** True once the session is gone: read from shared memory, so true even before its message arrives. */
  isGone(): boolean {
    return Atomics.load(this.gone, 0) === 1;
  }

  onLost(listener: (reason: string) => void): void {
    if (this.lostReason !== undefined) listener(this.lostReason);
    else this.lostListener = listener;
  }

  private markLost(reason: string): void {
    if (this.lostReason !== undefined || this.closing) return;
    this.lostReason = reason;
    this.lostListener?.(reason);
  }

  /** Ends the session (so the lock is free) and the thread. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.turns);
    this.worker.postMessage({ t: 'close' });
    // A worker that does not finish promptly (a connection stuck in its timeout) is terminated:
    // its socket closes with it, and so does the session on the server.
    const late = setTimeout(() => void this.worker.terminate(), 2_000);
    await this.exited;
    clearTimeout(late);
  }
}
