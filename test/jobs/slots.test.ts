/**
 * Slot semantics with a controllable clock and a real store in a temp dir: a slot missed while
 * the app was down runs once at start, a slot never runs twice across a restart, and a failing
 * job logs every time but warns once and says once that it recovered.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { JOB_RUNS } from '../../src/jobs/runs.js';
import { Scheduler } from '../../src/jobs/scheduler.js';
import type { Job, JobContext, JobNotice } from '../../src/jobs/types.js';
import { build, cronSlots } from '../../src/schedule/slots.js';
import { createLogger } from '../../src/log.js';
import { secrets } from '../../src/secrets.js';
import { openStore, type Store } from '../../src/store/index.js';
import { removeTempDirs, tempDir } from '../store/helpers.js';

const at = (iso: string) => Date.parse(iso);

function logger() {
  let text = '';
  const destination = new Writable({
    write: (c, _e, cb) => {
      text += c.toString();
      cb();
    },
  });
  return { log: createLogger({ level: 'debug', destination }), text: () => text };
}

let open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await removeTempDirs();
});

async function storeAt(dir: string): Promise<Store> {
  const s = await openStore({ dir });
  open.push(s);
  return s;
}

/** One process's life: a store on `dir`, a scheduler on a clock, a daily job that records its runs. */
async function boot(dir: string, clock: { now: number }, runs: JobContext[], extra: Partial<Job> = {}) {
  const store = await storeAt(dir);
  const notices: JobNotice[] = [];
  const { log, text } = logger();
  const s = new Scheduler(log, { store, now: () => clock.now, notify: (_tx, n) => void notices.push(n) });
  s.add({
    name: 'test.daily',
    schedule: '0 8 * * *',
    timing: () => ({ schedule: '0 8 * * *', timezone: 'Europe/Berlin' }),
    catchUp: true,
    run: async (ctx) => void runs.push(ctx),
    ...extra,
  });
  return {
    store,
    s,
    notices,
    text,
    async shutdown() {
      await s.stop();
      await store.close();
      open = open.filter((x) => x !== store);
    },
  };
}

/** Lets the runs started by start() (fire-and-forget) finish. */
const settle = () => new Promise((r) => setTimeout(r, 30));

