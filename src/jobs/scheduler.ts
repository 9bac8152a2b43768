/**
 * Runs the job table (table.ts). node-cron is only the production trigger: what runs, and
 * when a slot counts as done, is decided here from a clock the caller gives (`now`), so tests
 * drive slots with `tick(at)` and never wait.
 *
 * Guarantees:
 * - A job never overlaps itself: a run asked for while one is going joins that run.
 * - Each job's last run (start, end, outcome, duration, error summary) and the slot it ran for
 *   are persisted in the store (collection `job_runs`, runs.ts), in one commit when the run ends.
 * - Two kinds of job (see `Job.catchUp`):
 *   - polling jobs (every 30 s, every few minutes) run once at start and then on their ticks:
 *     running one an extra time is harmless and catches up at once;
 *   - slot jobs (a daily digest, a monthly export, pruning) follow slot semantics: at start the
 *     latest slot is computed from the cron expression and time zone; if the last persisted run
 *     is for an earlier slot, the job runs once for it (a slot missed while the app was down);
 *     if it already ran for it, nothing runs (a slot never runs twice across a restart). A
 *     slot counts as done when its run ended, whatever the outcome (a failed slot is retried
 *     within its slot a bounded number of times, see below, not in a loop); a run cut off by a crash never ended, so it runs again
 *     at start: jobs must be idempotent per slot (`JobContext.slot` is the key to use).
 *     On the very first start nothing was missed: the latest slot is recorded as the baseline.
 *   - A slot run that failed is retried within its slot at later ticks, with a growing pause
 *     (1, 2, 4, 8, 16 minutes; five retries), until it succeeds or the next slot comes.
 *   - A slot that falls while the job is still running for an earlier one runs right after it
 *     (one follow-up run, for the newest such slot).
 *   - After reschedule() (the policy changed the schedule) each job's slots start from now: a
 *     slot of the new schedule that is already past does not run.
 * - A failing job is logged every time; the first failure after a success posts ONE warning
 *   (through `notify`, in the same commit as the run record) and the first success after that
 *   posts one "recovered" notice (the record and notice rules: `endedRun` in runs.ts).
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../log.js';
import { inRequest } from '../request-context.js';
import type { Store, Tx } from '../store/index.js';
import { JobRuns, endedRun, ranFor } from './runs.js';
import { cronSlots } from '../schedule/slots.js';
import type { Job, JobContext, JobNotice, JobRunRecord, JobStatus, JobTiming } from './types.js';

// status() returns it, and src/slack/job-messages.ts knows it from here.
export type { JobStatus } from './types.js';

export interface SchedulerOptions {
  /** Where runs are persisted; without it they are kept in memory (unit tests of the pure behaviour). */
  store?: Store;
  now?: () => number;
  /** Queue a notice for people inside the commit (the outbox). */
  notify?: (tx: Tx, notice: JobNotice) => void;
}

export class Scheduler {
  private readonly jobs = new Map<string, Job>();
  private readonly running = new Map<string, { ctx: JobContext; run: Promise<void> }>();
  /** Per job, one run for a newer slot queued behind the run in progress. */
  private readonly followUps = new Map<string, { ctx: JobContext; run: Promise<void> }>();
  private readonly tasks: ScheduledTask[] = [];
  private readonly runs: JobRuns;
  /** Per job, the latest slot a tick has seen (tick() runs slots after it). */
  private readonly seen = new Map<string, number>();
  private stopped = false;
  private readonly now: () => number;

  constructor(
    private readonly logger: Logger,
    o: SchedulerOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.runs = new JobRuns(o.store, o.notify);
  }

  add(job: Job): void {
    if (this.jobs.has(job.name)) throw new Error(`job ${job.name} is already registered`);
    if (!cron.validate(job.schedule)) throw new Error(`job ${job.name}: invalid schedule "${job.schedule}"`);
    const t = job.timing?.();
    if (t && !cron.validate(t.schedule)) throw new Error(`job ${job.name}: invalid schedule "${t.schedule}"`);
    this.jobs.set(job.name, job);
  }

  names(): string[] {
    return [...this.jobs.keys()];
  }

