/**
 * Every scheduled job, in one table: its name, schedule, what it does and which part of the
 * app it runs on. The job *functions* live in their domains; this is only where they are
 * declared. Names are `<part>.<what-it-does>`. Adding a job: a row here (and a test that
 * runs it through the app). The Scheduler (scheduler.ts) runs the table: a job never
 * overlaps itself; polling jobs run once at start, slot jobs (`catchUp: true`) run at start
 * only for a slot missed while the app was down (see scheduler.ts).
 *
 * The policy's `schedule:` section overrides a row's schedule, by the row's full name or its
 * `alias`, in the section's `timezone` (default UTC); a name that is neither is an error that
 * lists the valid ones (scheduleProblems).
 */
import type { Alerts } from '../alerts/index.js';
import type { Logger } from '../log.js';
import type { Policy } from '../policy/schema.js';
import type { DigestService } from '../digest/service.js';
import type { MonthlyExports } from '../transactions/monthly.js';
import { runExpiryAndReminders, runReconciliation } from '../withdrawals/jobs.js';
import type { WithdrawalService } from '../withdrawals/index.js';
import type { BatchService } from '../batches/index.js';
import type { ApproverReminders } from '../withdrawals/reminders.js';
import type { Escalations } from '../withdrawals/escalation.js';
import type { LowBalanceWatch } from '../balances/watch.js';
import type { Retention } from './retention.js';
import type { StoreCeilingWatch } from './store-ceiling.js';
import type { Prices } from '../prices/types.js';
import type { ScreeningService } from '../screening/service.js';
import type { Scheduler } from './scheduler.js';
import type { Job, JobContext, JobTiming } from './types.js';
import type { PolicySource } from '../policy/source.js';
import { formatPath, nearestName } from '../policy/unknown-keys.js';

/** The parts jobs run on, each only as much of it as its jobs call. */
export interface JobParts {
  withdrawals: Pick<WithdrawalService, 'expireDue' | 'remindersDue' | 'reconcileUnknown' | 'retryHeld'>;
  /** `uploadOwed`: the files owed to batch cards' threads (src/slack/batch/thread-files.ts), after a restart. */
  batches: Pick<BatchService, 'expireDue' | 'resume'> & { uploadOwed?: () => Promise<void> };
  approvers: Pick<ApproverReminders, 'run'>;
  escalations: Pick<Escalations, 'run'>;
  alerts: Pick<Alerts, 'reconcile' | 'verifyPending'>;
  balances: Pick<LowBalanceWatch, 'check'>;
  store: Pick<Retention, 'prune'>;
  /** The embedded store's size against its ceiling; absent with PostgreSQL (no ceiling to watch). */
  capacity: Pick<StoreCeilingWatch, 'check'>;
  digest: Pick<DigestService, 'runDaily'>;
  exports: Pick<MonthlyExports, 'runMonthly'>;
  prices: Pick<Prices, 'refresh'>;
  screening: Pick<ScreeningService, 'refresh'>;
}

type PartName = keyof JobParts;

interface JobDeclaration<P extends PartName> {
  name: `${P}.${string}`;
  part: P;
  /** node-cron expression (six fields: seconds first). */
  schedule: string;
  description: string;
  /** `timing` is the schedule in force: a slot job names its period from `ctx.slot` read in `timing.timezone`. */
  run: (part: JobParts[P], ctx: JobContext, timing: JobTiming) => Promise<void>;
  /** A short name the policy's `schedule:` section may use instead of `name` (e.g. `digest`). */
  alias?: string;
  /** For people (/treasury status, failure warnings), e.g. "Daily digest"; default the name. */
  title?: string;
  /** Polling jobs: run once at start (default true, unless catchUp). */
  runOnStart?: boolean;
  /** Slot jobs (daily, monthly): run at start only for a slot missed while the app was down. */
  catchUp?: boolean;
}

/** A table row: the declaration, and how to bind it to the running part (typed per part, no casts). */
export interface JobRow {
  name: string;
  part: PartName;
  schedule: string;
  description: string;
  alias?: string;
  title?: string;
  runOnStart?: boolean;
  catchUp?: boolean;
  /** `timing` reads the schedule in force when asked (the policy may change at run time). */
  bind(parts: Partial<JobParts>, timing?: () => JobTiming): Job | undefined;
}

function job<P extends PartName>(d: JobDeclaration<P>): JobRow {
  return {
    name: d.name,
    part: d.part,
    schedule: d.schedule,
    description: d.description,
    ...(d.alias ? { alias: d.alias } : {}),
    ...(d.title ? { title: d.title } : {}),
    ...(d.runOnStart !== undefined ? { runOnStart: d.runOnStart } : {}),
    ...(d.catchUp !== undefined ? { catchUp: d.catchUp } : {}),
    bind(parts, timing) {
      const part = parts[d.part] as JobParts[P] | undefined;
      if (!part) return undefined;
      return {
        name: d.name,
        schedule: d.schedule,
        run: (ctx) => d.run(part, ctx, timing?.() ?? { schedule: d.schedule, timezone: 'UTC' }),
        description: d.description,
        ...(timing ? { timing } : {}),
        ...(d.title ? { title: d.title } : {}),
        ...(d.runOnStart !== undefined ? { runOnStart: d.runOnStart } : {}),
        ...(d.catchUp !== undefined ? { catchUp: d.catchUp } : {}),
      };
    },
  };
}

