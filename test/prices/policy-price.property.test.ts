/**
 * Over random price feeds, restarts included (the store closed and opened again, a new cache
 * seeded from it): the approvals a withdrawal needs are never fewer than the highest price the
 * cache accepted within the lookback window requires (invariant 16). Not vacuous: the same
 * property fails for a cache that judges at the current price alone, and the runs reach cases
 * where the current price is below the window's high across a tier boundary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { hourOf } from '../../src/prices/history.js';
import { createPrices } from '../../src/prices/index.js';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { valueAt } from '../../src/prices/value.js';
import { openStore, type Store } from '../../src/store/index.js';
import { Dec } from '../../src/money/decimal.js';
import { tierFor } from '../../src/withdrawals/value-rules.js';
import { quietLogger } from '../withdrawals/helpers.js';

const POLICY = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE, U0ERIN], admins: [U0ERIN] }
withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { max: 10000, approvals: 2 }
      - { approvals: 3 }
valuation: { max_age: 1d, lookback: 2d }
`);
const LOOKBACK = 2 * 86_400_000;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const AMOUNT = '1';

/** An answer moves the last price by `move` (1: the same level, which confirms a large move). */
type Step = { kind: 'answer'; move: number; afterMs: number } | { kind: 'restart' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      // Around the tiers' boundaries ($1,000 and $10,000 for 1 BTC): small moves, crashes, spikes, repeats.
      move: fc.oneof(
        fc.constant(1),
        fc.double({ min: 0.45, max: 1.6, noNaN: true }),
        fc.double({ min: 1e-6, max: 0.3, noNaN: true }),
        fc.double({ min: 2, max: 20, noNaN: true }),
      ),
      afterMs: fc.oneof(fc.integer({ min: 60_000, max: 600_000 }), fc.integer({ min: 3_600_000, max: 30 * 3_600_000 })),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

const approvalsAt = (snap: PriceSnapshot) => tierFor(POLICY, 'BTC', AMOUNT, valueAt(snap, 'BTC', AMOUNT))!.approvals;
const approvalsForPrice = (price: string) =>
  tierFor(POLICY, 'BTC', AMOUNT, {
    kind: 'known',
    usd: new Dec(AMOUNT).times(price).toFixed(2, Dec.ROUND_UP),
    price,
    at: new Date(0).toISOString(),
    source: 'model',
  })!.approvals;

/** Runs a feed; for every answer, checks `check(snapshot, high)` where high is the model's window high. */
async function runFeed(steps: Step[], judgeCurrentOnly: boolean, seen: { crossings: number }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'policy-price-'));
  let store: Store = await openStore({ dir });
  const clock = { now: T0 };
  let price = 1500;
  const make = () =>
    createPrices({
      fetch: async () => ({ ok: true, body: { bitcoin: { usd: price } } }),
      source: 'test',
      policy: fixedPolicy(POLICY),
      now: () => clock.now,
      logger: quietLogger(),
      store,
    });
  let prices = make();
  /** The model: every price the cache accepted, with its time. */
  const accepted: Array<{ price: string; at: number }> = [];
  try {
    for (const s of steps) {
      if (s.kind === 'restart') {
        await store.close();
        store = await openStore({ dir });
        prices = make();
        continue;
      }
      clock.now += s.afterMs;
      price = Math.min(1e8, Math.max(1e-6, Number((price * s.move).toPrecision(8))));
      await prices.refresh();
      const snap = prices.snapshot();
      const q = snap.quotes.BTC;
      if (q && Date.parse(q.at) === clock.now) accepted.push({ price: q.price, at: clock.now });
      const oldest = Date.parse(hourOf(clock.now - LOOKBACK));
      const inWindow = accepted.filter((a) => a.at >= oldest);
      if (!inWindow.length || !q || Date.parse(q.at) !== clock.now) continue;
      const high = inWindow.reduce((m, a) => (new Dec(a.price).gt(m) ? a.price : m), '0');
      const needed = approvalsForPrice(high);
      const judged = judgeCurrentOnly ? approvalsForPrice(q.price) : approvalsAt(snap);
      if (approvalsForPrice(q.price) < needed) seen.crossings += 1;
      expect(judged).toBeGreaterThanOrEqual(needed);
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the policy price over random feeds', () => {
  it('a send never needs fewer approvals than the highest accepted price of the window requires, across restarts', async () => {
    const seen = { crossings: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 12 }), (steps) => runFeed(steps, false, seen)),
      { numRuns: 60 },
    );
    // The runs reached the cases that matter: a current price below the high, across a tier boundary.
    expect(seen.crossings).toBeGreaterThan(0);
  });

  it('is not vacuous: judging at the current price alone is caught', async () => {
    const found = await fc.check(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 12 }), (steps) =>
        runFeed(steps, true, { crossings: 0 }),
      ),
      { numRuns: 200 },
    );
    expect(found.failed).toBe(true);
  });
});
