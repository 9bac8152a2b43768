/**
 * The price cache: refreshed in the background by the `prices.refresh` job (one call for every
 * asset, at most once a minute), read as a snapshot by whoever needs a value (never a network
 * call on the path of a Slack ack). A refused answer is logged with its reason and leaves the
 * last good prices in place; they count until the policy's valuation.max_age, then the value
 * is unknown (value.ts). A price that moved more than 50% on one answer makes the value unknown
 * until a second answer confirms it (judge.ts); the last accepted price stays the reference the
 * move is measured from, however old. Each refresh has a deadline: a fetch that never answers
 * cannot hold the refresh (and every later one) for ever.
 */
import { Dec } from '../money/decimal.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Policy } from '../policy/schema.js';
import type { PolicySource } from '../policy/source.js';
import { priceIds } from './ids.js';
import { judgeAnswer, type Sighting } from './judge.js';
import type { PriceFetch } from './client.js';
import { highIn, PRICE_HISTORY, recordQuote, type PriceHistory } from './history.js';
import type { AssetPrice, JudgedPrice, PriceSnapshot, PriceSourceState, Prices, Quote } from './types.js';

export type { PriceSnapshot, PriceSourceState, Prices, Quote, Valuation, JudgedPrice } from './types.js';
export {
  valueAt,
  currentValueAt,
  accountingUsd,
  accountingValueAt,
  currentOf,
  sumValues,
  NO_PRICES,
  marketUsd,
} from './value.js';
export { DEFAULT_PRICE_IDS, priceIds } from './ids.js';

/** One call for every asset at most this often, whatever asks (the job, a start, a test). */
export const MIN_REFRESH_MS = 60_000;
/**
 * A minute's cron tick may fire a little early (timers are not exact): a call this much short of
 * the minute still counts as the next minute's, or every other minute would be skipped.
 */
export const REFRESH_SLACK_MS = 5_000;
/** A fetch not answered by then is refused as late (above the client's own deadline, at most 60 s). */
export const REFRESH_DEADLINE_MS = 65_000;

