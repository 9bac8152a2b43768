/**
 * The sandbox's price API: CoinGecko's `GET /simple/price?ids=<ids>&vs_currencies=usd` shape
 * (`{ "<id>": { "usd": <number>, "last_updated_at": <unix seconds> } }`), with plausible prices
 * that drift a little (at most 0.2% per answer, within 5% of the price set), so `npm start`
 * shows values with no account. Not a market: a stand-in for the app's price cache to read.
 *
 * Test control `POST /sandbox/prices` (JSON, same guard as every /sandbox/* endpoint):
 * `{ "prices"?: { "<currency or coin id>": <usd> }, "feed"?: "up" | "down" | "slow" | "spiky" | "invalid",
 *    "delayMs"?: <ms for slow>, "drift"?: boolean }`; answers the state. `down`: 503; `slow`: answers
 * after `delayMs` (default 15 s); `spiky`: every price tripled; `invalid`: not the documented shape.
 * `drift: false` answers exactly the prices set (tests that cross a tier at a known price).
 *
 * `GET /coins/{id}/history?date=dd-mm-yyyy` (CoinGecko's shape) answers a past day's price
 * (sandboxDayPrice: the price set, moved a little by the day, the same every time), none before
 * HISTORY_FROM, 503 while the feed is `down`; `historyAnswers` in the state counts its answers.
 */
import { z } from 'zod';
import { CURRENCIES, lookup } from '../wallet/enums.js';
import { DEFAULT_PRICE_IDS } from '../prices/ids.js';
import { describeIssues, header, jsonObject, parseMediaType } from './body.js';
import { controlError, type Reply } from './envelopes.js';
import type { SandboxRequest } from './http.js';
import { createRng, type Rng } from './prng.js';
import { stringifyJson } from '../wallet/json.js';

export const PRICES_CONTROL_PATH = '/sandbox/prices';
export const SIMPLE_PRICE_PATH = '/simple/price';
/** CoinGecko's `GET /coins/{id}/history?date=dd-mm-yyyy`: prefix-routed, the id and `history` follow. */
export const COINS_PATH = '/coins';
/** The sandbox's history starts here: an earlier date has no `market_data`, as an unlisted day on CoinGecko. */
export const HISTORY_FROM = '2020-01-01';

/** Plausible USD prices by CoinGecko id (late 2026 is not known: these only need to look like money). */
const START: Readonly<Record<string, number>> = {
  bitcoin: 64_000,
  litecoin: 85,
  binancecoin: 580,
  tether: 1,
  dai: 1,
  'binance-usd': 1,
  'xend-finance': 0.05,
  ethereum: 3_100,
  'matic-network': 0.55,
  wicrypt: 0.02,
  'usd-coin': 1,
  'celo-dollar': 1,
  'celo-euro': 1.08,
  celo: 0.7,
  tron: 0.12,
  'just-stablecoin': 1,
  'true-usd': 1,
};

export type FeedMode = 'up' | 'down' | 'slow' | 'spiky' | 'invalid';

export interface SandboxPrices {
  set: Map<string, number>;
  current: Map<string, number>;
  feed: FeedMode;
  delayMs: number;
  drift: boolean;
  answers: number;
  /** Answers of /coins/{id}/history (a test sees what the app's cache spared). */
  historyAnswers: number;
  /**
   * The drift's draws. Per sandbox, not per module: each sandbox drifts the same way from its
   * start, whatever other sandboxes in the process answered before it.
   */
  rng: Rng;
}

export function createSandboxPrices(): SandboxPrices {
  return {
    set: new Map(Object.entries(START)),
    current: new Map(Object.entries(START)),
    feed: 'up',
    delayMs: 15_000,
    drift: true,
    answers: 0,
    historyAnswers: 0,
    rng: createRng(0x5eed),
  };
}

