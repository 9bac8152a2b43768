/** Work that goes first (src/util/give-way.ts): the rest waits while it holds, never longer than the cap. */
import { describe, expect, it } from 'vitest';
import { giveWay } from '../../src/util/give-way.js';

const settledWithin = async (p: Promise<void>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('give way', () => {
  it('nothing holds: clear at once', async () => {
    expect(await settledWithin(giveWay().clear(), 5)).toBe(true);
  });

  it('waits for every hold to end, and ending one twice counts once', async () => {
    const g = giveWay(10_000);
    const a = g.hold();
    const b = g.hold();
    const cleared = g.clear();
    a();
    a();
    expect(await settledWithin(cleared, 20)).toBe(false);
    b();
    expect(await settledWithin(cleared, 20)).toBe(true);
    expect(await settledWithin(g.clear(), 5)).toBe(true);
  });

  it('a waiter goes on after the cap whatever holds (holds that keep coming cannot starve it)', async () => {
    const g = giveWay(30);
    g.hold(); // never ended by its holder
    const started = performance.now();
    await g.clear();
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    g.hold();
    expect(await settledWithin(g.clear(), 10)).toBe(false);
    expect(await settledWithin(g.clear(), 60)).toBe(true);
  });
});
