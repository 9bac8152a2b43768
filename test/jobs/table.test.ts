/** The job table: one naming scheme, valid schedules, and the app schedules exactly the table. */
import cron from 'node-cron';
import { afterEach, describe, expect, it } from 'vitest';
import { JOBS } from '../../src/jobs/table.js';
import { startTestApp, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

describe('the job table', () => {
  it('names every job <part>.<what-it-does>, once, with a valid schedule and a description', () => {
    const names = JOBS.map((j) => j.name);
    expect(new Set(names).size).toBe(names.length);
    for (const j of JOBS) {
      expect(j.name).toMatch(/^[a-z]+\.[a-z]+(-[a-z]+)*$/);
      expect(j.name.startsWith(`${j.part}.`)).toBe(true);
      expect(cron.validate(j.schedule)).toBe(true);
      expect(j.description.length).toBeGreaterThan(10);
    }
  });

  it('binds a row only to a part that is given', () => {
    const bound = JOBS.map((j) => j.bind({}));
    expect(bound.every((b) => b === undefined)).toBe(true);
  });

  it('the running app schedules exactly the table, and each job runs without failing', async () => {
    t = await startTestApp();
    const scheduler = t.app.deps.scheduler;
    expect(scheduler.names()).toEqual(JOBS.map((j) => j.name));
    for (const name of scheduler.names()) await scheduler.runNow(name);
    const logs = t.logs();
    expect(logs).not.toContain('job failed');
    for (const name of scheduler.names()) expect(logs).toContain(`"job":"${name}"`);
  });
});
