import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { Scheduler } from '../../src/jobs/scheduler.js';
import { createLogger } from '../../src/log.js';

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

describe('Scheduler', () => {
  it('never overlaps a job with itself: a second run while one is going joins it', async () => {
    const { log } = logger();
    const s = new Scheduler(log);
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let release!: () => void;
    s.add({
      name: 'slow',
      schedule: '0 0 1 1 *',
      runOnStart: false,
      run: async () => {
        runs++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise<void>((r) => (release = r));
        running--;
      },
    });
    s.start();
    const a = s.runNow('slow');
    const b = s.runNow('slow');
    await new Promise((r) => setImmediate(r));
    release();
    await Promise.all([a, b]);
    expect(runs).toBe(1);
    expect(maxRunning).toBe(1);
    await s.stop();
  });

  it('runs each job once at start (to catch up after a restart), and a failing job is logged, not thrown', async () => {
    const { log, text } = logger();
    const s = new Scheduler(log);
    const seen: string[] = [];
    s.add({ name: 'ok', schedule: '*/30 * * * * *', run: async () => void seen.push('ok') });
    s.add({ name: 'boom', schedule: '*/30 * * * * *', run: async () => Promise.reject(new Error('wallet down')) });
    s.start();
    await s.runNow('boom');
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(['ok']);
    expect(text()).toContain('job failed; it will run again at its next tick');
    expect(text()).toContain('wallet down');
    await s.stop();
    await s.runNow('ok');
    expect(seen).toEqual(['ok']);
  });

  it('refuses a bad schedule and a duplicate name', () => {
    const s = new Scheduler(logger().log);
    expect(() => s.add({ name: 'x', schedule: 'every minute', run: async () => undefined })).toThrow(
      /invalid schedule/,
    );
    s.add({ name: 'y', schedule: '* * * * *', run: async () => undefined });
    expect(() => s.add({ name: 'y', schedule: '* * * * *', run: async () => undefined })).toThrow(/already registered/);
  });
});
