/**
 * What the admins are told when notifications cannot be trusted, and the flood summary.
 *
 * - Trust notices: one message to the admins per kind of trouble (a notification that
 *   disagrees with the wallet's history; a transaction reported confirmed that the history still
 *   does not show after `alerts.verify_grace`; a flood of notifications the history does not
 *   show, i.e. the webhook URL may be leaked). Told once: later cases of the same kind within
 *   NOTICE_WINDOW_MS update that message's count instead of posting again, so a flood of
 *   forged notifications never becomes a flood of notices.
 * - Floods: when claims the wallet's history does not show arrive faster than a few a minute
 *   in a channel, new ones are gathered into ONE summary message for that channel (counted,
 *   not posted one by one); a gathered claim the history later corroborates is posted then.
 *
 * Rendered on the Slack side (src/slack/alert-messages.ts); this module decides and records.
 */
import { COLLECTIONS as OUTBOX_COLLECTIONS, type Outbox } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import { collection, type Tx } from '../store/index.js';
import type { Alert } from './types.js';

export type TrustNoticeKind = 'contradiction' | 'not_found' | 'flood';

export interface TrustNotice {
  id: string;
  kind: TrustNoticeKind;
  firstAt: number;
  lastAt: number;
  /** Alerts (or, for floods, flooded channels) this notice speaks for. */
  count: number;
  latestAlertId?: string;
  /** flood: the channel whose summary it points at; not_found: the grace, for the words. */
  channel?: string;
  graceMs?: number;
}

export interface Flood {
  key: string;
  channel: string;
  startedAt: number;
  /** Last time a claim was gathered or found unshown: the flood ends FLOOD_QUIET_MS after it. */
  lastAt: number;
  /** Claims gathered into this summary that the wallet's history still does not show. */
  unshown: number;
  /** Claims gathered in all. */
  total: number;
  /** The `unshown` the summary message was last drawn (or asked to be drawn) with. */
  drawn?: number;
}

/** The persisted names must never change. */
export const TRUST_COLLECTIONS = {
  notices: collection<TrustNotice>('alert_trust_notices'),
  open: collection<{ id: string }>('alert_trust_open'),
  floods: collection<Flood>('alert_floods'),
  openFloods: collection<{ key: string }>('alert_floods_open'),
} as const;

export const TRUST_NOTICE_RENDERER = 'alert.trust';
export const FLOOD_RENDERER = 'alert.flood';
export const trustNoticeKey = (id: string) => `alert-trust:${id}`;
export const floodMessageKey = (key: string) => `alert-flood:${key}`;

/** Cases of one kind within this span of the previous one are counted in the same notice. */
export const NOTICE_WINDOW_MS = 6 * 3_600_000;
/** A flood ends after this long without a new claim the history does not show. */
export const FLOOD_QUIET_MS = 10 * 60_000;

export interface NoticeContext {
  outbox: Pick<Outbox, 'enqueue'>;
  policy: Policy;
  now: number;
}

/**
 * Tells the admins (in the approvals channel, mentioning them: src/slack/alert-messages.ts), once
 * per kind and window; a later case of the same kind only updates the count of that message.
 */
