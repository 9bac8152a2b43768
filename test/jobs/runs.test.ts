/**
 * What a run leaves behind, without a store or a clock: `endedRun(previous record, the run)`
 * gives the next record and at most one notice. Given / when / then.
 */
import { describe, expect, it } from 'vitest';
import { FIRST_RETRY_MS, MAX_SLOT_RETRIES, endedRun, ranFor, type EndedRun } from '../../src/jobs/runs.js';
import type { JobRunRecord } from '../../src/jobs/types.js';

const slotJob = { name: 'digest.daily', title: 'Daily digest', catchUp: true };
const pollJob = { name: 'alerts.poll' };
const run = (over: Partial<EndedRun> = {}): EndedRun => ({
  job: slotJob,
  ctx: { slot: 1_000, reason: 'schedule' },
  startedAt: 2_000,
  endedAt: 2_500,
  err: undefined,
  ...over,
});

describe('endedRun', () => {
  it('given a job that worked, when a run succeeds, then the record moves on and nobody is told', () => {
    const prev: JobRunRecord = { name: slotJob.name, lastSlot: 500, outcome: 'ok' };
    const { rec, notice } = endedRun(prev, run());
    expect(rec).toEqual({
      name: slotJob.name,
      lastSlot: 1_000,
      startedAt: 2_000,
      endedAt: 2_500,
      outcome: 'ok',
      durationMs: 500,
    });
    expect(notice).toBeUndefined();
  });

  it('given a job that worked, when a slot run fails, then ONE failing notice and a retry after the first pause', () => {
    const { rec, notice } = endedRun({ name: slotJob.name, lastSlot: 500 }, run({ err: new Error('boom') }));
    expect(rec).toMatchObject({ outcome: 'failed', error: 'boom', failingSince: 2_000, failures: 1 });
    expect(rec.retry).toEqual({ slot: 1_000, at: 2_500 + FIRST_RETRY_MS, count: 1 });
    expect(notice).toEqual({ job: slotJob.name, title: 'Daily digest', kind: 'failing', at: 2_000, error: 'boom' });
  });

  it('given a job already failing, when it fails again, then no second notice and the pause doubles', () => {
    const prev: JobRunRecord = {
      name: slotJob.name,
      lastSlot: 1_000,
      failingSince: 1_500,
      failures: 1,
      retry: { slot: 1_000, at: 1_600, count: 1 },
    };
    const { rec, notice } = endedRun(prev, run({ ctx: { slot: 1_000, reason: 'retry' }, err: new Error('again') }));
    expect(notice).toBeUndefined();
    expect(rec).toMatchObject({ failingSince: 1_500, failures: 2 });
    expect(rec.retry).toEqual({ slot: 1_000, at: 2_500 + FIRST_RETRY_MS * 2, count: 2 });
  });

  it('given the retries of a slot are used up, when it fails again, then no further retry is planned', () => {
    const prev: JobRunRecord = {
      name: slotJob.name,
      failingSince: 1,
      failures: 6,
      retry: { slot: 1_000, at: 1, count: MAX_SLOT_RETRIES },
    };
    expect(endedRun(prev, run({ err: new Error('x') })).rec.retry).toBeUndefined();
  });

  it('given a pending retry, when a run by hand fails, then the retry is kept as it was', () => {
    const retry = { slot: 900, at: 5_000, count: 2 };
    const prev: JobRunRecord = { name: slotJob.name, failingSince: 1, failures: 2, retry };
    const { rec } = endedRun(prev, run({ ctx: { slot: 2_000, reason: 'manual' }, err: new Error('x') }));
    expect(rec.retry).toEqual(retry);
  });

  it('given a failing job, when it succeeds, then one recovered notice with how long and how often', () => {
    const prev: JobRunRecord = { name: pollJob.name, failingSince: 100, failures: 3 };
    const { rec, notice } = endedRun(prev, run({ job: pollJob }));
    expect(rec.failingSince).toBeUndefined();
    expect(notice).toEqual({
      job: pollJob.name,
      title: pollJob.name,
      kind: 'recovered',
      at: 2_500,
      failingSince: 100,
      failures: 3,
    });
  });

  it('given a polling job, when it fails, then no slot retry is planned (its next tick runs it anyway)', () => {
    expect(endedRun(undefined, run({ job: pollJob, err: 'down' })).rec.retry).toBeUndefined();
  });

  it('never moves the last slot backwards (a late run for an older slot)', () => {
    const { rec } = endedRun({ name: slotJob.name, lastSlot: 5_000 }, run());
    expect(rec.lastSlot).toBe(5_000);
    expect(ranFor(rec, 1_000)).toBe(true);
    expect(ranFor(rec, 6_000)).toBe(false);
    expect(ranFor(undefined, 0)).toBe(false);
  });
});
