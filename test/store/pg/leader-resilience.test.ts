/**
 * The lead through the database's faults and the leader's stalls (src/store/pg/leader.ts), in
 * this process, on a cluster of the file's own (it is stopped): a start while PostgreSQL is down
 * waits, logging each try, and leads once it is up; a stop while waiting ends the wait at once;
 * a 10 s stall of the event loop keeps the lead (the lock session lives in a worker thread) while
 * a competitor waits, and a longer one gives it up; a lock session ended by the server voids the lease at once, read from
 * shared memory before this thread has heard about it.
 */
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { collection } from '../../../src/store/index.js';
import { openPgStore } from '../../../src/store/pg/index.js';
import { acquireLeadership, LEADER_LOCK_KEY } from '../../../src/store/pg/leader.js';
import { pgAvailable, pgSkipReason } from '../../helpers/pg.js';
import { type OwnCluster, ownCluster } from '../../helpers/pg-own-cluster.js';
import { until, untilAsync } from '../../helpers/wait.js';

const NOTES = collection<{ n: number }>('notes');

function capturedLogger() {
  const lines: Array<{ msg: string; delayMs?: number }> = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

/** Blocks this thread's event loop, as a long synchronous task would. */
const stall = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe.skipIf(!pgAvailable)(`the lead through faults${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let cluster: OwnCluster;
  let url = '';
  beforeAll(async () => {
    cluster = ownCluster({ maxConnections: 30 });
    url = await cluster.createDatabase('resilience');
  }, 60_000);
  afterAll(() => cluster?.remove());

  it('a start while PostgreSQL is down waits, logs each try, and leads once it is up', async () => {
    cluster.stop();
    const { logger, lines } = capturedLogger();
    const tries = () => lines.filter((l) => l.msg === 'cannot reach the database to lead: trying again');
    let waiting = 0;
    const started = Date.now();
    const leading = acquireLeadership({ url, holder: 'test:start', logger, onWaiting: () => waiting++ });
    await until('three logged tries', () => tries().length >= 3, 10_000);
    expect(waiting).toBe(1);
    cluster.start();
    const leader = await leading;
    try {
      expect(leader.leaseFresh()).toBe(true);
      expect(Date.now() - started).toBeLessThan(30_000);
      // every wait is logged with its length, none over the cap
      for (const t of tries()) expect(t.delayMs).toBeLessThanOrEqual(2_000);
    } finally {
      await leader.close();
    }
  }, 60_000);

  it('a stop while waiting for the database ends the wait at once', async () => {
    cluster.stop();
    try {
      const abort = new AbortController();
      const leading = acquireLeadership({ url, holder: 'test:abort' }, abort.signal);
      await new Promise((r) => setTimeout(r, 500));
      const at = Date.now();
      abort.abort();
      await expect(leading).rejects.toThrow(/stopped/);
      expect(Date.now() - at).toBeLessThan(500);
    } finally {
      cluster.start();
    }
  }, 30_000);

  it('a 10 s stall of the event loop keeps the lead; a competitor keeps waiting', async () => {
    const a = await openPgStore({ url, holder: 'test:a' });
    let bLeads = false;
    let bWaits = false;
    const b = openPgStore({ url, holder: 'test:b', onWaiting: () => (bWaits = true) }).then((o) => {
      bLeads = true;
      return o;
    });
    try {
      await until('the competitor to wait', () => bWaits, 10_000);
      await a.store.commit((tx) => tx.put(NOTES, 'before', { n: 1 }));
      const stalledAt = performance.now();
      stall(10_000);
      const stalledMs = performance.now() - stalledAt;
      expect(stalledMs).toBeGreaterThanOrEqual(10_000);
      // still the leader on waking: the lock session's thread kept confirming the epoch (a
      // session left idle that long would have been ended by the server, and the lease lost for good)
      expect(a.leader.lost).toBeUndefined();
      await until('the lease to be fresh', () => a.leader.leaseFresh(), 1_000, 5);
      await a.store.commit((tx) => tx.put(NOTES, 'after', { n: 2 }));
      expect(a.leader.lost).toBeUndefined();
      await new Promise((r) => setTimeout(r, 500));
      expect(bLeads).toBe(false);
    } finally {
      await a.store.close();
    }
    const next = await b;
    try {
      expect(next.leader.epoch).toBe(a.leader.epoch + 1);
      expect(next.store.get(NOTES, 'after')).toEqual({ n: 2 });
    } finally {
      await next.store.close();
    }
  }, 60_000);

  it('a stall longer than the tolerance gives the lead up: a wedged process does not hold it forever', async () => {
    const a = await openPgStore({ url, holder: 'test:wedged', maxStallMs: 2_000 });
    const b = openPgStore({ url, holder: 'test:after' });
    try {
      stall(3_500);
      expect(a.leader.leaseFresh()).toBe(false);
      const next = await b;
      expect(next.leader.epoch).toBe(a.leader.epoch + 1);
      await next.store.close();
      expect(a.leader.lost?.message).toMatch(/event loop has not turned/);
    } finally {
      await a.store.close();
    }
  }, 30_000);

  it('a lock session ended by the server voids the lease before this thread hears of it', async () => {
    const o = await openPgStore({ url, holder: 'test:ended' });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      expect(o.leader.leaseFresh()).toBe(true);
      // sent now, run by the server a moment later, while this thread is blocked below
      const ended = admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_sleep(0.3), pg_stat_activity WHERE application_name = 'treasury-slack test:ended lock'",
      );
      // no turn of this event loop: only shared memory can tell
      const deadline = performance.now() + 5_000;
      while (o.leader.leaseFresh() && performance.now() < deadline) stall(10);
      expect(o.leader.leaseFresh()).toBe(false);
      expect(o.leader.lost).toBeUndefined();
      await ended;
      await until('the loss to be heard', () => o.leader.lost, 5_000);
      expect(o.leader.lost?.message).toMatch(/no longer leads/);
      await expect(o.store.commit((tx) => tx.put(NOTES, 'late', { n: 3 }))).rejects.toThrow();
    } finally {
      await admin.end();
      await o.store.close();
    }
  }, 30_000);

  it("a lock session ended while the epoch bump waits on a frozen leader's row does not bump: the lead is taken again with a live lock", async () => {
    // The schema and the row exist once someone has led.
    await (await acquireLeadership({ url, holder: 'test:first' })).close();
    const frozen = new pg.Client({ connectionString: url });
    await frozen.connect();
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    try {
      // A leader frozen inside a write: the epoch row stays locked.
      await frozen.query('BEGIN');
      await frozen.query('SELECT epoch FROM replica_leader WHERE id = 1 FOR UPDATE');
      const taking = acquireLeadership({ url, holder: 'test:bump' });
      const lockPid = async () =>
        (
          await watcher.query<{ pid: number }>(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = $1",
            [LEADER_LOCK_KEY],
          )
        ).rows[0]?.pid;
      const first = await untilAsync('the lock taken', lockPid);
      await untilAsync('the bump waiting on the row', async () => {
        const r = await watcher.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
        );
        return (r.rowCount ?? 0) > 0;
      });
      // The lock session is cut while the bump waits; then the frozen leader's transaction ends.
      await watcher.query('SELECT pg_terminate_backend($1)', [first]);
      await frozen.query('COMMIT');
      const leader = await taking;
      try {
        // Led with a lock session that is alive, not the one that was cut.
        expect(leader.leaseFresh()).toBe(true);
        expect(await lockPid()).not.toBe(first);
      } finally {
        await leader.close();
      }
    } finally {
      await frozen.end().catch(() => {});
      await watcher.end();
    }
  }, 30_000);
});
