/**
 * The CoinGecko /simple/price call (or the embedded sandbox's copy of it): one GET for every
 * asset. The key, when set, goes in the header CoinGecko documents for the plan the URL names
 * (`x-cg-pro-api-key` on pro-api.coingecko.com, `x-cg-demo-api-key` elsewhere); it is never
 * logged: errors are reduced to a status or a code before they leave this file.
 *
 * axios' `timeout` only bounds the time between bytes: a server trickling one byte every few
 * hundred ms would be read for ever. The whole call has a deadline too (an abort signal), so a
 * slow answer is refused as late and the next refresh can run.
 */
import axios from 'axios';

/** The answer's body (unchecked: judge.ts decides), or why there is none. */
export type PriceFetch = (
  ids: readonly string[],
) => Promise<{ ok: true; body: unknown } | { ok: false; reason: string }>;

export const DEFAULT_PRICE_API_URL = 'https://api.coingecko.com/api/v3';

export function keyHeader(baseUrl: string): string {
  return /^https?:\/\/pro-api\.coingecko\.com(\/|:|$)/i.test(baseUrl) ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key';
}

export function createPriceFetch(o: { baseUrl: string; apiKey?: string | undefined; timeoutMs: number }): PriceFetch {
  const http = axios.create({
    baseURL: o.baseUrl.replace(/\/+$/, ''),
    timeout: o.timeoutMs,
    headers: { accept: 'application/json', ...(o.apiKey ? { [keyHeader(o.baseUrl)]: o.apiKey } : {}) },
    // Every status is an answer judged here; nothing is retried (the next refresh is the retry).
    validateStatus: () => true,
    maxContentLength: 1024 * 1024,
    maxRedirects: 0,
  });
  return async (ids) => {
    try {
      const res = await http.get('/simple/price', {
        signal: AbortSignal.timeout(o.timeoutMs),
        params: { ids: ids.join(','), vs_currencies: 'usd', include_last_updated_at: 'true', precision: 'full' },
      });
      if (res.status !== 200) return { ok: false, reason: `the price source answered HTTP ${res.status}` };
      return { ok: true, body: res.data as unknown };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ERR_CANCELED' || axios.isCancel(err))
        return { ok: false, reason: `late: no answer within ${o.timeoutMs} ms` };
      return { ok: false, reason: `the price source could not be reached (${code ?? 'error'})` };
    }
  };
}
