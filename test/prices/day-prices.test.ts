/**
 * The past-day price cache (src/prices/day-prices.ts) over a real store and a recording source:
 * a kept answer is served only to the same source, coin id and day; a price above the live
 * feed's bound is refused like one at or below zero; "no price for that day" is believed for a
 * day only, then asked again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createDayPrices, createHistoryFetch, type HistoryFetch } from '../../src/prices/day-prices.js';
import type { Policy } from '../../src/policy/schema.js';
import { openStore, type Store } from '../../src/store/index.js';
import { changingPolicy } from '../helpers/policy-source.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

let dir: string;
let store: Store;
let now = Date.parse('2026-11-20T10:00:00Z');
let ids: Record<string, string> = {};
const asked: string[] = [];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'day-prices-'));
  store = await openStore({ dir });
  asked.length = 0;
  ids = {};
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function days(sourceKey: string, answer: (id: string, day: string) => string | undefined, pauseMs = 0) {
  const fetch: HistoryFetch = async (id, day) => {
    asked.push(`${sourceKey} ${id} ${day}`);
    return { ok: true, usd: answer(id, day) };
  };
  return createDayPrices({
    fetch,
    source: sourceKey,
    sourceKey,
    policy: changingPolicy(() => ({ valuation: { ids } }) as unknown as Pick<Policy, 'valuation'>),
    store,
    now: () => now,
    logger: createLogger({ level: 'silent' } as never),
    pauseMs,
  });
}
const USDT_DAY = [{ currency: 'USDT', day: '2026-10-19' }];

describe('the past-day price cache', () => {
  it('a cache filled from one source is not used for another', async () => {
    await days('https://a.example/api/v3', () => '0.998').lookup(USDT_DAY);
    const other = await days('https://b.example/api/v3', () => '1.001').lookup(USDT_DAY);
    expect(other.get('USDT 2026-10-19')).toMatchObject({ kind: 'known', usd: '1.001' });
    expect(asked).toEqual(['https://a.example/api/v3 tether 2026-10-19', 'https://b.example/api/v3 tether 2026-10-19']);
    // The first source again: its own kept answer, nothing asked.
    const again = await days('https://a.example/api/v3', () => '5').lookup(USDT_DAY);
    expect(again.get('USDT 2026-10-19')).toMatchObject({ kind: 'known', usd: '0.998' });
    expect(asked).toHaveLength(2);
  });

  it('a changed coin id is not served the old price', async () => {
    const src = (id: string) => (id === 'tether' ? '0.998' : '42');
    await days('S', src).lookup(USDT_DAY);
    ids = { USDT: 'other-coin' };
    const changed = await days('S', src).lookup(USDT_DAY);
    expect(changed.get('USDT 2026-10-19')).toMatchObject({ kind: 'known', usd: '42' });
    expect(asked).toEqual(['S tether 2026-10-19', 'S other-coin 2026-10-19']);
  });

  it('"no price for that day" is kept for a day, then asked again', async () => {
    let usd: string | undefined;
    const d = days('S', () => usd);
    expect((await d.lookup(USDT_DAY)).get('USDT 2026-10-19')).toMatchObject({ kind: 'unknown' });
    await d.lookup(USDT_DAY);
    expect(asked).toHaveLength(1);
    now += 24 * 60 * 60 * 1000 + 1;
    usd = '0.999';
    expect((await d.lookup(USDT_DAY)).get('USDT 2026-10-19')).toMatchObject({ kind: 'known', usd: '0.999' });
    expect(asked).toHaveLength(2);
  });
});

describe('look-ups per export', () => {
  it('at most 20, paced apart; the rest say why they have no date price', async () => {
    const times: number[] = [];
    const d = days(
      'S',
      () => {
        times.push(Date.now());
        return '1';
      },
      40,
    );
    const needs = Array.from({ length: 25 }, (_, i) => ({
      currency: 'USDT',
      day: new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
    }));
    const out = await d.lookup(needs);
    expect(asked).toHaveLength(20);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(38);
    expect(out.get('USDT 2026-10-25')).toEqual({
      kind: 'unknown',
      reason: 'not looked up: at most 20 dates per export',
    });
    // Two exports at once share the pace: one at a time, apart.
    asked.length = 0;
    times.length = 0;
    const later = needs.map((n) => ({ ...n, day: n.day.replace('2026-10', '2026-09') })).slice(0, 3);
    await Promise.all([d.lookup(later), d.lookup(later.map((n) => ({ ...n, currency: 'ETH' })))]);
    expect(times).toHaveLength(6);
    const sorted = [...times].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(38);
  });
});

describe('the history call', () => {
  let server: Server;
  let body: unknown;
  beforeEach(async () => {
    server = createServer((_req, res) => res.end(JSON.stringify(body)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  it('refuses a price above the live feed’s bound (1e9) as it refuses zero', async () => {
    const fetch = createHistoryFetch({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      timeoutMs: 2000,
    });
    for (const usd of [2e9, 0, -1]) {
      body = { market_data: { current_price: { usd } } };
      expect(await fetch('tether', '2026-10-19')).toEqual({
        ok: false,
        reason: 'the price source answered in an unexpected shape',
      });
    }
    body = { market_data: { current_price: { usd: 1e9 } } };
    expect(await fetch('tether', '2026-10-19')).toEqual({ ok: true, usd: '1000000000' });
  });
});
