/**
 * Jobs in the running app: /treasury status (a signed request) lists every job and the store's
 * size; a failing job warns the admins once through the outbox and says once that it recovered;
 * the policy's `schedule:` section sets schedules by name or alias, and an unknown name stops
 * the start with the list of valid names.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/jobs/scheduler.js';
import { JOBS, scheduleJobs, scheduleNames, scheduleProblems } from '../../src/jobs/table.js';
import { createLogger } from '../../src/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import { startTestApp, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { fixedPolicy } from '../../src/policy/source.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function status(app: TestApp, user: string): Promise<string> {
  const { res, responseUrl } = await app.command('/treasury', 'status', user);
  expect(res.status).toBe(200);
  const [reply] = await app.replies(responseUrl);
  return visibleText(reply!);
}

describe('jobs in the app', () => {
  it('/treasury status lists each job with schedule, zone, last run and next run, and the store size', async () => {
    const policy = parsePolicy(`${TEST_POLICY_YAML}\nschedule:\n  timezone: Europe/Berlin\n  prune: "0 4 * * *"\n`);
    t = await startTestApp({ policy });
    await t.app.deps.scheduler.runNow('store.prune');
    const text = await status(t, USERS.erin);
    expect(text).toContain('*Scheduled jobs*');
    for (const row of JOBS) expect(text).toContain(`*${row.title ?? row.name}*`);
    // The alias `prune` set the schedule, in the policy's zone; it ran (by hand) and succeeded.
    expect(text).toMatch(
      /\*Pruning of old records\* · at 04:00 \(Europe\/Berlin\)\n:large_green_circle: last run \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC, succeeded in [\d.]+ (ms|s) · next \d{4}-\d{2}-\d{2} 03:00 UTC/,
    );
    // In words, never cron (issue 40): an interval needs no zone.
    expect(text).toContain('every 30 seconds');
    expect(text).not.toContain('*/30');
    expect(text).toMatch(/[\d.]+ (B|KiB|MiB) state file \+ [\d.]+ (B|KiB|MiB) journal; .*\d+ job records/);
    // Not for non-admins.
    expect(await status(t, USERS.viewer)).not.toContain('Scheduled jobs');
  });

  it('a failing job warns the admins once, logs every failure, and tells them once when it works again', async () => {
    t = await startTestApp();
    const app = t;
    const s = app.app.deps.scheduler;
    await s.runNow('alerts.reconcile-deposits'); // the start-time run may already be going: join it first
    const dmOf = () => app.fake.channel(app.fake.dmChannel(USERS.erin));
    const failuresBefore = (app.logs().match(/job failed; it will run again/g) ?? []).length;
    app.app.sandbox!.injectFault('/api/v2/analytics/transaction-record', { kind: 'status', status: 400 }, 3);
    for (let i = 0; i < 3; i++) await s.runNow('alerts.reconcile-deposits');
    expect((app.logs().match(/job failed; it will run again/g) ?? []).length - failuresBefore).toBe(3);
    const warning = await until('the warning DM', () => dmOf().find((m) => /failed at/.test(visibleText(m))));
    expect(visibleText(warning)).toMatch(
      /^:warning: The scheduled job \*Deposit reconciliation\* failed at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: .+ It keeps running on its schedule/,
    );
    await s.runNow('alerts.reconcile-deposits');
    await s.runNow('alerts.reconcile-deposits');
    await until('the recovery DM', () => dmOf().find((m) => visibleText(m).startsWith(':white_check_mark:')));
    await app.app.deps.outbox.drain();
    const texts = dmOf().map((m) => visibleText(m));
    expect(texts.filter((x) => x.startsWith(':warning:'))).toHaveLength(1);
    expect(texts.filter((x) => x.startsWith(':white_check_mark:'))).toHaveLength(1);
    expect(texts.find((x) => x.startsWith(':white_check_mark:'))).toMatch(
      /works again \(\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\), after failing since .+ \(3 failed runs\)\./,
    );
    // Only the admin (erin) is told.
    expect(app.fake.channel(app.fake.dmChannel(USERS.carol))).toEqual([]);
  });

  it('a schedule for a job that does not exist is an error listing the valid names', async () => {
    const policy = parsePolicy(
      `${TEST_POLICY_YAML}\nschedule:\n  digset: "0 8 * * *"\n  prune: "0 4 * * *"\n  store.prune: "0 5 * * *"\n`,
    );
    const scheduler = new Scheduler(createLogger({ level: 'silent' }));
    expect(() => scheduleJobs(scheduler, {}, fixedPolicy(policy))).toThrow(
      `schedule.digset: there is no job of that name; did you mean digest? the jobs are ${scheduleNames()}`,
    );
    expect(scheduleProblems(policy.schedule)).toEqual([
      `schedule.digset: there is no job of that name; did you mean digest? the jobs are ${scheduleNames()}`,
      'schedule.store.prune: store.prune is already scheduled by schedule.prune',
    ]);
    expect(scheduleNames()).toContain('store.prune (or prune)');
    // A policy file naming it is refused by the governor like any invalid file (test/policy/governed.test.ts).
    // A policy already in force that names it (approved under an older version of the app) does not stop
    // the start: logged, the entry ignored, the other entries applied.
    t = await startTestApp({ policy });
    expect(t.logs()).toContain('schedule.digset: there is no job of that name');
    expect(t.app.deps.scheduler.timing('store.prune').schedule).toBe('0 5 * * *');
  });
});
