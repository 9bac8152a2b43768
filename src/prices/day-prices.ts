/**
 * The price of a past UTC day, for the exports (issue 40): an accountant books a movement at the
 * price of its date, not at today's. CoinGecko's `GET /coins/{id}/history?date=dd-mm-yyyy`
 * answers a coin's market data at 00:00 UTC of that date (`market_data.current_price.usd`), or no
 * `market_data` when it has none for that day (before the coin was listed; beyond the plan's
 * history). The embedded sandbox serves the same shape.
 *
 * A past day's price does not change, so a price is kept in the store for good, keyed by the
 * source (its API base), the coin id and the day: another source, or a coin id changed in the
 * policy, is asked afresh, never served the old answer. "None for that day" is kept for a day
 * only (a plan upgrade or a source's late backfill can give one). A failure (the source down,
 * late, refusing) is not kept: the next export asks again. One export asks about at most
 * MAX_LOOKUPS (20) days not yet kept, one at a time and PAUSE_MS (2.1 s) apart across all
 * exports: the free plan allows some 30 calls a minute, shared with the live refresh (one call a
 * minute), so the look-ups stay under 29 a minute and an export waits 42 s at most for them.
 * The rest say why they have no date price and are valued at today's price, as before.
 *
 * Only a price the source states is used: positive, finite, at most the live feed's bound
 * (bounds.ts MAX_PRICE_USD). Nothing here decides money:
 * these values are for the books, never for a limit.
 */
import axios from 'axios';
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { PolicySource } from '../policy/source.js';
import type { Policy } from '../policy/schema.js';
import { collection } from '../store/collection.js';
import type { Store } from '../store/types.js';
import { keyHeader } from './client.js';
import { priceIds } from './ids.js';
import { MAX_PRICE_USD } from './bounds.js';

/** Days not yet kept that one export looks up, at most (20 × PAUSE_MS: 42 s at worst). */
export const MAX_LOOKUPS = 20;
/** The least time between two look-ups (any export): 60 s / 2.1 s < 29 a minute, plus the live refresh's one. */
export const PAUSE_MS = 2_100;

/** A kept answer: the price at 00:00 UTC of `day`, or that the source has none for it. */
export interface DayPrice {
  currency: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Exact decimal text in USD per unit; absent: the source has no price for that day. */
  usd?: string;
  source: string;
  /** Where it was asked (the price API's base URL) and the coin id asked: checked on every read. */
  sourceKey?: string;
  id?: string;
  /** When it was asked (ms): a "none for that day" is asked again after NONE_KEPT_MS. */
  askedAt?: number;
}

/** How long "the source has no price for that day" is believed before asking again. */
export const NONE_KEPT_MS = 24 * 60 * 60 * 1000;

/** The store key of a kept answer: the source, the coin id and the day (not the currency code). */
export const keptKey = (sourceKey: string, id: string, day: string) => `${sourceKey} ${id} ${day}`;

export const DAY_PRICES = collection<DayPrice>('price_days');

/** What a look-up gives: the price, or why there is none (in words for the export's cell). */
export type DayLookup =
  | { kind: 'known'; usd: string; at: string; source: string }
  | { kind: 'unknown'; reason: string };

export interface DayPrices {
  /** Each (currency, day) asked, keyed `currency day`; a day of today or later is left out (valued at today's price, no note). */
  lookup(needs: ReadonlyArray<{ currency: string; day: string }>): Promise<Map<string, DayLookup>>;
}

export const dayKey = (currency: string, day: string) => `${currency} ${day}`;

/** The documented answer: only the USD price is read (everything else is ignored). */
const historyAnswer = z.object({
  market_data: z
    .object({ current_price: z.object({ usd: z.number().positive().max(MAX_PRICE_USD).finite() }).passthrough() })
    .passthrough()
    .optional(),
});

export type HistoryFetch = (
  id: string,
  day: string,
) => Promise<{ ok: true; usd: string | undefined } | { ok: false; reason: string }>;

/** `GET {baseUrl}/coins/{id}/history?date=dd-mm-yyyy&localization=false`, with the same key header as /simple/price. */
export function createHistoryFetch(o: {
  baseUrl: string;
  apiKey?: string | undefined;
  timeoutMs: number;
}): HistoryFetch {
  const http = axios.create({
    baseURL: o.baseUrl.replace(/\/+$/, ''),
    timeout: o.timeoutMs,
    headers: { accept: 'application/json', ...(o.apiKey ? { [keyHeader(o.baseUrl)]: o.apiKey } : {}) },
    validateStatus: () => true,
    maxContentLength: 2 * 1024 * 1024,
    maxRedirects: 0,
  });
  return async (id, day) => {
    const [y, m, d] = day.split('-');
    try {
      const res = await http.get(`/coins/${encodeURIComponent(id)}/history`, {
        signal: AbortSignal.timeout(o.timeoutMs),
        params: { date: `${d}-${m}-${y}`, localization: 'false' },
      });
      if (res.status !== 200) return { ok: false, reason: `the price source answered HTTP ${res.status}` };
      const body = historyAnswer.safeParse(res.data);
      if (!body.success) return { ok: false, reason: 'the price source answered in an unexpected shape' };
      const usd = body.data.market_data?.current_price.usd;
      return { ok: true, usd: usd === undefined ? undefined : String(usd) };
    } catch (err) {
      const code = (err as { code?: string }).code;
      return { ok: false, reason: `the price source could not be reached (${code ?? 'error'})` };
    }
  };
}