describe('cron slots (cron-parser)', () => {
  it('gives the previous and next slot in the time zone, including a slot exactly at the instant', () => {
    const berlin = cronSlots('0 8 * * *', 'Europe/Berlin');
    // 08:00 in Berlin is 07:00 UTC in November.
    expect(berlin.previous(at('2026-11-23T07:30:00Z'))).toBe(at('2026-11-23T07:00:00Z'));
    expect(berlin.previous(at('2026-11-23T06:59:59Z'))).toBe(at('2026-11-22T07:00:00Z'));
    expect(berlin.next(at('2026-11-23T07:30:00Z'))).toBe(at('2026-11-24T07:00:00Z'));
    const monthly = cronSlots('0 6 1 * *', 'UTC');
    expect(monthly.previous(at('2026-11-23T00:00:00Z'))).toBe(at('2026-11-01T06:00:00Z'));
    expect(monthly.next(at('2026-11-23T00:00:00Z'))).toBe(at('2026-12-01T06:00:00Z'));
    const fast = cronSlots('*/30 * * * * *', 'UTC');
    expect(fast.previous(at('2026-11-23T07:30:30Z'))).toBe(at('2026-11-23T07:30:30Z'));
    expect(fast.previous(at('2026-11-23T07:30:59.900Z'))).toBe(at('2026-11-23T07:30:30Z'));
    // A slot further back than the horizon (29 February) is not searched for forever.
    const leap = cronSlots('0 0 29 2 *', 'UTC');
    expect(leap.previous(at('2026-11-23T00:00:00Z'))).toBeUndefined();
    expect(leap.previous(at('2026-11-23T00:00:00Z'), 3 * 365 * 86_400_000)).toBe(at('2024-02-29T00:00:00Z'));
  });

  it('keeps one slot a day across the DST changes in Europe/Berlin (clocks forward and back)', () => {
    const night = cronSlots('30 2 * * *', 'Europe/Berlin');
    // 29 March 2026: 02:00 CET jumps to 03:00 CEST; 02:30 does not exist and the slot is 03:30 CEST (01:30 UTC).
    const spring = night.next(at('2026-03-28T12:00:00Z'));
    expect(spring).toBe(at('2026-03-29T01:30:00Z'));
    expect(night.previous(at('2026-03-29T12:00:00Z'))).toBe(spring);
    expect(night.next(spring)).toBe(at('2026-03-30T00:30:00Z'));
    // 25 October 2026: 03:00 CEST goes back to 02:00 CET, so 02:30 happens twice; the job has one slot, the first.
    const autumn = night.next(at('2026-10-24T12:00:00Z'));
    expect(autumn).toBe(at('2026-10-25T00:30:00Z'));
    expect(night.next(autumn)).toBe(at('2026-10-26T01:30:00Z'));
    expect(night.previous(at('2026-10-25T01:30:00Z'))).toBe(autumn);
    expect(night.previous(at('2026-10-25T12:00:00Z'))).toBe(autumn);
    // A daily 08:00 moves from 06:00 UTC (summer) to 07:00 UTC (winter).
    const morning = cronSlots('0 8 * * *', 'Europe/Berlin');
    expect(morning.previous(at('2026-10-25T06:59:00Z'))).toBe(at('2026-10-24T06:00:00Z'));
    expect(morning.next(at('2026-10-24T06:00:00Z'))).toBe(at('2026-10-25T07:00:00Z'));
  });

  it('gives monthly slots in the time zone, including east of UTC where the 1st starts the day before in UTC', () => {
    const sydney = cronSlots('0 9 1 * *', 'Australia/Sydney');
    // 09:00 on 1 November in Sydney (AEDT, UTC+11) is 22:00 UTC on 31 October.
    expect(sydney.previous(at('2026-11-23T00:00:00Z'))).toBe(at('2026-10-31T22:00:00Z'));
    expect(sydney.previous(at('2026-10-31T21:59:59Z'))).toBe(at('2026-09-30T23:00:00Z'));
    expect(sydney.next(at('2026-10-31T22:00:00Z'))).toBe(at('2026-11-30T22:00:00Z'));
    const berlin = cronSlots('0 9 1 * *', 'Europe/Berlin');
    expect(berlin.next(at('2026-02-15T00:00:00Z'))).toBe(at('2026-03-01T08:00:00Z'));
    expect(berlin.next(at('2026-03-01T08:00:00Z'))).toBe(at('2026-04-01T07:00:00Z'));
    expect(berlin.previous(at('2026-04-01T07:00:00Z'))).toBe(at('2026-04-01T07:00:00Z'));
  });

  it('refuses an expression it cannot read', () => {
    expect(() => cronSlots('not a schedule', 'UTC')).toThrow(/invalid schedule/);
  });
});

