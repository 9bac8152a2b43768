/**
 * The prices part: the price cache over the configured price API (PRICE_API_URL), or the
 * embedded sandbox's copy of CoinGecko's when the wallet is the embedded sandbox and no URL is
 * set (so `npm start` shows values with no account). Refreshed by the `prices.refresh` job.
 */
import { createPriceFetch, DEFAULT_PRICE_API_URL } from '../prices/client.js';
import { createDayPrices, createHistoryFetch } from '../prices/day-prices.js';
import { createPrices, type Prices } from '../prices/index.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { PolicySource } from '../policy/source.js';
import type { Store } from '../store/types.js';

export function buildPrices(o: {
  config: Config;
  sandboxUrl: string | undefined;
  policy: PolicySource;
  now: () => number;
  logger: Logger;
  /** Where accepted prices are kept, so a restart or a failover judges at the same window. */
  store: Store;
}): Prices {
  const url = o.config.prices.url ?? o.sandboxUrl ?? DEFAULT_PRICE_API_URL;
  const source =
    url === DEFAULT_PRICE_API_URL || /coingecko\.com/i.test(url)
      ? 'CoinGecko'
      : url === o.sandboxUrl
        ? 'the embedded sandbox'
        : new URL(url).host;
  const api = { baseUrl: url, apiKey: o.config.prices.key, timeoutMs: o.config.prices.timeoutMs };
  const logger = o.logger.child({ component: 'prices' });
  const prices = createPrices({
    fetch: createPriceFetch(api),
    source,
    policy: o.policy,
    now: o.now,
    logger,
    store: o.store,
  });
  // The same source's price of a past day, for the exports (issue 40).
  prices.days = createDayPrices({
    fetch: createHistoryFetch(api),
    source,
    sourceKey: url,
    policy: o.policy,
    store: o.store,
    now: o.now,
    logger,
  });
  return prices;
}