export function createDayPrices(o: {
  fetch: HistoryFetch;
  /** The source's name for people ("CoinGecko"). */
  source: string;
  /** What identifies the source in the cache: the price API's base URL. */
  sourceKey: string;
  policy: PolicySource<Pick<Policy, 'valuation'>>;
  store: Pick<Store, 'get' | 'commit'>;
  now: () => number;
  logger: Logger;
  maxLookups?: number;
  /** Default PAUSE_MS (tests shorten it). */
  pauseMs?: number;
}): DayPrices {
  const max = o.maxLookups ?? MAX_LOOKUPS;
  const pause = o.pauseMs ?? PAUSE_MS;
  // One look-up at a time across concurrent exports, each at least `pause` after the last one
  // ended (wall time: the quota is the source's, not the app's clock).
  let gate: Promise<unknown> = Promise.resolve();
  let lastEnded = 0;
  const paced = <T>(ask: () => Promise<T>): Promise<T> => {
    const run = gate.then(async () => {
      const wait = lastEnded + pause - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        return await ask();
      } finally {
        lastEnded = Date.now();
      }
    });
    gate = run.catch(() => undefined);
    return run;
  };
  const kept = (k: DayPrice): DayLookup =>
    k.usd === undefined
      ? { kind: 'unknown', reason: `${k.source} has no price of ${k.currency} for ${k.day}` }
      : { kind: 'known', usd: k.usd, at: `${k.day}T00:00:00.000Z`, source: k.source };
  // The key says where and what was asked; the record must say the same (a record written by an
  // earlier version, or under another key, is asked again), and a "none" is believed for a day.
  const usable = (k: DayPrice, id: string, day: string) =>
    k.sourceKey === o.sourceKey &&
    k.id === id &&
    k.day === day &&
    (k.usd !== undefined
      ? Number(k.usd) > 0 && Number(k.usd) <= MAX_PRICE_USD
      : k.askedAt !== undefined && o.now() - k.askedAt < NONE_KEPT_MS);
  return {
    async lookup(needs) {
      const today = new Date(o.now()).toISOString().slice(0, 10);
      const ids = priceIds(o.policy.current().valuation.ids);
      const out = new Map<string, DayLookup>();
      let asked = 0;
      let failed: string | undefined;
      for (const { currency, day } of needs) {
        const key = dayKey(currency, day);
        if (out.has(key)) continue;
        const id = ids[currency];
        if (!id) {
          out.set(key, { kind: 'unknown', reason: `no price source lists ${currency}` });
          continue;
        }
        // Today's (or a later, or no) date is not looked up: today's price is the day's price.
        if (!/^\d{4}-\d\d-\d\d$/.test(day) || day >= today) continue;
        const stored = o.store.get(DAY_PRICES, keptKey(o.sourceKey, id, day));
        const k = stored && usable(stored, id, day) ? stored : undefined;
        if (k) {
          out.set(key, kept(k));
          continue;
        }
        // After one failure the source is not asked again in this export (it is down or refusing).
        if (failed) {
          out.set(key, { kind: 'unknown', reason: failed });
          continue;
        }
        if (asked >= max) {
          out.set(key, { kind: 'unknown', reason: `not looked up: at most ${max} dates per export` });
          continue;
        }
        asked++;
        const answer = await paced(() => o.fetch(id, day));
        if (!answer.ok) {
          failed = answer.reason;
          o.logger.warn({ currency, day, reason: answer.reason }, 'price of a past day: no answer');
          out.set(key, { kind: 'unknown', reason: answer.reason });
          continue;
        }
        const record: DayPrice = {
          currency,
          day,
          source: o.source,
          sourceKey: o.sourceKey,
          id,
          askedAt: o.now(),
          ...(answer.usd === undefined ? {} : { usd: answer.usd }),
        };
        await o.store.commit((tx) => tx.put(DAY_PRICES, keptKey(o.sourceKey, id, day), record));
        out.set(key, kept(record));
      }
      return out;
    },
  };
}
