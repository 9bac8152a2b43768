/**
 * Runs the job table (table.ts) with node-cron. A job never overlaps itself:
 * a tick that finds the previous run still going is skipped, whether the run came from
 * the clock or from runNow(). Jobs keep their state in the store, not in memory, so a
 * restart simply runs them again (once at start, to catch up on what a downtime missed).
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../log.js';

export interface Job {
  name: string;
  /** node-cron expression; six fields allow seconds, e.g. every 30 s: "*\/30 * * * * *". */
  schedule: string;
  run: () => Promise<void>;
  /** Run once right after start(); default true. */
  runOnStart?: boolean;
}

export class Scheduler {
  private readonly jobs = new Map<string, Job>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly tasks: ScheduledTask[] = [];
  private stopped = false;

  constructor(private readonly logger: Logger) {}

  add(job: Job): void {
    if (this.jobs.has(job.name)) throw new Error(`job ${job.name} is already registered`);
    if (!cron.validate(job.schedule)) throw new Error(`job ${job.name}: invalid schedule "${job.schedule}"`);
    this.jobs.set(job.name, job);
  }

  names(): string[] {
    return [...this.jobs.keys()];
  }

  start(): void {
    for (const job of this.jobs.values()) {
      this.tasks.push(
        cron.schedule(job.schedule, () => void this.runNow(job.name), { name: job.name, noOverlap: true }),
      );
      if (job.runOnStart !== false) void this.runNow(job.name);
    }
  }

  /** Run a job now unless it is already running, in which case wait for that run. */
  runNow(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) return Promise.reject(new Error(`no job named ${name}`));
    const current = this.running.get(name);
    if (current) return current;
    if (this.stopped) return Promise.resolve();
    const started = Date.now();
    const run = job
      .run()
      .then(() => this.logger.debug({ job: name, ms: Date.now() - started }, 'job finished'))
      .catch((err: unknown) => this.logger.error({ err, job: name }, 'job failed; it will run again at its next tick'))
      .finally(() => this.running.delete(name));
    this.running.set(name, run);
    return run;
  }

  /** Stop the clock and wait for runs in progress, so nothing is cut off mid-write. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.tasks) await t.stop();
    await Promise.all(this.running.values());
  }
}
