/**
 * The pace of a batch's sends: at most `concurrency` wallet calls in flight and at most
 * `perSecond` started per second (evenly spaced), so a file of 1,000 rows never floods the wallet
 * service (whose rate limits are not published: spec, "Limits") nor starves the single requests
 * sent beside it. A stop is checked before each start: no row starts once it says stop.
 */
export interface Pace {
  concurrency: number;
  perSecond: number;
}

/** 4 in flight, 10 a second: a 1,000-row file in under two minutes, and room for the rest of the app. */
export const DEFAULT_PACE: Pace = { concurrency: 4, perSecond: 10 };

export interface PaceStats {
  started: number;
  maxInFlight: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function paced<T>(
  items: readonly T[],
  pace: Pace,
  fn: (item: T) => Promise<unknown>,
  stop: () => boolean = () => false,
): Promise<PaceStats> {
  const gap = 1000 / Math.max(pace.perSecond, 0.001);
  let next = 0;
  let lastStart = Number.NEGATIVE_INFINITY;
  let inFlight = 0;
  const stats: PaceStats = { started: 0, maxInFlight: 0 };
  async function worker(): Promise<void> {
    while (next < items.length) {
      const item = items[next++] as T;
      // The next free slot is reserved before waiting for it: the workers never start two at once.
      const now = Date.now();
      const slot = Math.max(now, lastStart + gap);
      lastStart = slot;
      if (slot > now) await sleep(slot - now);
      if (stop()) return;
      inFlight++;
      stats.started++;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      try {
        await fn(item);
      } finally {
        inFlight--;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.floor(pace.concurrency)) }, worker));
  return stats;
}