export const JOBS: readonly JobRow[] = [
  job({
    name: 'withdrawals.expire-and-remind',
    part: 'withdrawals',
    title: 'Request expiry and reminders',
    schedule: '*/30 * * * * *',
    description: 'Expires requests past their deadline, then reminds approvers of the ones still pending.',
    run: runExpiryAndReminders,
  }),
  job({
    name: 'batches.expire-and-resume',
    part: 'batches',
    title: 'Batch payouts: expiry and sends',
    schedule: '*/30 * * * * *',
    description:
      'Expires batch payouts past their deadline, carries on with the rows of every batch being sent (after a freeze, a limit hold), and uploads the rows and result files still owed to the cards’ threads (after a restart).',
    run: async (batches) => {
      await batches.expireDue();
      batches.resume();
      await batches.uploadOwed?.();
    },
  }),
  job({
    name: 'approvers.remind-by-dm',
    part: 'approvers',
    title: 'Reminder DMs to approvers',
    schedule: '*/30 * * * * *',
    description:
      'Once 75% of a request’s time to expiry has passed, DMs each approver it still needs, once (never twice, across restarts).',
    run: async (reminders) => {
      await reminders.run();
    },
  }),
  job({
    name: 'escalations.dm-and-post',
    part: 'escalations',
    title: 'Escalation of requests short of approvals',
    schedule: '*/30 * * * * *',
    description:
      'At `withdrawals.escalate_after`, DMs the approvers a request still needs; at twice it, tells the escalation channel (or the admins). At most one reminder per person per 4 hours, several requests in one message.',
    run: async (escalations) => {
      await escalations.run();
    },
  }),
  job({
    name: 'withdrawals.reconcile-unknown',
    part: 'withdrawals',
    title: 'Check of withdrawals with an unknown outcome',
    schedule: '*/30 * * * * *',
    description: 'Looks up withdrawals whose outcome is unknown in the transaction list (never resends).',
    run: runReconciliation,
  }),
  job({
    name: 'alerts.reconcile-deposits',
    part: 'alerts',
    title: 'Deposit reconciliation',
    schedule: '*/5 * * * *',
    description: 'Posts deposits found in the transaction list that no webhook announced.',
    run: async (alerts) => {
      await alerts.reconcile();
    },
  }),
  job({
    name: 'alerts.verify-pending',
    part: 'alerts',
    title: 'Alert verification',
    schedule: '*/2 * * * *',
    description: 'Checks every recent unconfirmed alert against the transaction list once.',
    run: (alerts) => alerts.verifyPending(),
  }),
  job({
    name: 'balances.watch-low',
    part: 'balances',
    title: 'Low-balance watch',
    schedule: '*/5 * * * *',
    description: 'Reads the balances; posts once when one falls below alerts.low_balance and once when it recovers.',
    run: async (watch) => {
      await watch.check();
    },
  }),
  job({
    name: 'prices.refresh',
    part: 'prices',
    title: 'Price refresh',
    // Once a minute at most (the cache refuses more often, src/prices/index.ts): one call for every asset.
    schedule: '* * * * *',
    description:
      'Reads the USD price of every asset in one call to the price API; refused answers keep the last good price until valuation.max_age.',
    run: (prices) => prices.refresh(),
  }),
  job({
    name: 'screening.refresh',
    part: 'screening',
    title: 'Sanctions list refresh',
    // Hourly, at start too: the list is read again once screening.refresh has passed, and every hour while reads fail.
    schedule: '23 * * * *',
    description:
      'Reads the sanctions list again from SANCTIONS_LIST_URL once `screening.refresh` has passed since the last good read (removals count as well as additions), and every hour while reads fail; the last good list is kept.',
    // Run by hand (an admin, a test): read now, whatever the age.
    run: (screening, ctx) => screening.refresh({ force: ctx.reason === 'manual' }),
  }),
  job({
    name: 'store.prune',
    part: 'store',
    alias: 'prune',
    title: 'Pruning of old records',
    schedule: '0 3 * * *',
    catchUp: true,
    description:
      'Deletes events, alerts and delivered messages older than the retention period, moves closed history out of memory (kept in the database), verifies the audit entries written since the last check, then compacts the store.',
    run: async (retention) => {
      await retention.prune();
    },
  }),
  job({
    name: 'capacity.embedded-store',
    part: 'capacity',
    title: 'Embedded store size watch',
    // Hourly, and at start: history grows by a day's work at most between two runs.
    schedule: '41 * * * *',
    description:
      'With the embedded store: once its records pass 80% of the size it holds well (docs/guides/production.md), tells the admins once to move to PostgreSQL (audited). Not run with PostgreSQL.',
    run: async (watch) => {
      await watch.check();
    },
  }),
  job({
    name: 'digest.daily',
    alias: 'digest',
    part: 'digest',
    title: 'Daily digest',
    schedule: '0 8 * * *',
    // A slot job: not at every start (a digest posted at 03:00 because the app restarted would be
    // the day's, and the 08:00 one skipped), but a slot missed while the app was down runs once.
    catchUp: true,
    description:
      'Posts the daily digest (the last 24 hours per currency, balances, approvals, largest movements, a 14-day chart) to the alerts channel, once per day.',
    // The day is the slot's in the schedule's zone, not the day of the run in UTC (a catch-up after
    // midnight UTC would otherwise take the next day's name and that day's digest be lost).
    run: (digest, ctx, t) => digest.runDaily({ slot: ctx.slot, timezone: t.timezone }),
  }),
  job({
    name: 'exports.monthly',
    part: 'exports',
    alias: 'monthly-export',
    title: 'Monthly export to the admins',
    schedule: '0 9 1 * *',
    catchUp: true,
    description:
      "Sends last month's transactions to each admin by DM in the policy's exports.monthly format, once per month.",
    // The month is the one before the slot's month in the schedule's zone (09:00 on 1 November
    // in Sydney is 31 October in UTC).
    run: (exports, ctx, t) => exports.runMonthly({ slot: ctx.slot, timezone: t.timezone }),
  }),
];

