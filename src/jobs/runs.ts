/**
 * The persisted run records of the scheduled jobs (collection `job_runs`) and the rules that
 * write them. `endedRun` is pure: from the previous record and a run that just ended it gives
 * the next record and, on a change between failing and working, the one notice to queue. The
 * scheduler (scheduler.ts) decides when to run; this file decides what a run leaves behind.
 */
import { secrets } from '../secrets.js';
import { collection, type Store, type Tx } from '../store/index.js';
import type { Job, JobContext, JobNotice, JobRunRecord } from './types.js';

/** Never rename: it is the persisted name. */
export const JOB_RUNS = collection<JobRunRecord>('job_runs');

const ERROR_SUMMARY_MAX = 200;
/** Retries of a failed slot run within its slot, and the first pause (doubled each time). */
export const MAX_SLOT_RETRIES = 5;
export const FIRST_RETRY_MS = 60_000;

/** A run that has just ended. `err` undefined: it succeeded. */
export interface EndedRun {
  job: Pick<Job, 'name' | 'title' | 'catchUp'>;
  ctx: JobContext;
  startedAt: number;
  endedAt: number;
  err: unknown;
}

/** The record to write, and the notice to queue in the same commit when there is one. */
export interface RunRecordStep {
  rec: JobRunRecord;
  notice?: JobNotice;
}

/** Whether the job's latest ended run (or its baseline) is for `slot` or a later one. */
export function ranFor(rec: JobRunRecord | undefined, slot: number): boolean {
  return rec?.lastSlot !== undefined && rec.lastSlot >= slot;
}

/**
 * The next record after a run ended. The first failure after a success gives ONE "failing"
 * notice, the first success after failures one "recovered" notice: people hear of a change,
 * not of every tick of a broken job.
 */
export function endedRun(prev: JobRunRecord | undefined, run: EndedRun): RunRecordStep {
  const { job, ctx, startedAt, endedAt, err } = run;
  const failed = err !== undefined;
  const title = job.title ?? job.name;
  const rec: JobRunRecord = {
    name: job.name,
    lastSlot: Math.max(prev?.lastSlot ?? Number.NEGATIVE_INFINITY, ctx.slot),
    startedAt,
    endedAt,
    outcome: failed ? 'failed' : 'ok',
    durationMs: endedAt - startedAt,
  };
  if (failed && job.catchUp && ctx.reason !== 'manual') {
    // Retry this slot later within it, with a growing pause, a bounded number of times.
    const count = prev?.retry?.slot === ctx.slot ? prev.retry.count : 0;
    if (count < MAX_SLOT_RETRIES)
      rec.retry = { slot: ctx.slot, at: endedAt + FIRST_RETRY_MS * 2 ** count, count: count + 1 };
  } else if (failed && prev?.retry) {
    rec.retry = prev.retry; // a run by hand that failed leaves a pending retry as it was
  }
  if (failed) {
    rec.error = errorSummary(err);
    rec.failingSince = prev?.failingSince ?? startedAt;
    rec.failures = (prev?.failures ?? 0) + 1;
    if (prev?.failingSince === undefined)
      return { rec, notice: { job: job.name, title, kind: 'failing', at: startedAt, error: rec.error } };
    return { rec };
  }
  if (prev?.failingSince !== undefined) {
    return {
      rec,
      notice: {
        job: job.name,
        title,
        kind: 'recovered',
        at: endedAt,
        failingSince: prev.failingSince,
        ...(prev.failures !== undefined ? { failures: prev.failures } : {}),
      },
    };
  }
  return { rec };
}

/** The error in one short line, with no secret in it (it is stored and shown to admins). */
export function errorSummary(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = secrets.scrub(text).replace(/\s+/g, ' ').trim();
  return line.length > ERROR_SUMMARY_MAX ? `${line.slice(0, ERROR_SUMMARY_MAX - 1)}…` : line || 'unknown error';
}

/**
 * Where the records live: the store, or (no store: unit tests of the pure behaviour) memory.
 * Every write reads the previous record inside its own commit, so two writers of one job's
 * record never lose each other's change.
 */
export class JobRuns {
  private readonly memory = new Map<string, JobRunRecord>();

  constructor(
    private readonly store?: Store,
    /** Queues a notice for people inside the commit (the outbox); not called without a store. */
    private readonly notify?: (tx: Tx, notice: JobNotice) => void,
  ) {}

  get(name: string): JobRunRecord | undefined {
    return this.store ? this.store.get(JOB_RUNS, name) : this.memory.get(name);
  }

  /** Writes a job's record from the previous one (undefined: leave it), with its notice, in one commit. */
  update(name: string, next: (prev: JobRunRecord | undefined) => RunRecordStep | undefined): Promise<void> {
    const store = this.store;
    if (!store) {
      const step = next(this.memory.get(name));
      if (step) this.memory.set(name, step.rec);
      return Promise.resolve();
    }
    return store.commit((tx) => {
      const step = next(tx.get(JOB_RUNS, name));
      if (!step) return;
      tx.put(JOB_RUNS, name, step.rec);
      if (step.notice) this.notify?.(tx, step.notice);
    });
  }
}
