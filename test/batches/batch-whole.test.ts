/**
 * A batch is weighed whole where a rule has a threshold (the 100 rows of $600): a stale
 * sanctions list and `new_destination` judged on the batch's total, not row by row, at the request,
 * the approval and each row's send. Pure: judge.ts and the rule table with their facts.
 */
import { describe, expect, it } from 'vitest';
import { needNow, progressOf } from '../../src/batches/decide.js';
import { askWithin } from '../../src/batches/screening.js';
import { judgeBatch, totalsOf } from '../../src/batches/judge.js';
import { batchConfirmPage } from '../../src/passkeys/web/pages.js';
import { batchCard } from '../../src/slack/batch/card.js';
import { rowRequest } from '../../src/batches/rows.js';
import type { Batch, BatchRow } from '../../src/batches/types.js';
import { parsePolicy } from '../../src/policy/load.js';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { valueAt } from '../../src/prices/value.js';
import { makeList } from '../../src/screening/list.js';
import type { ScreeningFacts } from '../../src/screening/types.js';
import { judge } from '../../src/withdrawals/rule-table.js';
import type { StepUpNeed } from '../../src/stepup/threshold.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const DAY = 86_400_000;
const DEST = '0x2222222222222222222222222222222222222222';
const POLICY = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE, U0ERIN, U0FRANK], admins: [U0ERIN] }
withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { approvals: 2 }
  daily_limit: { value: 10000000 }
  new_destination: { above: { value: 10000 }, extra_approvals: 1 }
screening:
  max_age: 2h
  stale_block_above: 10000