/** The `schedule:` keys that are not settings: everything else names a job. */
const SCHEDULE_SETTINGS = new Set(['timezone']);

/** The row a `schedule:` key names (full name or alias), if any. */
function rowFor(key: string): JobRow | undefined {
  return JOBS.find((r) => r.name === key || r.alias === key);
}

/** The names `schedule:` accepts, for messages: "store.prune (or prune), ...". */
export function scheduleNames(): string {
  return JOBS.map((r) => (r.alias ? `${r.name} (or ${r.alias})` : r.name)).join(', ');
}

/** What is wrong with a policy's `schedule:` section, one line each (empty: nothing). */
export function scheduleProblems(schedule: Policy['schedule']): string[] {
  const problems: string[] = [];
  const named = new Map<string, string>();
  for (const key of Object.keys(schedule)) {
    if (SCHEDULE_SETTINGS.has(key)) continue;
    const row = rowFor(key);
    if (!row) {
      const near = nearestName(key, [
        ...SCHEDULE_SETTINGS,
        ...JOBS.flatMap((r) => (r.alias ? [r.name, r.alias] : [r.name])),
      ]);
      const hint = near ? `did you mean ${near}? ` : '';
      problems.push(
        `${formatPath(['schedule', key])}: there is no job of that name; ${hint}the jobs are ${scheduleNames()}`,
      );
      continue;
    }
    const other = named.get(row.name);
    if (other) problems.push(`schedule.${key}: ${row.name} is already scheduled by schedule.${other}`);
    named.set(row.name, key);
  }
  return problems;
}

/** A row's schedule and zone under a policy's `schedule:` section (the full name wins over the alias). */
export function timingOf(row: Pick<JobRow, 'name' | 'alias' | 'schedule'>, schedule?: Policy['schedule']): JobTiming {
  const byName = schedule?.[row.name];
  const byAlias = row.alias ? schedule?.[row.alias] : undefined;
  return { schedule: byName ?? byAlias ?? row.schedule, timezone: schedule?.timezone ?? 'UTC' };
}

/**
 * Adds to the scheduler every job of the table whose part is given. With `policy`, each job's
 * schedule and zone are read from it whenever needed, and a `schedule:` section naming an
 * unknown job is refused here, at startup, with the list of valid names.
 */
export function scheduleJobs(
  scheduler: Pick<Scheduler, 'add'>,
  parts: Partial<JobParts>,
  policy?: PolicySource<Pick<Policy, 'schedule'>>,
  unknownNames: { refuse: true } | { refuse: false; logger: Pick<Logger, 'error'> } = { refuse: true },
): void {
  if (policy) {
    const problems = scheduleProblems(policy.current().schedule);
    if (problems.length) {
      const message = `the policy's schedule section is invalid:\n- ${problems.join('\n- ')}`;
      if (unknownNames.refuse) throw new Error(message);
      unknownNames.logger.error({ problems }, `${message}\n(those entries are ignored)`);
    }
  }
  for (const row of JOBS) {
    const bound = row.bind(parts, policy ? () => timingOf(row, policy.current().schedule) : undefined);
    if (bound) scheduler.add(bound);
  }
}
