/**
 * Every scheduled job, in one table: its name, schedule, what it does and which part of the
 * app it runs on. The job *functions* live in their domains; this is only where they are
 * declared. Names are `<part>.<what-it-does>`. Adding a job: a row here (and a test that
 * runs it through the app). The Scheduler (scheduler.ts) runs the table: a job never
 * overlaps itself and runs once at start, to catch up on what a downtime missed.
 */
import type { Alerts } from '../alerts/index.js';
import type { DigestService } from '../digest/service.js';
import type { MonthlyExports } from '../transactions/monthly.js';
import { runExpiryAndReminders, runReconciliation } from '../withdrawals/jobs.js';
import type { WithdrawalService } from '../withdrawals/index.js';
import type { Job, Scheduler } from './scheduler.js';

/** The parts jobs run on, each only as much of it as its jobs call. */
export interface JobParts {
  withdrawals: Pick<WithdrawalService, 'expireDue' | 'remindersDue' | 'reconcileUnknown'>;
  alerts: Pick<Alerts, 'reconcile' | 'verifyPending'>;
  digest: Pick<DigestService, 'runDaily'>;
  exports: Pick<MonthlyExports, 'runMonthly'>;
}

type PartName = keyof JobParts;

interface JobDeclaration<P extends PartName> {
  name: `${P}.${string}`;
  part: P;
  /** node-cron expression (six fields: seconds first). */
  schedule: string;
  /** A shorter name the policy's `schedule:` section may use (e.g. `digest`). */
  alias?: string;
  /** Run once at start to catch up (default true); false for jobs whose run is a post people read at a set time. */
  runOnStart?: boolean;
  description: string;
  run: (part: JobParts[P]) => Promise<void>;
}

/** A table row: the declaration, and how to bind it to the running part (typed per part, no casts). */
export interface JobRow {
  name: string;
  part: PartName;
  schedule: string;
  alias?: string;
  description: string;
  bind(parts: Partial<JobParts>): Job | undefined;
}

function job<P extends PartName>(d: JobDeclaration<P>): JobRow {
  return {
    name: d.name,
    part: d.part,
    schedule: d.schedule,
    ...(d.alias ? { alias: d.alias } : {}),
    description: d.description,
    bind(parts) {
      const part = parts[d.part] as JobParts[P] | undefined;
      return part
        ? {
            name: d.name,
            schedule: d.schedule,
            run: () => d.run(part),
            ...(d.runOnStart === false ? { runOnStart: false } : {}),
          }
        : undefined;
    },
  };
}

export const JOBS: readonly JobRow[] = [
  job({
    name: 'withdrawals.expire-and-remind',
    part: 'withdrawals',
    schedule: '*/30 * * * * *',
    description: 'Expires requests past their deadline, then reminds approvers of the ones still pending.',
    run: runExpiryAndReminders,
  }),
  job({
    name: 'withdrawals.reconcile-unknown',
    part: 'withdrawals',
    schedule: '*/30 * * * * *',
    description: 'Looks up withdrawals whose outcome is unknown in the transaction list (never resends).',
    run: runReconciliation,
  }),
  job({
    name: 'alerts.reconcile-deposits',
    part: 'alerts',
    schedule: '*/5 * * * *',
    description: 'Posts deposits found in the transaction list that no webhook announced.',
    run: async (alerts) => {
      await alerts.reconcile();
    },
  }),
  job({
    name: 'alerts.verify-pending',
    part: 'alerts',
    schedule: '*/2 * * * *',
    description: 'Checks every recent unconfirmed alert against the transaction list once.',
    run: (alerts) => alerts.verifyPending(),
  }),
  job({
    name: 'digest.daily',
    alias: 'digest',
    part: 'digest',
    schedule: '0 8 * * *',
    // Not at every start: a digest posted at 03:00 because the app restarted would be the day's
    // (one per day) and the 08:00 one would be skipped.
    runOnStart: false,
    description:
      'Posts the daily digest (the last 24 hours per currency, balances, approvals, largest movements, a 14-day chart) to the alerts channel, once per day.',
    run: (digest) => digest.runDaily(),
  }),
  job({
    name: 'exports.monthly',
    part: 'exports',
    schedule: '0 9 1 * *',
    runOnStart: false,
    description:
      "Sends last month's transactions to each admin by DM in the policy's exports.monthly format, once per month.",
    run: (exports) => exports.runMonthly(),
  }),
];

/** Adds to the scheduler every job of the table whose part is given. */
export function scheduleJobs(scheduler: Pick<Scheduler, 'add'>, parts: Partial<JobParts>): void {
  for (const row of JOBS) {
    const bound = row.bind(parts);
    if (bound) scheduler.add(bound);
  }
}