describe('slot jobs across restarts', () => {
  it('first start runs nothing; a tick runs the slot once; a restart after it does not run it again', async () => {
    const dir = await tempDir();
    const clock = { now: at('2026-11-23T06:30:00Z') };
    const runs: JobContext[] = [];
    const a = await boot(dir, clock, runs);
    a.s.start();
    await settle();
    expect(runs).toEqual([]);
    expect(a.store.get(JOB_RUNS, 'test.daily')?.lastSlot).toBe(at('2026-11-22T07:00:00Z'));

    clock.now = at('2026-11-23T07:00:00.200Z');
    await a.s.tick(clock.now);
    await a.s.tick(clock.now); // the same slot seen twice: one run
    expect(runs).toEqual([{ slot: at('2026-11-23T07:00:00Z'), reason: 'schedule' }]);
    await a.shutdown();

    // Restart five minutes later: the latest slot already ran.
    clock.now = at('2026-11-23T07:05:00Z');
    const b = await boot(dir, clock, runs);
    b.s.start();
    await settle();
    expect(runs).toHaveLength(1);
    expect(b.text()).toContain('latest slot already ran');
    const rec = b.store.get(JOB_RUNS, 'test.daily')!;
    expect(rec).toMatchObject({ outcome: 'ok', lastSlot: at('2026-11-23T07:00:00Z'), durationMs: 0 });
    await b.shutdown();
  });

  it('a slot missed while the app was down runs once at start, and not again at the next restart', async () => {
    const dir = await tempDir();
    const clock = { now: at('2026-11-23T07:30:00Z') };
    const runs: JobContext[] = [];
    const a = await boot(dir, clock, runs);
    a.s.start(); // first start: baseline is the 07:00 slot
    await settle();
    await a.shutdown();

    // Down over two slots (24th and 25th): at start only the latest one runs, once.
    clock.now = at('2026-11-25T09:00:00Z');
    const b = await boot(dir, clock, runs);
    b.s.start();
    await settle();
    expect(runs).toEqual([{ slot: at('2026-11-25T07:00:00Z'), reason: 'catch-up' }]);
    expect(b.text()).toContain('running a slot missed while the app was down');
    // The clock ticks on within the same day: nothing new.
    clock.now = at('2026-11-25T12:00:00Z');
    await b.s.tick(clock.now);
    expect(runs).toHaveLength(1);
    await b.shutdown();

    clock.now = at('2026-11-25T09:01:00Z');
    const c = await boot(dir, clock, runs);
    c.s.start();
    await settle();
    expect(runs).toHaveLength(1);
    await c.shutdown();
  });

  it('a run cut off by a crash (never recorded as ended) runs again at start', async () => {
    const dir = await tempDir();
    const clock = { now: at('2026-11-23T06:00:00Z') };
    const runs: JobContext[] = [];
    const a = await boot(dir, clock, runs);
    a.s.start();
    await settle();
    await a.shutdown();
    // The process dies during the 07:00 run: simulated by a store that never got its record.
    clock.now = at('2026-11-23T07:00:10Z');
    const b = await boot(dir, clock, runs);
    b.s.start();
    await settle();
    expect(runs).toEqual([{ slot: at('2026-11-23T07:00:00Z'), reason: 'catch-up' }]);
    await b.shutdown();
  });

  it('polling jobs still run once at start, every start', async () => {
    const dir = await tempDir();
    const clock = { now: at('2026-11-23T06:00:00Z') };
    const runs: JobContext[] = [];
    for (let i = 0; i < 2; i++) {
      const p = await boot(dir, clock, runs, {
        catchUp: false,
        schedule: '*/30 * * * * *',
        timing: () => ({ schedule: '*/30 * * * * *', timezone: 'UTC' }),
      });
      p.s.start();
      await settle();
      await p.shutdown();
    }
    expect(runs.map((r) => r.reason)).toEqual(['start', 'start']);
  });
});