export function tellAdmins(
  tx: Tx,
  kind: TrustNoticeKind,
  ctx: NoticeContext,
  about: { alert?: Alert; channel?: string; graceMs?: number },
): TrustNotice {
  const openId = tx.get(TRUST_COLLECTIONS.open, kind)?.id;
  const open = openId ? tx.get(TRUST_COLLECTIONS.notices, openId) : undefined;
  if (open && ctx.now - open.lastAt <= NOTICE_WINDOW_MS) {
    const next: TrustNotice = {
      ...open,
      lastAt: ctx.now,
      count: open.count + 1,
      ...(about.alert ? { latestAlertId: about.alert.id } : {}),
      ...(about.channel ? { channel: about.channel } : {}),
    };
    tx.put(TRUST_COLLECTIONS.notices, open.id, next);
    // One redraw per moment (a sweep flagging many at once asks once; it is drawn at send time).
    if (open.lastAt !== ctx.now && tx.get(OUTBOX_MESSAGES, trustNoticeKey(open.id)))
      ctx.outbox.enqueue(tx, {
        op: 'update',
        renderer: TRUST_NOTICE_RENDERER,
        ref: open.id,
        key: trustNoticeKey(open.id),
        priority: 'edit',
      });
    return next;
  }
  const id = `${kind}:${ctx.now}`;
  const notice: TrustNotice = {
    id,
    kind,
    firstAt: ctx.now,
    lastAt: ctx.now,
    count: 1,
    ...(about.alert ? { latestAlertId: about.alert.id } : {}),
    ...(about.channel ? { channel: about.channel } : {}),
    ...(about.graceMs ? { graceMs: about.graceMs } : {}),
  };
  tx.put(TRUST_COLLECTIONS.notices, id, notice);
  tx.put(TRUST_COLLECTIONS.open, kind, { id });
  ctx.outbox.enqueue(tx, {
    op: 'post',
    renderer: TRUST_NOTICE_RENDERER,
    ref: id,
    key: trustNoticeKey(id),
    channel: ctx.policy.channels.approvals,
    priority: 'live',
  });
  return notice;
}

const OUTBOX_MESSAGES = OUTBOX_COLLECTIONS.messages;

/** The channel's flood in progress, if any. */
export function activeFlood(tx: Pick<Tx, 'get'>, channel: string, now: number): Flood | undefined {
  const key = tx.get(TRUST_COLLECTIONS.openFloods, channel)?.key;
  const f = key ? tx.get(TRUST_COLLECTIONS.floods, key) : undefined;
  return f && now - f.lastAt <= FLOOD_QUIET_MS ? f : undefined;
}

/**
 * Starts the channel's flood (its summary message and the admins' notice) unless one is in
 * progress; either way notes activity now. Returns the flood.
 */
export function startFlood(tx: Tx, channel: string, ctx: NoticeContext): Flood {
  const cur = activeFlood(tx, channel, ctx.now);
  if (cur) {
    const next = { ...cur, lastAt: ctx.now };
    tx.put(TRUST_COLLECTIONS.floods, cur.key, next);
    return next;
  }
  const key = `${channel}:${ctx.now}`;
  const flood: Flood = { key, channel, startedAt: ctx.now, lastAt: ctx.now, unshown: 0, total: 0, drawn: 0 };
  tx.put(TRUST_COLLECTIONS.floods, key, flood);
  tx.put(TRUST_COLLECTIONS.openFloods, channel, { key });
  ctx.outbox.enqueue(tx, {
    op: 'post',
    renderer: FLOOD_RENDERER,
    ref: key,
    key: floodMessageKey(key),
    channel,
    priority: 'live',
  });
  tellAdmins(tx, 'flood', ctx, { channel });
  return flood;
}

/** Counts a claim into the flood's summary (the summary is redrawn by the sweep, at most once a sweep). */
export function gatherInto(tx: Tx, flood: Flood, now: number): Flood {
  const next = { ...flood, lastAt: now, unshown: flood.unshown + 1, total: flood.total + 1 };
  tx.put(TRUST_COLLECTIONS.floods, flood.key, next);
  return next;
}

/** A gathered claim the history now shows (or that is gone): one fewer unshown. */
export function ungather(tx: Tx, key: string): void {
  const f = tx.get(TRUST_COLLECTIONS.floods, key);
  if (f) tx.put(TRUST_COLLECTIONS.floods, key, { ...f, unshown: Math.max(0, f.unshown - 1) });
}

/** Asks for the summary to be redrawn if its count changed since it was last drawn. */
export function redrawFlood(tx: Tx, key: string, outbox: Pick<Outbox, 'enqueue'>): void {
  const f = tx.get(TRUST_COLLECTIONS.floods, key);
  if (!f || f.drawn === f.unshown || !tx.get(OUTBOX_MESSAGES, floodMessageKey(key))) return;
  tx.put(TRUST_COLLECTIONS.floods, key, { ...f, drawn: f.unshown });
  outbox.enqueue(tx, { op: 'update', renderer: FLOOD_RENDERER, ref: key, key: floodMessageKey(key), priority: 'edit' });
}
