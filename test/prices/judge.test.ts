/**
 * The price answer's refusal rules (src/prices/judge.ts) and values from a snapshot
 * (src/prices/value.ts), pure: shape, negative, zero, absurd, spike, late, stale, unknown.
 */
import { describe, expect, it } from 'vitest';
import { judgeAnswer, judgeMove } from '../../src/prices/judge.js';
import { createPrices } from '../../src/prices/index.js';
import type { PriceFetch } from '../../src/prices/client.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { parsePolicy } from '../../src/policy/load.js';
import { quietLogger } from '../withdrawals/helpers.js';
import { keyHeader } from '../../src/prices/client.js';
import { priceIds } from '../../src/prices/ids.js';
import { valueAt, sumValues } from '../../src/prices/value.js';
import { formatFiat } from '../../src/format/fiat.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const ids = { BTC: 'bitcoin', ETH: 'ethereum' };
const judge = (body: unknown, last = {}, now = T0) =>
  judgeAnswer(body, { ids, last, now, maxAgeMs: 300_000, source: 'test' });

describe('price answers', () => {
  it('accepts the documented shape as exact decimal text, per currency', () => {
    const j = judge({ bitcoin: { usd: 64000.5 }, ethereum: { usd: 3100, last_updated_at: T0 / 1000 - 10 } });
    expect(j.invalid).toBeUndefined();
    expect(j.accepted.BTC).toEqual({ price: '64000.5', at: new Date(T0).toISOString(), source: 'test' });
    expect(j.accepted.ETH?.price).toBe('3100');
  });

  it('refuses a whole answer that is not the documented shape', () => {
    expect(judge({ bitcoin: { usd: 'lots' } }).invalid).toMatch(/not the documented shape/);
    expect(judge([1, 2]).invalid).toMatch(/not the documented shape/);
    expect(judge('<html>').invalid).toMatch(/not the documented shape/);
  });

  it('refuses negative, zero, absurd and late prices, and names a currency it does not list', () => {
    const j = judge({ bitcoin: { usd: -1 }, ethereum: { usd: 0 } });
    expect(j.refused).toEqual({ BTC: 'negative (-1)', ETH: 'zero' });
    expect(judge({ bitcoin: { usd: 1e12 } }).refused.BTC).toMatch(/absurd/);
    expect(judge({ bitcoin: { usd: 5, last_updated_at: (T0 - 600_000) / 1000 } }).refused.BTC).toMatch(/late/);
    expect(judge({ bitcoin: { usd: 5 } }).refused.ETH).toMatch(/does not list ETH/);
  });

  it('refuses a move of more than 50% from the last accepted price on one answer, however old that price is', () => {
    const last = { BTC: { price: '100', at: new Date(T0).toISOString(), source: 'test' } };
    expect(judge({ bitcoin: { usd: 151 } }, last, T0 + 60_000).refused.BTC).toMatch(/absurd: 51% away/);
    expect(judge({ bitcoin: { usd: 49 } }, last, T0 + 60_000).refused.BTC).toMatch(/absurd/);
    expect(judge({ bitcoin: { usd: 149 } }, last, T0 + 60_000).accepted.BTC?.price).toBe('149');
    // A gap longer than the old 90 s window (and than max_age) no longer lets a spike through.
    expect(judge({ bitcoin: { usd: 300 } }, last, T0 + 91_000).refused.BTC).toMatch(/absurd: 200% away/);
    expect(judge({ bitcoin: { usd: 300 } }, last, T0 + 3_600_000).held.BTC).toEqual({
      price: '300',
      at: T0 + 3_600_000,
    });
  });

  it('a sudden drop to $0.50 after a two-minute gap is refused, not believed over $50,000', () => {
    const last = { BTC: { price: '50000', at: new Date(T0).toISOString(), source: 'test' } };
    const j = judge({ bitcoin: { usd: 0.5 }, ethereum: { usd: 3000 } }, last, T0 + 120_000);
    expect(j.accepted.BTC).toBeUndefined();
    expect(j.refused.BTC).toMatch(/absurd: 99% away from the last accepted price 50000/);
    expect(j.accepted.ETH?.price).toBe('3000'); // a first price ever has no reference: believed
  });

  it('believes a large move once a second answer a minute later confirms the level, not before', () => {
    const ref = { price: '100', at: new Date(T0).toISOString(), source: 'test' };
    const at = (now: number, price: string, pending?: { price: string; at: number }) =>
      judgeMove(price, { reference: ref, pending, now, maxAgeMs: 300_000 });
    const first = at(T0 + 60_000, '300');
    expect(first).toMatchObject({ ok: false, pending: { price: '300', at: T0 + 60_000 } });
    const sighting = first.ok ? undefined : first.pending;
    expect(at(T0 + 120_000, '306', sighting)).toEqual({ ok: true }); // same level (2%), a minute later
    expect(at(T0 + 119_000, '306', sighting)).toMatchObject({ ok: false, pending: sighting }); // too soon: kept
    expect(at(T0 + 120_000, '330', sighting)).toMatchObject({ ok: false, pending: { price: '330' } }); // another level
    expect(at(T0 + 60_000 + 300_001, '300', sighting)).toMatchObject({ ok: false }); // too late to confirm
    expect(at(T0 + 120_000, '140', sighting)).toEqual({ ok: true }); // back within 50%: believed at once
    expect(judgeMove('0.5', { reference: undefined, pending: undefined, now: T0, maxAgeMs: 1 })).toEqual({ ok: true });
  });

  it('times a price by the source when it is older than the fetch, and guards that field per currency', () => {
    const old = judge({ bitcoin: { usd: 5, last_updated_at: (T0 - 299_000) / 1000 }, ethereum: { usd: 3 } });
    expect(old.accepted.BTC?.at).toBe(new Date(T0 - 299_000).toISOString()); // 4:59 old: stale in a second
    expect(old.accepted.ETH?.at).toBe(new Date(T0).toISOString()); // no time given: the fetch's
    const ahead = judge({ bitcoin: { usd: 5, last_updated_at: (T0 + 30_000) / 1000 } });
    expect(ahead.accepted.BTC?.at).toBe(new Date(T0).toISOString()); // never later than the fetch
    for (const bad of [1e300, -1e20, 1.5e9 + 0.5, (T0 + 120_000) / 1000, 1_000_000, '1893456000', null]) {
      const j = judge({ bitcoin: { usd: 5, last_updated_at: bad }, ethereum: { usd: 3 } });
      expect(j.invalid).toBeUndefined();
      expect(j.refused.BTC).toMatch(/update time is not plausible/);
      expect(j.accepted.ETH?.price).toBe('3');
    }
  });

  it('sends the key in the header of the plan the URL names', () => {
    expect(keyHeader('https://pro-api.coingecko.com/api/v3')).toBe('x-cg-pro-api-key');
    expect(keyHeader('https://api.coingecko.com/api/v3')).toBe('x-cg-demo-api-key');
  });

  it('maps every currency of the service to a coin id, overridable by the policy', () => {
    const all = priceIds({});
    expect(Object.keys(all)).toHaveLength(17);
    expect(all.cUSD).toBe('celo-dollar');
    expect(priceIds({ XEND: 'xend-finance-v2' }).XEND).toBe('xend-finance-v2');
  });
});

