/**
 * The watermark: when the app first ran against this wallet account (this data directory).
 * What happened before it is history: it is never alerted one by one. Reconciliation reports
 * only what came after it, and the history is summed up once, in at most one line ("42
 * deposits in the 24 h before the app was connected: see /tx").
 */
import { collection, type Store } from '../store/index.js';
import { ALERT_COLLECTIONS } from './types.js';

export const WATERMARK = { collection: collection<Watermark>('alerts_meta'), key: 'watermark' } as const;
export const HISTORY_RENDERER = 'alert.history';
export const HISTORY_MESSAGE_KEY = 'alerts:history';

/**
 * A transaction stamped this little before the watermark still counts as after it: one that
 * landed while the app was starting is reported rather than taken for history.
 */
export const WATERMARK_SLACK_MS = 5_000;

/** The span before the watermark the history line counts from the transaction list, unless told otherwise. */
export const HISTORY_WINDOW_MS = 24 * 3_600_000;

export interface Watermark {
  at: number;
  /** Whether the one history line has been decided (posted, or nothing to say). */
  historyReported: boolean;
  /** Deposits in the 24 h before `at` (known once reported). */
  historyCount?: number;
  historyWindowMs?: number;
  /**
   * Deposits from before the watermark told by webhooks (replayed notifications) that the list
   * count does not cover (older than its window): added to `historyCount`.
   */
  replayedBefore?: number;
}

/** Whether an event is about a transaction from before the watermark (no time: it is live). */
export function beforeWatermark(wm: Watermark | undefined, occurredAt: number | undefined): boolean {
  return !!wm && occurredAt !== undefined && occurredAt < wm.at - WATERMARK_SLACK_MS;
}

/**
 * Reads the watermark, recording it on the very first run: now, or, for a data directory that
 * already holds alerts (it ran before watermarks existed), its first alert, with nothing to
 * sum up (that history was alerted when it happened).
 */
export async function ensureWatermark(store: Store, now: number): Promise<Watermark> {
  return store.commit((tx) => {
    const cur = tx.get(WATERMARK.collection, WATERMARK.key);
    if (cur) return cur;
    const first = tx.all(ALERT_COLLECTIONS.alerts).reduce((m, a) => Math.min(m, a.createdAt), Infinity);
    const wm: Watermark =
      first < now ? { at: first, historyReported: true, historyCount: 0 } : { at: now, historyReported: false };
    tx.put(WATERMARK.collection, WATERMARK.key, wm);
    return wm;
  });
}

export function readWatermark(store: Pick<Store, 'get'>): Watermark | undefined {
  return store.get(WATERMARK.collection, WATERMARK.key);
}