/** One answer of /simple/price. */
export async function simplePrice(p: SandboxPrices, req: SandboxRequest, now: () => number): Promise<Reply> {
  p.answers += 1;
  if (p.feed === 'down') return { status: 503, body: { status: { error_code: 503, error_message: 'unavailable' } } };
  if (p.feed === 'slow') await new Promise((r) => setTimeout(r, p.delayMs));
  const ids = (req.query.get('ids') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const vs = (req.query.get('vs_currencies') ?? '').toLowerCase().split(',');
  if (!ids.length || !vs.includes('usd'))
    return { status: 400, body: { error: 'ids and vs_currencies=usd are required' } };
  if (p.feed === 'invalid') return { status: 200, body: Object.fromEntries(ids.map((id) => [id, { usd: 'lots' }])) };
  const body: Record<string, { usd: number; last_updated_at: number }> = {};
  const at = Math.floor(now() / 1000);
  for (const id of ids.slice(0, 100)) {
    const base = p.set.get(id);
    if (base === undefined) continue;
    let price = p.current.get(id) ?? base;
    if (p.drift) {
      price *= 1 + (p.rng.next() - 0.5) * 0.004;
      price = Math.min(base * 1.05, Math.max(base * 0.95, price));
    } else price = base;
    p.current.set(id, price);
    const shown = p.feed === 'spiky' ? price * 3 : price;
    body[id] = { usd: Number(shown.toPrecision(8)), last_updated_at: at };
  }
  return { status: 200, body };
}

/**
 * A coin's price at 00:00 UTC of a past day: the price set, moved by up to ±5% by the day and
 * the coin alone (the same answer every time, as a past day's price is), to 8 significant digits.
 */
export function sandboxDayPrice(base: number, id: string, day: string): number {
  let h = 2166136261;
  for (const c of `${id} ${day}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return Number((base * (1 + ((h % 10_001) / 10_000 - 0.5) * 0.1)).toPrecision(8));
}

/** One answer of /coins/{id}/history: `{ id, market_data: { current_price: { usd } } }`, no market_data for a day it has none. */
export function coinHistory(p: SandboxPrices, req: SandboxRequest, now: () => number): Reply {
  p.historyAnswers += 1;
  if (p.feed === 'down') return { status: 503, body: { status: { error_code: 503, error_message: 'unavailable' } } };
  const m = /^\/coins\/([a-z0-9-]{1,100})\/history$/.exec(req.path);
  const date = /^(\d\d)-(\d\d)-(\d{4})$/.exec(req.query.get('date') ?? '');
  if (!m || !date) return { status: 400, body: { error: 'GET /coins/{id}/history?date=dd-mm-yyyy' } };
  const id = m[1]!;
  const day = `${date[3]}-${date[2]}-${date[1]}`;
  const base = p.set.get(id);
  if (base === undefined) return { status: 404, body: { error: 'coin not found' } };
  const today = new Date(now()).toISOString().slice(0, 10);
  if (Number.isNaN(Date.parse(`${day}T00:00:00Z`)) || day < HISTORY_FROM || day > today)
    return { status: 200, body: { id } };
  return { status: 200, body: { id, market_data: { current_price: { usd: sandboxDayPrice(base, id, day) } } } };
}

const controlBody = z.object({
  prices: z.record(z.string(), z.number().positive().finite()).optional(),
  feed: z.enum(['up', 'down', 'slow', 'spiky', 'invalid']).optional(),
  delayMs: z.number().int().min(0).max(120_000).optional(),
  drift: z.boolean().optional(),
});

export function pricesControlRoute(p: SandboxPrices, req: SandboxRequest): Reply {
  if (parseMediaType(header(req, 'content-type') ?? '').type !== 'application/json')
    return controlError(415, 'Test-only endpoints accept only JSON posts (content-type: application/json)');
  const parsed = jsonObject(req);
  if (!parsed.ok) return controlError(400, parsed.message);
  const input = controlBody.safeParse(JSON.parse(stringifyJson(parsed.value)));
  if (!input.success) return controlError(400, describeIssues(input.error));
  for (const [key, usd] of Object.entries(input.data.prices ?? {})) {
    const currency = lookup(CURRENCIES, key);
    const id = currency ? DEFAULT_PRICE_IDS[currency.name] : key;
    if (!id) return controlError(400, `no coin id for ${key}`);
    p.set.set(id, usd);
    p.current.set(id, usd);
  }
  if (input.data.feed) p.feed = input.data.feed;
  if (input.data.delayMs !== undefined) p.delayMs = input.data.delayMs;
  if (input.data.drift !== undefined) p.drift = input.data.drift;
  return {
    status: 200,
    body: {
      feed: p.feed,
      delayMs: p.delayMs,
      drift: p.drift,
      answers: p.answers,
      historyAnswers: p.historyAnswers,
      prices: Object.fromEntries(p.set),
    },
  };
}