describe('the price cache', () => {
  const policy = fixedPolicy(
    parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0ERIN], admins: [U0ERIN] }
withdrawals: { tiers: { default: [{ approvals: 1 }] } }
valuation: { max_age: 5m }
`),
  );
  const cache = (fetch: PriceFetch, clock: { now: number }, deadlineMs?: number) =>
    createPrices({
      fetch,
      source: 'test',
      policy,
      now: () => clock.now,
      logger: quietLogger(),
      ...(deadlineMs ? { deadlineMs } : {}),
    });

  it("limits judge at the admin's floor and the peg when the feed is lower, and at the current price when it is not", async () => {
    const clock = { now: T0 };
    const prices = createPrices({
      fetch: async () => ({
        ok: true,
        body: { bitcoin: { usd: 10_000 }, tether: { usd: 0.9984 }, ethereum: { usd: 3000 } },
      }),
      source: 'test',
      policy: fixedPolicy(
        parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0ERIN], admins: [U0ERIN] }
withdrawals: { tiers: { default: [{ approvals: 1 }] } }
valuation: { floor: { BTC: 20000 } }
`),
      ),
      now: () => clock.now,
      logger: quietLogger(),
    });
    await prices.refresh();
    const snap = prices.snapshot();
    expect(valueAt(snap, 'BTC', '2')).toMatchObject({
      usd: '40000.00',
      market: { usd: '20000.00', price: '10000' },
      judged: { basis: 'floor' },
    });
    expect(valueAt(snap, 'USDT', '1000')).toMatchObject({
      usd: '1000.00',
      market: { usd: '998.40' },
      judged: { basis: 'peg' },
    });
    const eth = valueAt(snap, 'ETH', '1');
    expect(eth).toMatchObject({ usd: '3000.00', price: '3000' });
    expect(eth).not.toHaveProperty('market');
  });

  it('one refresh every minute for real: a cron tick a little early is not skipped, a second call within the minute is', async () => {
    const clock = { now: T0 };
    let calls = 0;
    const p = cache(async () => {
      calls += 1;
      return { ok: true, body: { bitcoin: { usd: 50_000 } } };
    }, clock);
    await p.refresh();
    // The next minute's tick fired 300 ms early (timers are not exact): it still refreshes.
    clock.now = T0 + 59_700;
    await p.refresh();
    expect(calls).toBe(2);
    // A second call in the same minute (a start, a test, a double tick) does not.
    clock.now = T0 + 70_000;
    await p.refresh();
    expect(calls).toBe(2);
  });

  it('the value is unknown, never the bogus price nor the old one, until a large move is confirmed', async () => {
    const clock = { now: T0 };
    let usd = 50_000;
    const p = cache(async () => ({ ok: true, body: { bitcoin: { usd } } }), clock);
    await p.refresh();
    expect(valueAt(p.snapshot(), 'BTC', '1')).toMatchObject({ kind: 'known', usd: '50000.00' });
    usd = 0.5;
    clock.now = T0 + 120_000;
    await p.refresh();
    const v = valueAt(p.snapshot(), 'BTC', '1');
    expect(v).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/^price held back: absurd: 99% away/) });
    expect(p.state().stale).toContain('BTC');
    // Back to the old level: believed at once; then a real move, confirmed a minute later.
    usd = 50_100;
    clock.now = T0 + 180_000;
    await p.refresh();
    expect(valueAt(p.snapshot(), 'BTC', '1')).toMatchObject({ kind: 'known', usd: '50100.00' });
    usd = 20_000;
    clock.now = T0 + 240_000;
    await p.refresh();
    expect(valueAt(p.snapshot(), 'BTC', '1').kind).toBe('unknown');
    usd = 20_200;
    clock.now = T0 + 300_000;
    await p.refresh();
    // Believed as the current price, but limits judge at the window's high until the fall has left it.
    expect(valueAt(p.snapshot(), 'BTC', '1')).toMatchObject({
      kind: 'known',
      usd: '50100.00',
      market: { usd: '20200.00', price: '20200' },
      judged: { basis: 'high' },
    });
  });

  it('a fetch that never answers is refused as late at the deadline, and the next refresh runs', async () => {
    const clock = { now: T0 };
    let calls = 0;
    const p = cache(
      async () => {
        calls += 1;
        return calls === 1 ? new Promise(() => undefined) : { ok: true, body: { bitcoin: { usd: 5 } } };
      },
      clock,
      200,
    );
    await p.refresh();
    expect(p.state().lastProblem?.reason).toMatch(/late: no answer within 200 ms/);
    clock.now = T0 + 61_000;
    await p.refresh();
    expect(calls).toBe(2);
    expect(p.state().lastOkAt).toBe(T0 + 61_000);
  });
});