describe('a failing job', () => {
  it('logs every failure, warns once, and says once when it works again', async () => {
    const dir = await tempDir();
    const clock = { now: at('2026-11-23T06:00:00Z') };
    let failing = true;
    const a = await boot(dir, clock, [], {
      catchUp: false,
      runOnStart: false,
      title: 'Daily digest',
      run: async () => {
        if (failing) throw new Error('chart renderer crashed');
      },
    });
    a.s.start();
    for (const day of ['23', '24', '25']) {
      clock.now = at(`2026-11-${day}T07:00:01Z`);
      await a.s.tick(clock.now);
    }
    expect(a.text().match(/job failed; it will run again at its next tick/g)).toHaveLength(3);
    expect(a.notices).toEqual([
      {
        job: 'test.daily',
        title: 'Daily digest',
        kind: 'failing',
        at: at('2026-11-25T07:00:01Z') - 2 * 86_400_000,
        error: 'chart renderer crashed',
      },
    ]);
    expect(a.store.get(JOB_RUNS, 'test.daily')).toMatchObject({ outcome: 'failed', failures: 3 });

    failing = false;
    clock.now = at('2026-11-26T07:00:01Z');
    await a.s.tick(clock.now);
    clock.now = at('2026-11-27T07:00:01Z');
    await a.s.tick(clock.now);
    expect(a.notices.map((n) => n.kind)).toEqual(['failing', 'recovered']);
    expect(a.notices[1]).toMatchObject({ failingSince: at('2026-11-23T07:00:01Z'), failures: 3 });
    const rec = a.store.get(JOB_RUNS, 'test.daily')!;
    expect(rec.outcome).toBe('ok');
    expect(rec.failingSince).toBeUndefined();
    await a.shutdown();
  });

  it('keeps no secret in the stored error or the warning', async () => {
    const dir = await tempDir();
    const clock = { now: at('2026-11-23T06:00:00Z') };
    const token = 'sbx_at_job-secret-0123456789';
    secrets.add(token);
    const a = await boot(dir, clock, [], {
      catchUp: false,
      runOnStart: false,
      run: async () => {
        throw new Error(`request with Bearer ${token} refused`);
      },
    });
    a.s.start();
    await a.s.runNow('test.daily');
    const rec = a.store.get(JOB_RUNS, 'test.daily')!;
    expect(rec.error).toBe('request with Bearer [REDACTED] refused');
    expect(JSON.stringify(a.notices)).not.toContain(token);
    expect(a.notices[0]?.error).toBe('request with Bearer [REDACTED] refused');
    await a.shutdown();
  });
});