export function createPrices(o: {
  fetch: PriceFetch;
  /** Where prices come from, in words ("CoinGecko", "the embedded sandbox"). */
  source: string;
  policy: PolicySource<Pick<Policy, 'valuation'>>;
  now: () => number;
  logger: Logger;
  /** The refresh's own deadline (tests); REFRESH_DEADLINE_MS by default. */
  deadlineMs?: number;
  /** Where accepted prices are kept (the lookback window's highs and the last quote), so a restart keeps them. */
  store?: Pick<Store, 'all' | 'commit'>;
}): Prices {
  /** Per currency, the stored hourly highs and last quote (mirrors PRICE_HISTORY). */
  const history: Record<string, PriceHistory> = Object.create(null);
  for (const h of o.store?.all(PRICE_HISTORY) ?? []) history[h.currency] = h;
  /**
   * The last accepted quote per currency, however old: what values use, and what a move is measured
   * from. Seeded from the store, so the first answer after a restart is judged against the last
   * price before it (and counts as unknown if it moved too far) instead of being believed alone.
   */
  let quotes: Record<string, Quote> = Object.fromEntries(Object.values(history).map((h) => [h.currency, h.last]));
  /** Large moves seen once (not believed yet) and why their value is unknown meanwhile. */
  let pending: Record<string, Sighting> = {};
  let held: Record<string, string> = {};
  let lastCallAt: number | undefined;
  let lastOkAt: number | undefined;
  let lastProblem: { at: number; reason: string } | undefined;
  let calls = 0;
  let running: Promise<void> | undefined;

  const maxAgeMs = () => o.policy.current().valuation.max_age;

  async function refreshOnce(): Promise<void> {
    const now = o.now();
    if (lastCallAt !== undefined && now - lastCallAt < MIN_REFRESH_MS - REFRESH_SLACK_MS) return;
    lastCallAt = now;
    calls += 1;
    const ids = priceIds(o.policy.current().valuation.ids);
    const answer = await withDeadline(
      o.fetch([...new Set(Object.values(ids))]),
      o.deadlineMs ?? REFRESH_DEADLINE_MS,
      o.logger,
    );
    // The time of the call (the answer is at most the deadline later): one time for the whole refresh.
    const at = now;
    if (!answer.ok) {
      lastProblem = { at, reason: answer.reason };
      o.logger.warn(
        { reason: answer.reason },
        'price refresh failed: the last good prices stay until they are too old',
      );
      return;
    }
    const judged = judgeAnswer(answer.body, {
      ids,
      last: quotes,
      pending,
      now: at,
      maxAgeMs: maxAgeMs(),
      source: o.source,
    });
    if (judged.invalid) {
      lastProblem = { at, reason: judged.invalid };
      o.logger.warn(
        { reason: judged.invalid },
        'price answer refused: the last good prices stay until they are too old',
      );
      return;
    }
    quotes = { ...quotes, ...judged.accepted };
    await keep(judged.accepted);
    pending = { ...without(pending, judged.accepted), ...judged.held };
    held = without(held, judged.accepted);
    for (const c of Object.keys(judged.held)) held[c] = judged.refused[c] ?? 'a large move not confirmed yet';
    lastOkAt = at;
    const refused = Object.entries(judged.refused);
    lastProblem = refused.length ? { at, reason: refused.map(([c, why]) => `${c}: ${why}`).join('; ') } : undefined;
    if (refused.length)
      o.logger.warn(
        { refused: judged.refused },
        'some prices refused: their last good price stays, except after a large move (value unknown until confirmed)',
      );
  }

  /** The accepted prices recorded (memory first, then the store; a store that refuses the write is logged, not fatal). */
  async function keep(accepted: Readonly<Record<string, Quote>>): Promise<void> {
    const lookback = o.policy.current().valuation.lookback;
    const next = Object.entries(accepted).map(([c, q]) => recordQuote(history[c], c, q, lookback));
    for (const h of next) history[h.currency] = h;
    policyCache = undefined;
    if (!o.store || next.length === 0) return;
    try {
      await o.store.commit((tx) => {
        for (const h of next) tx.put(PRICE_HISTORY, h.currency, h);
      });
    } catch (err) {
      o.logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'accepted prices not stored: a restart would judge at the prices stored before',
      );
    }
  }

  /** Per currency, the policy price where it is above the current quote; cached per minute and policy. */
  let policyCache: { key: string; value: Record<string, { price: string; judged: JudgedPrice }> } | undefined;
  function policyPrices(now: number): Record<string, { price: string; judged: JudgedPrice }> {
    const v = o.policy.current().valuation;
    const key = `${Math.floor(now / 60_000)}|${v.lookback}|${JSON.stringify(v.pegs)}|${JSON.stringify(v.floor)}`;
    if (policyCache?.key === key) return policyCache.value;
    const out: Record<string, { price: string; judged: JudgedPrice }> = Object.create(null);
    for (const [currency, q] of Object.entries(quotes)) {
      const candidates: Array<{ price: string; judged: JudgedPrice }> = [];
      const high = highIn(history[currency], now, v.lookback);
      if (high)
        candidates.push({ price: high.price, judged: { basis: 'high', lookbackMs: v.lookback, seenAt: high.at } });
      const peg = v.pegs[currency];
      if (peg !== undefined) candidates.push({ price: peg, judged: { basis: 'peg' } });
      const floor = v.floor[currency];
      if (floor !== undefined) candidates.push({ price: floor, judged: { basis: 'floor' } });
      let best: { price: string; judged: JudgedPrice } | undefined;
      for (const c of candidates) if (new Dec(c.price).gt(best?.price ?? q.price)) best = c;
      if (best) out[currency] = best;
    }
    policyCache = { key, value: out };
    return out;
  }

  function snapshot(): PriceSnapshot {
    const now = o.now();
    const policy = policyPrices(now);
    return {
      now,
      maxAgeMs: maxAgeMs(),
      quotes: without(quotes, held),
      ...(lastProblem ? { lastProblem: lastProblem.reason } : {}),
      ...(Object.keys(held).length ? { held: { ...held } } : {}),
      ...(Object.keys(policy).length ? { policy } : {}),
    };
  }

  return {
    snapshot,
    async refresh() {
      // One refresh at a time: a second caller waits for the one under way.
      running ??= refreshOnce()
        .catch((err: unknown) => {
          lastProblem = { at: o.now(), reason: 'the refresh failed' };
          o.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'price refresh failed');
        })
        .finally(() => {
          running = undefined;
        });
      return running;
    },
    state(): PriceSourceState {
      const snap = snapshot();
      const fresh: string[] = [];
      const stale: string[] = [];
      for (const currency of Object.keys(priceIds(o.policy.current().valuation.ids))) {
        const q = snap.quotes[currency];
        (q && snap.now - Date.parse(q.at) <= snap.maxAgeMs ? fresh : stale).push(currency);
      }
      const assets: AssetPrice[] = Object.keys(priceIds(o.policy.current().valuation.ids)).map((currency) => {
        const q = quotes[currency];
        const p = snap.policy?.[currency];
        return { currency, ...(q ? { current: { price: q.price, at: q.at } } : {}), ...(p ? { policy: p } : {}) };
      });
      return { source: o.source, lastOkAt, lastProblem, calls, fresh, stale, assets };
    },
  };
}

function without<T>(from: Readonly<Record<string, T>>, keys: Readonly<Record<string, unknown>>): Record<string, T> {
  return Object.fromEntries(Object.entries(from).filter(([k]) => !Object.hasOwn(keys, k)));
}

/** The fetch's answer, or "late" once the deadline passes (a later answer is then ignored). */
async function withDeadline(
  fetching: ReturnType<PriceFetch>,
  ms: number,
  logger: Logger,
): Promise<Awaited<ReturnType<PriceFetch>>> {
  let timer: NodeJS.Timeout | undefined;
  let passed = false;
  const late = new Promise<Awaited<ReturnType<PriceFetch>>>((resolve) => {
    timer = setTimeout(() => {
      passed = true;
      resolve({ ok: false, reason: `late: no answer within ${ms} ms` });
    }, ms);
  });
  fetching.then(
    () => passed && logger.warn({ deadlineMs: ms }, 'price answer refused: it came after the deadline'),
    () => undefined,
  );
  try {
    return await Promise.race([fetching, late]);
  } finally {
    clearTimeout(timer);
  }
}
