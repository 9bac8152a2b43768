/**
 * A Chainalysis-compatible sanctions API (SCREENING_API_URL, SCREENING_API_KEY):
 * `GET {url}/api/v1/address/{address}` with `X-API-Key`, answering `{"identifications": [...]}`
 * (an empty array: not sanctioned). Asked in addition to the list, before a step's commit (the
 * rule table reads only the answers kept here); each answer is kept a day, a failure a minute,
 * so a provider that is down costs one timeout a minute, not one per click. Never throws: an
 * answer it cannot get is `down`, and the list alone decides.
 */
import axios from 'axios';
import { z } from 'zod';
import { addressKey } from './list.js';
import type { ProviderAnswer } from './types.js';

const answerSchema = z.object({
  identifications: z
    .array(
      z
        .object({
          category: z.string().max(200).optional(),
          name: z.string().max(200).optional(),
          description: z.string().max(2000).optional(),
          url: z.string().max(500).optional(),
        })
        .loose(),
    )
    .max(1000),
});

const DAY_MS = 86_400_000;
const DOWN_MS = 60_000;
const MAX_CACHED = 50_000;

export interface Provider {
  name: string;
  /** Asks about `address` unless a fresh answer is kept; resolves with it. */
  ask(address: string): Promise<ProviderAnswer>;
  /** The answer kept for `address`, if still fresh (no I/O). */
  answer(address: string): ProviderAnswer | undefined;
}

export function createProvider(o: { url: string; apiKey: string; now: () => number; timeoutMs?: number }): Provider {
  const base = o.url.replace(/\/+$/, '');
  const name = new URL(base).host;
  const kept = new Map<string, ProviderAnswer>();
  const inflight = new Map<string, Promise<ProviderAnswer>>();

  function answer(address: string): ProviderAnswer | undefined {
    const a = kept.get(addressKey(address));
    if (!a) return undefined;
    return o.now() - a.at < (a.kind === 'down' ? DOWN_MS : DAY_MS) ? a : undefined;
  }

  async function fetchAnswer(address: string): Promise<ProviderAnswer> {
    const at = o.now();
    try {
      const res = await axios.get(`${base}/api/v1/address/${encodeURIComponent(address.trim())}`, {
        headers: { 'X-API-Key': o.apiKey, Accept: 'application/json' },
        timeout: o.timeoutMs ?? 1_500,
        // axios's timeout ends at the headers: a body dripped a byte at a time would stall the step.
        // The signal is an overall deadline; when it expires the provider counts as down.
        signal: AbortSignal.timeout(o.timeoutMs ?? 1_500),
        validateStatus: () => true,
        maxContentLength: 64 * 1024,
        maxRedirects: 0,
      });
      if (res.status !== 200) return { kind: 'down', reason: `HTTP ${res.status}`, at };
      const parsed = answerSchema.safeParse(res.data);
      if (!parsed.success) return { kind: 'down', reason: 'an answer not in the documented shape', at };
      const ids = parsed.data.identifications;
      if (!ids.length) return { kind: 'clean', at };
      const names = ids.map((i) => i.name ?? i.category ?? 'sanctioned').filter(Boolean);
      return { kind: 'listed', names: [...new Set(names)], at };
    } catch (err) {
      return { kind: 'down', reason: axios.isAxiosError(err) ? (err.code ?? 'no answer') : 'no answer', at };
    }
  }

  return {
    name,
    answer,
    ask(address) {
      const fresh = answer(address);
      if (fresh) return Promise.resolve(fresh);
      const key = addressKey(address);
      const running = inflight.get(key);
      if (running) return running;
      const p = fetchAnswer(address).then((a) => {
        if (kept.size >= MAX_CACHED) kept.delete(kept.keys().next().value!);
        kept.set(key, a);
        inflight.delete(key);
        return a;
      });
      inflight.set(key, p);
      return p;
    },
  };
}
