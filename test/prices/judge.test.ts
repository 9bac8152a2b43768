/**
 * The price answer's refusal rules (src/prices/judge.ts) and values from a snapshot
 * (src/prices/value.ts), pure: shape, negative, zero, absurd, spike, late, stale, unknown.
 */
import { describe, expect, it } from 'vitest';
import { judgeAnswer, SPIKE_WINDOW_MS } from '../../src/prices/judge.js';
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

  it('refuses a move of more than 50% within a minute of the last price, and believes it once it lasts', () => {
    const last = { BTC: { price: '100', at: new Date(T0).toISOString(), source: 'test' } };
    expect(judge({ bitcoin: { usd: 151 } }, last, T0 + 60_000).refused.BTC).toMatch(/absurd: 51% away/);
    expect(judge({ bitcoin: { usd: 49 } }, last, T0 + 60_000).refused.BTC).toMatch(/absurd/);
    expect(judge({ bitcoin: { usd: 149 } }, last, T0 + 60_000).accepted.BTC?.price).toBe('149');
    expect(judge({ bitcoin: { usd: 300 } }, last, T0 + SPIKE_WINDOW_MS + 1).accepted.BTC?.price).toBe('300');
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
