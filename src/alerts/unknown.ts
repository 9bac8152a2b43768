/**
 * Notifications of unknown shape. Each one is stored (as an alert of kind `unknown`, with its
 * raw body among the events) and counted, but a flood of them, from a misconfigured sender or
 * someone who learned the URL, must not crowd out real deposits: per channel there is at most
 * one message an hour, "N notifications of unknown shape", edited as the count grows. The
 * latest ones are listed by `/treasury status` (`unknownSummary`).
 */
import { COLLECTIONS as OUTBOX_COLLECTIONS, type Outbox } from '../outbox/index.js';
import { collection, type Store, type Tx } from '../store/index.js';
import { utcMinute } from '../format/time.js';
import { ALERT_COLLECTIONS, type Alert } from './types.js';

export const UNKNOWN_RENDERER = 'alert.unknown';
export const UNKNOWN_WINDOW_MS = 3_600_000;

/** One hour's message of one channel: what it counts. */
export interface UnknownWindow {
  key: string;
  channel: string;
  since: number;
  count: number;
  latestAlertId: string;
}

/** Per channel: the current window's message, and the running total. */
interface UnknownChannel {
  channel: string;
  current?: string;
  total: number;
}

export const UNKNOWN_COLLECTIONS = {
  windows: collection<UnknownWindow>('alerts_unknown_windows'),
  channels: collection<UnknownChannel>('alerts_unknown_channels'),
} as const;

/** Inside the commit that stores the unknown notification's alert. */
export function noteUnknown(tx: Tx, alert: Alert, ctx: { outbox: Pick<Outbox, 'enqueue'>; now: number }): void {
  const ch = tx.get(UNKNOWN_COLLECTIONS.channels, alert.channel) ?? { channel: alert.channel, total: 0 };
  const cur = ch.current ? tx.get(UNKNOWN_COLLECTIONS.windows, ch.current) : undefined;
  if (cur && ctx.now - cur.since < UNKNOWN_WINDOW_MS && tx.get(OUTBOX_COLLECTIONS.messages, cur.key)) {
    tx.put(UNKNOWN_COLLECTIONS.windows, cur.key, { ...cur, count: cur.count + 1, latestAlertId: alert.id });
    tx.put(UNKNOWN_COLLECTIONS.channels, ch.channel, { ...ch, total: ch.total + 1 });
    ctx.outbox.enqueue(tx, {
      op: 'update',
      renderer: UNKNOWN_RENDERER,
      ref: cur.key,
      key: cur.key,
      priority: 'detail',
    });
    return;
  }
  const key = `unknown:${alert.channel}:${ctx.now}:${alert.id}`;
  tx.put(UNKNOWN_COLLECTIONS.windows, key, {
    key,
    channel: alert.channel,
    since: ctx.now,
    count: 1,
    latestAlertId: alert.id,
  });
  tx.put(UNKNOWN_COLLECTIONS.channels, ch.channel, { ...ch, current: key, total: ch.total + 1 });
  ctx.outbox.enqueue(tx, {
    op: 'post',
    renderer: UNKNOWN_RENDERER,
    ref: key,
    key,
    channel: alert.channel,
    priority: 'detail',
  });
}

export interface UnknownSummary {
  total: number;
  lastHour: number;
  latest: Array<{ id: string; at: number; typeName?: string; fields: string[] }>;
}

export function unknownSummary(store: Pick<Store, 'find'>, now: number, limit = 5): UnknownSummary {
  const all = store
    .find(ALERT_COLLECTIONS.alerts, (a) => a.kind === 'unknown')
    .sort((a, b) => b.createdAt - a.createdAt);
  return {
    total: all.length,
    lastHour: all.filter((a) => now - a.createdAt < UNKNOWN_WINDOW_MS).length,
    latest: all.slice(0, limit).map((a) => ({
      id: a.id,
      at: a.createdAt,
      ...(a.typeName ? { typeName: a.typeName } : {}),
      fields: Object.keys(a.extra ?? {}).slice(0, 8),
    })),
  };
}

/** One plain-text line per notification for /treasury status (no Block Kit: the Slack side wraps it). */
export function describeUnknown(s: UnknownSummary): string {
  if (s.total === 0) return 'none';
  const lines = s.latest.map(
    (l) => `${utcMinute(l.at)}${l.typeName ? ` ${l.typeName}` : ''}: fields ${l.fields.join(', ') || '(none)'}`,
  );
  return [`${s.total} stored, ${s.lastHour} in the last hour; latest:`, ...lines].join('\n');
}
