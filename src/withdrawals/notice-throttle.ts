/**
 * How often a notification may make the app ask the wallet service (reconcile.ts). A notification
 * is unsigned (invariant 14): whoever learns the webhook URL can post thousands, each with a new
 * status or hash, and each would cost a status call (and, when that fails, a list fallback).
 *
 * - Per request: at least `minIntervalMs` (5 s) between the starts of two questions a
 *   notification prompted; notifications in between wait and share the next question.
 * - For all requests together: a token bucket (`perSecond` 5, `burst` 20). Without a token the
 *   question is not asked now: the claim keeps waiting and the reconcile job (every 30 s, never
 *   throttled) asks.
 *
 * Measured on a monotonic clock, not the app's clock (which tests and operators may move).
 */

export interface NoticeThrottleOptions {
  minIntervalMs?: number;
  perSecond?: number;
  burst?: number;
  /** Milliseconds, monotonic. */
  clock?: () => number;
}

export interface NoticeThrottle {
  /** How long a notice-prompted question about this request must still wait (0: it may start). */
  waitFor(id: string): number;
  /** A token for one notice-prompted question about this request, and its start recorded; false: none left now. */
  take(id: string): boolean;
}

/** Requests remembered before the old entries are swept. */
const SWEEP_AT = 1000;

export function createNoticeThrottle(o: NoticeThrottleOptions = {}): NoticeThrottle {
  const minIntervalMs = o.minIntervalMs ?? 5_000;
  const perSecond = o.perSecond ?? 5;
  const burst = o.burst ?? 20;
  const clock = o.clock ?? (() => performance.now());
  const lastAsked = new Map<string, number>();
  let tokens = burst;
  let filledAt = clock();

  function sweep(now: number) {
    if (lastAsked.size < SWEEP_AT) return;
    for (const [id, at] of lastAsked) if (now - at >= minIntervalMs) lastAsked.delete(id);
  }

  return {
    waitFor(id) {
      const at = lastAsked.get(id);
      return at === undefined ? 0 : Math.max(0, at + minIntervalMs - clock());
    },
    take(id) {
      const now = clock();
      tokens = Math.min(burst, tokens + ((now - filledAt) / 1000) * perSecond);
      filledAt = now;
      if (tokens < 1) return false;
      tokens -= 1;
      sweep(now);
      lastAsked.set(id, now);
      return true;
    },
  };
}