describe('values', () => {
  const quote = (at = T0) => ({ BTC: { price: '64000.5', at: new Date(at).toISOString(), source: 'test' } });
  it('values an amount exactly, rounded up to the cent', () => {
    const v = valueAt({ now: T0, maxAgeMs: 300_000, quotes: quote() }, 'BTC', '0.00000001');
    expect(v).toMatchObject({ kind: 'known', usd: '0.01', price: '64000.5', source: 'test' });
    expect(valueAt({ now: T0, maxAgeMs: 300_000, quotes: quote() }, 'BTC', '12')).toMatchObject({ usd: '768006.00' });
  });

  it('is unknown with no price, and unknown past max_age, saying since when (never zero)', () => {
    expect(valueAt({ now: T0, maxAgeMs: 300_000, quotes: {} }, 'BTC', '1')).toMatchObject({ kind: 'unknown' });
    const stale = valueAt({ now: T0 + 300_001, maxAgeMs: 300_000, quotes: quote() }, 'BTC', '1');
    expect(stale).toEqual({ kind: 'unknown', reason: 'no price since 2030-01-01 00:00 UTC', since: quote().BTC.at });
    expect(sumValues([valueAt({ now: T0, maxAgeMs: 1, quotes: quote() }, 'BTC', '1'), stale]).kind).toBe('unknown');
  });

  it('writes fiat values one way', () => {
    expect(formatFiat('1234567', { approx: true })).toBe('≈ $1,234,567.00');
    expect(formatFiat('0.005')).toBe('$0.01');
    expect(formatFiat('-12.5')).toBe('-$12.50');
    expect(formatFiat('not a number')).toBe('not a number');
  });
});