  timing(name: string): JobTiming {
    const job = this.job(name);
    return job.timing?.() ?? { schedule: job.schedule, timezone: 'UTC' };
  }

  /** Starts the production trigger and does the start-time runs (polling jobs) and catch-ups (slot jobs). */
  start(): void {
    this.schedule();
    const at = this.now();
    for (const job of this.jobs.values()) {
      this.seen.set(job.name, at);
      if (job.catchUp) void this.catchUp(job, at);
      else if (job.runOnStart !== false) void this.execute(job, { slot: at, reason: 'start' });
    }
  }

  /** Re-reads every job's timing (after a policy change) and re-arms the production trigger. */
  async reschedule(): Promise<void> {
    for (const t of this.tasks.splice(0)) await t.destroy();
    if (this.stopped) return;
    // A slot of the new schedule that is already past is not run (moving the digest from 20:00
    // to 08:00 at 10:00 does not post it at once); slot jobs also keep it as their baseline, so
    // a restart does not run it either.
    const at = this.now();
    for (const job of this.jobs.values()) {
      const t = this.timing(job.name);
      const latest = cronSlots(t.schedule, t.timezone).previous(at);
      if (latest === undefined) continue;
      this.seen.set(job.name, Math.max(this.seen.get(job.name) ?? Number.NEGATIVE_INFINITY, latest));
      if (!job.catchUp) continue;
      await this.runs
        .update(job.name, (prev) =>
          ranFor(prev, latest) ? undefined : { rec: { ...prev, name: job.name, lastSlot: latest } },
        )
        .catch((err: unknown) =>
          this.logger.error({ err, job: job.name }, 'could not record the new schedule of a job'),
        );
    }
    this.schedule();
  }

  /**
   * Runs every job with a slot after the last one seen and at or before `at`, once (its
   * latest such slot). node-cron does this in production; tests call it with their clock.
   */
  async tick(at: number = this.now()): Promise<void> {
    const runs: Array<Promise<void>> = [];
    for (const job of this.jobs.values()) {
      const t = this.timing(job.name);
      const slot = cronSlots(t.schedule, t.timezone).previous(at);
      const seen = this.seen.get(job.name) ?? Number.NEGATIVE_INFINITY;
      if (slot !== undefined && slot > seen) {
        this.seen.set(job.name, slot);
        runs.push(this.runSlot(job, slot, 'schedule'));
        continue;
      }
      // No new slot: a failed slot run whose pause is over runs again.
      const retry = this.record(job.name)?.retry;
      if (job.catchUp && retry && retry.at <= at && !this.running.has(job.name)) {
        this.logger.info({ job: job.name, slot: new Date(retry.slot).toISOString() }, 'retrying a failed slot');
        runs.push(this.execute(job, { slot: retry.slot, reason: 'retry' }));
      }
    }
    await Promise.all(runs);
  }

