/**
 * Slack's rate limits, for the fake Slack's gate (`startFakeSlack({ gate })` / `fake.setGate`).
 *
 * - chat.postMessage (thread replies included): about one message per second per channel,
 *   with a small burst allowed: a token bucket per channel.
 * - chat.update: a per-minute budget for the workspace: a fixed one-minute window.
 *
 * Beyond either, the call is answered 429 with Retry-After (whole seconds, at least 1), as
 * Slack does. `timeScale` speeds the clock up for tests (10: ten posts a second per channel,
 * a "minute" of six seconds); benchmarks use the real rates.
 */
import type { ApiGate, FailureSpec } from './fake-slack.js';

export interface SlackRateLimitOptions {
  postsPerSecond?: number;
  /** Posts a quiet channel may send at once. */
  postBurst?: number;
  updatesPerMinute?: number;
  /** Multiplies every rate (and shortens every window) by this much. */
  timeScale?: number;
  now?: () => number;
}

export interface SlackRateLimiter {
  gate: ApiGate;
  /** Calls let through and calls refused, per method. */
  readonly allowed: Record<string, number>;
  readonly limited: Record<string, number>;
  /** What the limits allow in `ms` for one channel: posts (after the burst) and updates. */
  allowance(ms: number): { posts: number; updates: number };
}

export function slackRateLimits(o: SlackRateLimitOptions = {}): SlackRateLimiter {
  const scale = o.timeScale ?? 1;
  const postsPerMs = ((o.postsPerSecond ?? 1) * scale) / 1000;
  const burst = o.postBurst ?? 3;
  const updatesPerWindow = o.updatesPerMinute ?? 50;
  const windowMs = 60_000 / scale;
  const now = o.now ?? Date.now;
  const buckets = new Map<string, { tokens: number; at: number }>();
  let window = { start: 0, used: 0 };
  const allowed: Record<string, number> = {};
  const limited: Record<string, number> = {};

  const refuse = (method: string, waitMs: number): FailureSpec => {
    limited[method] = (limited[method] ?? 0) + 1;
    return { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) };
  };
  const pass = (method: string): undefined => {
    allowed[method] = (allowed[method] ?? 0) + 1;
    return undefined;
  };

  const gate: ApiGate = (method, args) => {
    const t = now();
    if (method === 'chat.postMessage') {
      const channel = String((args as Record<string, unknown>)?.channel ?? '');
      const b = buckets.get(channel) ?? { tokens: burst, at: t };
      b.tokens = Math.min(burst, b.tokens + (t - b.at) * postsPerMs);
      b.at = t;
      buckets.set(channel, b);
      if (b.tokens < 1) return refuse(method, (1 - b.tokens) / postsPerMs);
      b.tokens -= 1;
      return pass(method);
    }
    if (method === 'chat.update') {
      if (t - window.start >= windowMs) window = { start: t, used: 0 };
      if (window.used >= updatesPerWindow) return refuse(method, window.start + windowMs - t);
      window.used++;
      return pass(method);
    }
    return pass(method);
  };

  return {
    gate,
    allowed,
    limited,
    allowance: (ms) => ({
      posts: Math.floor(burst + ms * postsPerMs),
      updates: Math.floor(updatesPerWindow * Math.ceil(ms / windowMs)),
    }),
  };
}