describe('slot runs that fail, overlap or are rescheduled', () => {
  it('a failed slot run is retried within its slot with a growing pause, a bounded number of times, warning once', async () => {
    const dir = await tempDir();
    const clock = { now: at('2026-11-23T06:00:00Z') };
    const runs: JobContext[] = [];
    let failing = true;
    const a = await boot(dir, clock, runs, {
      run: async (ctx) => {
        runs.push(ctx);
        if (failing) throw new Error('Slack answered 500');
      },
    });
    a.s.start();
    await settle();
    clock.now = at('2026-11-23T07:00:00Z');
    await a.s.tick(clock.now);
    expect(runs.map((r) => r.reason)).toEqual(['schedule']);
    // Ticks every 30 s for the rest of the morning: retries after 1, 2, 4, 8 and 16 minutes, then none.
    const retriedAt: number[] = [];
    while (clock.now < at('2026-11-23T12:00:00Z')) {
      clock.now += 30_000;
      const before = runs.length;
      await a.s.tick(clock.now);
      if (runs.length > before) retriedAt.push((clock.now - at('2026-11-23T07:00:00Z')) / 60_000);
    }
    expect(retriedAt).toEqual([1, 3, 7, 15, 31]);
    expect(runs.every((r) => r.slot === at('2026-11-23T07:00:00Z'))).toBe(true);
    expect(runs.slice(1).map((r) => r.reason)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry']);
    expect(a.notices.map((n) => n.kind)).toEqual(['failing']);
    // The next day's slot runs as usual, fails, and its first retry succeeds: one "recovered".
    clock.now = at('2026-11-24T07:00:00Z');
    await a.s.tick(clock.now);
    failing = false;
    clock.now += 60_000;
    await a.s.tick(clock.now);
    expect(runs.slice(6).map((r) => [r.reason, r.slot])).toEqual([
      ['schedule', at('2026-11-24T07:00:00Z')],
      ['retry', at('2026-11-24T07:00:00Z')],
    ]);
    expect(a.notices.map((n) => n.kind)).toEqual(['failing', 'recovered']);
    expect(a.store.get(JOB_RUNS, 'test.daily')?.retry).toBeUndefined();
    clock.now += 3_600_000;
    await a.s.tick(clock.now);
    expect(runs).toHaveLength(8);
    await a.shutdown();
  });

  it('a slot that falls while the job still runs for an earlier one runs right after it (once, the newest)', async () => {
    const dir = await tempDir();
    const clock = { now: at('2026-11-23T06:59:30Z') };
    const runs: JobContext[] = [];
    const releases: Array<() => void> = [];
    const a = await boot(dir, clock, runs, {
      timing: () => ({ schedule: '* * * * *', timezone: 'UTC' }),
      run: async (ctx) => {
        runs.push(ctx);
        await new Promise<void>((r) => releases.push(r));
      },
    });
    a.s.start();
    await settle();
    clock.now = at('2026-11-23T07:00:00Z');
    const first = a.s.tick(clock.now);
    await settle();
    clock.now = at('2026-11-23T07:01:00Z');
    const second = a.s.tick(clock.now);
    clock.now = at('2026-11-23T07:02:00Z');
    const third = a.s.tick(clock.now);
    await settle();
    expect(runs.map((r) => r.slot)).toEqual([at('2026-11-23T07:00:00Z')]);
    releases.shift()!();
    await settle();
    expect(runs.map((r) => r.slot)).toEqual([at('2026-11-23T07:00:00Z'), at('2026-11-23T07:02:00Z')]);
    releases.shift()!();
    await Promise.all([first, second, third]);
    expect(runs).toHaveLength(2);
    expect(a.store.get(JOB_RUNS, 'test.daily')?.lastSlot).toBe(at('2026-11-23T07:02:00Z'));
    await a.shutdown();
  });

  it('after reschedule, a slot of the new schedule already past does not run (not at once, not after a restart)', async () => {
    const dir = await tempDir();
    // 10:00 in Berlin; the job is at 20:00 and is moved to 08:00.
    const clock = { now: at('2026-11-23T09:00:00Z') };
    const runs: JobContext[] = [];
    const timing = { schedule: '0 20 * * *', timezone: 'Europe/Berlin' };
    const a = await boot(dir, clock, runs, { timing: () => timing });
    a.s.start();
    await settle();
    timing.schedule = '0 8 * * *';
    await a.s.reschedule();
    clock.now += 30_000;
    await a.s.tick(clock.now);
    expect(runs).toEqual([]);
    await a.shutdown();
    const b = await boot(dir, clock, runs, { timing: () => timing });
    b.s.start();
    await settle();
    expect(runs).toEqual([]);
    // The next 08:00 runs.
    clock.now = at('2026-11-24T07:00:00Z');
    await b.s.tick(clock.now);
    expect(runs).toEqual([{ slot: at('2026-11-24T07:00:00Z'), reason: 'schedule' }]);
    await b.shutdown();
  });
});

describe('the latest slot, remembered between ticks', () => {
  it('answers the same in any order of asking, across a DST change, as a schedule never asked before', () => {
    const asked = cronSlots('30 2 * * *', 'Europe/Berlin');
    // A new instance per question: nothing remembered.
    const fresh = (at: number) => build('30 2 * * *', 'Europe/Berlin').previous(at);
    const start = Date.parse('2026-10-23T00:00:00Z');
    const instants = Array.from({ length: 7 * 24 * 6 }, (_, i) => start + i * 10 * 60_000 + (i % 7) * 1000);
    const expected = new Map(instants.map((at) => [at, fresh(at)]));
    // Backwards, then shuffled: every answer from memory must be the one computed afresh.
    const order = [...instants].reverse().concat(
      instants.filter((_, i) => i % 3 === 0),
      instants,
    );
    for (const at of order) expect(asked.previous(at), new Date(at).toISOString()).toBe(expected.get(at));
  });
});
