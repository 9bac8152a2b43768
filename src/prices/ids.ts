/**
 * Which CoinGecko coin each currency the wallet service knows (public-facts' list) is priced as.
 * The policy's `valuation.ids` overrides an entry (a coin renamed upstream, another listing);
 * a currency with no id has no price, so its value is unknown (the strictest case).
 */
import { CURRENCIES } from '../wallet/enums.js';

export const DEFAULT_PRICE_IDS: Readonly<Record<string, string>> = Object.freeze({
  BTC: 'bitcoin',
  LTC: 'litecoin',
  BNB: 'binancecoin',
  USDT: 'tether',
  DAI: 'dai',
  BUSD: 'binance-usd',
  XEND: 'xend-finance',
  ETH: 'ethereum',
  MATIC: 'matic-network',
  WNT: 'wicrypt',
  USDC: 'usd-coin',
  cUSD: 'celo-dollar',
  cEUR: 'celo-euro',
  CELO: 'celo',
  TRX: 'tron',
  USDJ: 'just-stablecoin',
  TUSD: 'true-usd',
});

/** Every known currency's id under the policy's overrides (keys: canonical currency names). */
export function priceIds(overrides: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const ids: Record<string, string> = Object.create(null);
  for (const c of CURRENCIES) {
    const id = overrides?.[c.name] ?? DEFAULT_PRICE_IDS[c.name];
    if (id) ids[c.name] = id;
  }
  return ids;
}
