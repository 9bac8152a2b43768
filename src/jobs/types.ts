/**
 * What a job is and what is known of its runs: the shapes shared by the job table (table.ts),
 * the scheduler (scheduler.ts), the run records (runs.ts) and the notices (notices.ts). Kept
 * apart from the scheduler so a caller that only describes or renders jobs does not pull in
 * node-cron and the loop.
 */

export interface JobTiming {
  /** node-cron expression (five fields, or six with seconds first). */
  schedule: string;
  /** IANA time zone the expression is read in. */
  timezone: string;
}

export interface JobContext {
  /** The slot this run is for (ms since epoch); for a run asked for by hand, the time it was asked. */
  slot: number;
  reason: 'schedule' | 'start' | 'catch-up' | 'manual' | 'retry';
}

export interface Job {
  name: string;
  /** node-cron expression; six fields allow seconds, e.g. every 30 s: "*\/30 * * * * *". */
  schedule: string;
  /** The schedule and zone in force, read each time they are needed (the policy may change); default `schedule` in UTC. */
  timing?: () => JobTiming;
  run: (ctx: JobContext) => Promise<void>;
  /** Polling jobs: run once right after start(); default true unless `catchUp`. */
  runOnStart?: boolean;
  /** Slot jobs: at start, run once only if the latest slot has not run yet (see scheduler.ts). */
  catchUp?: boolean;
  /** For people (status, warnings); default the name. */
  title?: string;
  description?: string;
}

/** What the store keeps of a job's runs (collection `job_runs`, runs.ts). */
export interface JobRunRecord {
  name: string;
  /** The slot of the latest run that ended (or the baseline recorded at first start). */
  lastSlot?: number;
  startedAt?: number;
  endedAt?: number;
  outcome?: 'ok' | 'failed';
  durationMs?: number;
  /** The error of the latest failed run, shortened and scrubbed of secrets. */
  error?: string;
  /** Set while failing: when it started failing and how many runs failed since. */
  failingSince?: number;
  failures?: number;
  /** A failed slot run to retry: its slot, when, and how many retries of it were made. */
  retry?: { slot: number; at: number; count: number };
}

/** A warning or recovery notice, written in the same commit as the run record. */
export interface JobNotice {
  job: string;
  title: string;
  kind: 'failing' | 'recovered';
  at: number;
  error?: string;
  failingSince?: number;
  failures?: number;
}

/** One line of /treasury status: a job's schedule, last run and next run. */
export interface JobStatus {
  name: string;
  title: string;
  description?: string;
  schedule: string;
  timezone: string;
  kind: 'polling' | 'slot';
  running: boolean;
  last?: JobRunRecord;
  next?: number;
}
