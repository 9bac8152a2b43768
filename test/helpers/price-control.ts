/**
 * Driving the embedded sandbox's price API over HTTP (`POST /sandbox/prices`) and the app's
 * price job at a clock the test moves: shared by the value tests.
 */
import { expect } from 'vitest';
import type { TestApp } from './treasury-app.js';

/** The sandbox's price control, over HTTP as a test tool would drive it. */
export async function setPrices(a: TestApp, body: Record<string, unknown>): Promise<unknown> {
  const res = await fetch(`${a.app.sandbox!.url}/sandbox/prices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** Moves the clock (`setClock`) and runs the price job until a refresh at that time has answered. */
export async function refreshAt(a: TestApp, setClock: (ms: number) => void, ms: number): Promise<void> {
  setClock(ms);
  // The job's own minute may be running it right now (a job never overlaps itself, and that run may
  // have read the clock before it moved): asked again until a refresh at this time has answered.
  const done = () => {
    const s = a.app.deps.prices.state();
    return s.lastOkAt === ms || s.lastProblem?.at === ms;
  };
  for (let tries = 0; !done() && tries < 100; tries++) {
    await a.app.deps.scheduler.runNow('prices.refresh');
    if (!done()) await new Promise((r) => setTimeout(r, 20));
  }
  expect(done()).toBe(true);
}

/** `refreshAt` bound to a test's clock setter: `const refreshAt = clockedRefresh((t) => { clock = t; })`. */
export const clockedRefresh =
  (setClock: (ms: number) => void) =>
  (a: TestApp, ms: number): Promise<void> =>
    refreshAt(a, setClock, ms);