  /** Run a job now unless it is already running, in which case wait for that run. */
  runNow(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) return Promise.reject(new Error(`no job named ${name}`));
    return this.execute(job, { slot: this.now(), reason: 'manual' });
  }

  /** What /treasury status shows: each job's schedule, last run and next run. */
  status(): JobStatus[] {
    const at = this.now();
    return [...this.jobs.values()].map((job) => {
      const t = this.timing(job.name);
      const last = this.record(job.name);
      let next: number | undefined;
      try {
        next = cronSlots(t.schedule, t.timezone).next(at);
      } catch {
        next = undefined;
      }
      return {
        name: job.name,
        title: job.title ?? job.name,
        ...(job.description ? { description: job.description } : {}),
        schedule: t.schedule,
        timezone: t.timezone,
        kind: job.catchUp ? 'slot' : 'polling',
        running: this.running.has(job.name),
        ...(last ? { last } : {}),
        ...(next !== undefined ? { next } : {}),
      };
    });
  }

  /** Stop the clock and wait for runs in progress, so nothing is cut off mid-write. */
  async stop(): Promise<void> {
    this.stopped = true;
    // destroy(), not stop(): a stopped task stays in node-cron's registry.
    for (const t of this.tasks.splice(0)) await t.destroy();
    await Promise.all([...this.running.values()].map((r) => r.run));
    await Promise.all([...this.followUps.values()].map((r) => r.run));
  }

  private schedule(): void {
    for (const job of this.jobs.values()) {
      const t = this.timing(job.name);
      this.tasks.push(
        cron.schedule(t.schedule, () => void this.tick(), { name: job.name, timezone: t.timezone, noOverlap: true }),
      );
    }
  }

  private job(name: string): Job {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no job named ${name}`);
    return job;
  }

  private record(name: string): JobRunRecord | undefined {
    return this.runs.get(name);
  }

  private async catchUp(job: Job, at: number): Promise<void> {
    const t = this.timing(job.name);
    const latest = cronSlots(t.schedule, t.timezone).previous(at);
    if (latest === undefined) return;
    const rec = this.record(job.name);
    if (rec?.lastSlot === undefined) {
      // First start: nothing was missed. Remember where the slots start from.
      await this.runs
        .update(job.name, () => ({ rec: { ...rec, name: job.name, lastSlot: latest } }))
        .catch((err: unknown) => this.logger.error({ err, job: job.name }, 'could not record the first slot of a job'));
      return;
    }
    if (rec.lastSlot >= latest) {
      this.logger.debug({ job: job.name, slot: latest }, 'latest slot already ran; not running it again at start');
      return;
    }
    this.logger.info(
      { job: job.name, slot: new Date(latest).toISOString() },
      'running a slot missed while the app was down',
    );
    await this.runSlot(job, latest, 'catch-up');
  }

  private runSlot(job: Job, slot: number, reason: JobContext['reason']): Promise<void> {
    if (ranFor(this.record(job.name), slot)) return Promise.resolve();
    const current = this.running.get(job.name);
    if (current && current.ctx.slot < slot) {
      // A newer slot fell while the job runs for an older one: run it right after (once, the newest).
      const queued = this.followUps.get(job.name);
      if (queued) {
        if (queued.ctx.slot < slot) queued.ctx = { slot, reason };
        return queued.run;
      }
      const entry = { ctx: { slot, reason } as JobContext, run: Promise.resolve() };
      entry.run = current.run.then(() => {
        this.followUps.delete(job.name);
        return this.runSlot(job, entry.ctx.slot, entry.ctx.reason);
      });
      this.followUps.set(job.name, entry);
      return entry.run;
    }
    return this.execute(job, { slot, reason });
  }

  private execute(job: Job, ctx: JobContext, inRun = false): Promise<void> {
    // A run is a request of its own (request-context.ts): its log lines and outbox entries share an id.
    if (!inRun) return inRequest('job', () => this.execute(job, ctx, true));
    const name = job.name;
    const current = this.running.get(name);
    if (current) return current.run;
    if (this.stopped) return Promise.resolve();
    const startedAt = this.now();
    const run = Promise.resolve()
      .then(() => job.run(ctx))
      .then(
        () => this.succeeded(job, ctx, startedAt),
        (err: unknown) => this.failed(job, ctx, startedAt, err),
      )
      .catch((err: unknown) => this.logger.error({ err, job: name }, 'could not record the run of a job'))
      .finally(() => this.running.delete(name));
    this.running.set(name, { ctx, run });
    return run;
  }

  /** The run-success path, in one place: whatever should happen on every successful run goes here. */
  private succeeded(job: Job, ctx: JobContext, startedAt: number): Promise<void> {
    this.logger.debug({ job: job.name, ms: this.now() - startedAt }, 'job finished');
    return this.finish(job, ctx, startedAt, undefined);
  }

  private failed(job: Job, ctx: JobContext, startedAt: number, err: unknown): Promise<void> {
    this.logger.error({ err, job: job.name }, 'job failed; it will run again at its next tick');
    return this.finish(job, ctx, startedAt, err);
  }

  /** Records the run and, on a change between failing and working, queues one notice, in one commit. */
  private finish(job: Job, ctx: JobContext, startedAt: number, err: unknown): Promise<void> {
    const endedAt = this.now();
    return this.runs.update(job.name, (prev) => endedRun(prev, { job, ctx, startedAt, endedAt, err }));
  }
}