`);
const PRICES: PriceSnapshot = {
  now: T0,
  maxAgeMs: 300_000,
  quotes: { USDT: { price: '1', at: new Date(T0).toISOString(), source: 'test' } },
};
/** A list read `ageMs` before T0, on which nothing of the batch is. */
const list = (ageMs: number): ScreeningFacts => {
  const at = new Date(T0 - ageMs).toISOString();
  return { list: makeList([], { source: 'test', date: at, fetchedAt: at }) };
};

/** `n` rows of `amount` USDT to one destination (each its own address when `spread`). */
function batchOf(n: number, amount: string, spread = false): Batch {
  const rows: BatchRow[] = Array.from({ length: n }, (_, i) => ({
    row: i + 1,
    address: spread ? `0x${String(i + 1).padStart(40, '3')}` : DEST,
    amount,
    currency: 'USDT',
    network: 'BSC',
    clientEmail: 'c@example.com',
    note: '',
    label: '',
    reference: `INV-${i + 1}`,
    valuation: valueAt(PRICES, 'USDT', amount),
  }));
  const tier = { index: 1, max: null, approvals: 2, mustInclude: [], basis: 'value' as const };
  return {
    id: 'b1',
    requester: 'U0ALICE',
    fileName: 'payouts.csv',
    sha256: 'f'.repeat(64),
    state: 'pending',
    rows,
    totals: totalsOf(rows, PRICES),
    tier,
    floorTier: tier,
    stepUp: false,
    approvals: [],
    newDestinations: 0,
    unlisted: 0,
    createdAt: new Date(T0).toISOString(),
    expiresAt: new Date(T0 + DAY).toISOString(),
  } as Batch;
}

const judged = (b: Batch, step: 'request' | 'approve', screening?: ScreeningFacts) =>
  judgeBatch(
    b.rows.map((r) => rowRequest(b, r, 'pending', b.createdAt)),
    b.totals,
    { step, now: T0, policy: POLICY, prices: PRICES, others: [], screening },
  );

describe('a batch weighed whole', () => {
  it('a 5-day-old list holds 100 rows of $600 ($60,000) at the request and the approval, in its own words', () => {
    const b = batchOf(100, '600', true);
    const at = judged(b, 'request', list(5 * DAY));
    expect(at.staleList).toMatch(
      /^Nothing was requested: the sanctions list is 5 days old .*≈ \$60,000\.00\. Above \$10,000/,
    );
    expect(at.holds).toEqual([]);
    expect(judged(b, 'approve', list(5 * DAY)).staleList).toMatch(/it cannot be approved until the list is refreshed/);
    // Fresh, or a small batch: no hold; a small batch on a stale list only notes it.
    expect(judged(b, 'request', list(0)).staleList).toBeUndefined();
    const small = judged(batchOf(5, '600', true), 'request', list(5 * DAY));
    expect(small.staleList).toBeUndefined();
    expect(small.screening?.stale?.ageMs).toBe(5 * DAY);
  });

  it("each row's send re-checks the stale list with its batch's total, not the row's $600 alone", () => {
    const b = batchOf(100, '600', true);
    const row = rowRequest({ ...b, approvals: [] }, b.rows[0]!, 'approved', b.createdAt);
    const facts = (screening: ScreeningFacts) => ({
      step: 'send' as const,
      now: T0,
      policy: POLICY,
      valuation: row.valuation!,
      prices: PRICES,
      requests: () => [],
      screening,
    });
    const held = judge(row, facts(list(5 * DAY)));
    expect(held.holds.map((h) => h.rule)).toContain('stale_list');
    expect(held.holds.find((h) => h.rule === 'stale_list')?.message).toMatch(/batch payout .*≈ \$60,000\.00/);
    expect(judge(row, facts(list(0))).holds).toEqual([]);
    // A row stored before batches carried their total: the row alone, as before.
    const { total: _t, ...bare } = row.batch!;
    expect(judge({ ...row, batch: bare }, facts(list(5 * DAY))).holds).toEqual([]);
  });

  it('100 rows of $600 to one never-paid destination ask the extra approval a single $60,000 would', () => {
    const one = judged(batchOf(100, '600'), 'request');
    expect(one.tier).toMatchObject({ approvals: 3, extra: 1 });
    // The same total spread over 100 destinations: each first payment is $600, below new_destination's $10,000.
    expect(judged(batchOf(100, '600', true), 'request').tier).toMatchObject({ approvals: 2 });
  });

  it('the card’s 🔐 line follows the need now: a passkey once passkey_above is below the total', () => {
    const b = { ...batchOf(10, '600', true), stepUp: true, stepUpNeed: 'code' as const };
    const words = (need?: StepUpNeed) => JSON.stringify(batchCard(b, progressOf(b, []), undefined, need).blocks);
    const policy = structuredClone(POLICY);
    policy.withdrawals.step_up_above = { value: '1000' };
    expect(needNow(b, policy, PRICES)).toBe('code');
    expect(words(needNow(b, policy, PRICES))).toContain('an authenticator code (or a passkey)');
    policy.withdrawals.passkey_above = { value: '5000' };
    expect(needNow(b, policy, PRICES)).toBe('passkey');
    expect(words(needNow(b, policy, PRICES))).toContain('needs a passkey confirmed for this file');
  });

  it('the passkey page’s Value line lists each currency’s total of a mixed batch with its value', () => {
    const b = batchOf(2, '600', true);
    const prices: PriceSnapshot = {
      ...PRICES,
      quotes: { ...PRICES.quotes, ETH: { price: '3000', at: new Date(T0).toISOString(), source: 'test' } },
    };
    const eth = {
      ...b.rows[1]!,
      currency: 'ETH',
      network: 'ETH',
      amount: '0.5',
      valuation: valueAt(prices, 'ETH', '0.5'),
    };
    const mixed: Batch = { ...b, rows: [b.rows[0]!, eth], totals: totalsOf([b.rows[0]!, eth], prices) };
    const html = batchConfirmPage({
      token: 't'.repeat(43),
      batch: mixed,
      requesterName: 'Alice',
      approverName: 'Carol',
      expiresAt: T0 + DAY,
    });
    const value = /<dt>Value<\/dt><dd>([^<]*)<\/dd>/.exec(html)?.[1];
    expect(value).toBe('≈ $2,100.00 in all (600.00 USDT: ≈ $600.00; 0.5 ETH: ≈ $1,500.00)');
  });

  it('at an approval the provider is waited for at most the budget: an answer not back counts as not reached', async () => {
    const asked: string[] = [];
    const never = {
      facts: () => list(0),
      ask: (a: string) => {
        asked.push(a);
        return new Promise<unknown>(() => undefined);
      },
    };
    const started = Date.now();
    await askWithin(never, batchOf(20, '600', true).rows, 50);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(asked).toHaveLength(8);
  });
});
