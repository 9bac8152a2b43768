/**
 * The one place an event becomes (or changes) an alert. It runs inside a store.commit, so
 * the duplicate check, the alert write and the outbox entries are one atomic step: two
 * concurrent deliveries of the same notification cannot both create an alert.
 */
import { screenDeposit, type DepositScreening } from './sanctions.js';
import { COLLECTIONS as OUTBOX_COLLECTIONS, type Outbox } from '../outbox/index.js';
import type { PriceSnapshot } from '../prices/types.js';
import { currentValueAt } from '../prices/value.js';
import type { Policy } from '../policy/schema.js';
import type { Tx } from '../store/index.js';
import { eventKey, lookupOnlyKeys, normalizeHash, transactionKeys, type WebhookEvent } from './parse.js';
import {
  ALERT_RENDERER,
  ALERT_STATUS_RENDERER,
  alertMessageKey,
  applyHistory,
  enqueueAlertPost,
  isClaim,
  failureIsNews,
} from './posting.js';
import { judge, type Listed } from './claims.js';
import { routeAlert, shouldMention } from './routing.js';
import { advances, isFailure, isTerminal } from './status.js';
import { noteUnknown } from './unknown.js';
import { ALERT_COLLECTIONS, type Alert, type AlertSource, type StoredEvent, type Verification } from './types.js';
import {
  beforeWatermark,
  HISTORY_MESSAGE_KEY,
  HISTORY_RENDERER,
  HISTORY_WINDOW_MS,
  WATERMARK,
  type Watermark,
} from './watermark.js';
import { stripUndefined } from '../util/strip-undefined.js';
import { KIND_RULES } from '../alert-kinds.js';

export {
  ALERT_RENDERER,
  ALERT_STATUS_RENDERER,
  ALERT_BATCH_RENDERER,
  ALERT_MENTION_RENDERER,
  alertMessageKey,
} from './posting.js';

/** The ref of an ALERT_STATUS_RENDERER entry: one line of the alert's history. */
export function statusChangeRef(alertId: string, historyIndex: number): string {
  return `${alertId}#${historyIndex}`;
}

export function readStatusChangeRef(ref: string): { alertId: string; historyIndex: number } | undefined {
  const i = ref.lastIndexOf('#');
  const tail = ref.slice(i + 1);
  return i > 0 && /^\d+$/.test(tail) ? { alertId: ref.slice(0, i), historyIndex: Number(tail) } : undefined;
}

export interface IngestContext {
  outbox: Pick<Outbox, 'enqueue' | 'reprioritize'>;
  policy: Policy;
  now: number;
  /** The price cache now: `@here` by value (alerts.mention_above.value). */
  prices?: PriceSnapshot;
  /** Deposits from sanctioned senders are flagged (sanctions.ts). */
  screening?: DepositScreening;
}

export interface IngestInput {
  event: WebhookEvent;
  source: AlertSource;
  raw?: string;
  /** Known at ingestion (reconciliation reads the transaction list itself). */
  verification?: Verification;
}

export type IngestResult =
  | { outcome: 'duplicate'; eventId: string; alertId: string }
  | { outcome: 'created' | 'advanced' | 'recorded'; eventId: string; alertId: string; alert: Alert };

/**
 * Fields an event may fill in when the alert lacks them (a reconciliation-born alert gets the
 * webhook's details; a withdrawal alerted before it had a hash keeps the hash once one tells it).
 */
const FILLABLE = [
  'hash',
  'amount',
  'charge',
  'totalAmount',
  'currency',
  'network',
  'clientEmail',
  'receiveAddress',
  'depositAddress',
  'receiverAddress',
  'senderAddress',
  'merchantReference',
  'reference',
] as const;

/** Whether an alert found under a secondary key can be this event's transaction: nothing they both name differs. */
function compatible(a: Alert, e: WebhookEvent): boolean {
  if (a.merchantReference && e.merchantReference && a.merchantReference !== e.merchantReference) return false;
  if (a.hash && e.hash && normalizeHash(a.hash) !== normalizeHash(e.hash)) return false;
  return true;
}

/** The alert this event belongs to: filed under its first key, or found through another one. */
function findAlert(tx: Tx, keys: readonly string[], event: WebhookEvent): Alert | undefined {
  for (const [i, key] of keys.entries()) {
    const id = tx.get(ALERT_COLLECTIONS.keys, key)?.alertId ?? key;
    const a = tx.get(ALERT_COLLECTIONS.alerts, id);
    if (a && (i === 0 || compatible(a, event))) return a;
  }
  return undefined;
}

/** Lets the event's other keys find this alert later (first writer wins: an existing key is never repointed). */
function recordKeys(tx: Tx, keys: readonly string[], alertId: string): void {
  for (const key of keys) {
    if (key === alertId || tx.get(ALERT_COLLECTIONS.keys, key) || tx.get(ALERT_COLLECTIONS.alerts, key)) continue;
    tx.put(ALERT_COLLECTIONS.keys, key, { key, alertId });
  }
}

/**
 * A replayed notification about a deposit from before the watermark: counted in the one
 * history line, unless the transaction-list count behind that line covers it (inside its
 * window; before the line is reported, the report counts it). Other kinds are stored only:
 * the line counts deposits.
 */
function countIntoHistory(tx: Tx, wm: Watermark, event: WebhookEvent, ctx: IngestContext): void {
  if (event.kind !== 'deposit') return;
  const listCounted = !wm.historyReported || wm.historyWindowMs !== undefined;
  const windowStart = wm.at - (wm.historyWindowMs ?? HISTORY_WINDOW_MS);
  if (listCounted && event.occurredAt! >= windowStart) return;
  const next: Watermark = { ...wm, replayedBefore: (wm.replayedBefore ?? 0) + 1 };
  if (wm.historyReported) {
    next.historyCount = (wm.historyCount ?? 0) + 1;
    const edit = !!tx.get(OUTBOX_COLLECTIONS.messages, HISTORY_MESSAGE_KEY);
    ctx.outbox.enqueue(tx, {
      op: edit ? 'update' : 'post',
      renderer: HISTORY_RENDERER,
      ref: WATERMARK.key,
      key: HISTORY_MESSAGE_KEY,
      ...(edit ? {} : { channel: ctx.policy.channels.alerts }),
      priority: 'reconciliation',
    });
  }
  tx.put<Watermark>(WATERMARK.collection, WATERMARK.key, next);
}

export function ingestEvent(tx: Tx, input: IngestInput, ctx: IngestContext): IngestResult {
  const { event, source } = input;
  // Reconciliation filters history itself; a webhook may be the service replaying old notifications.
  const wm =
    source === 'webhook' && KIND_RULES[event.kind].readable
      ? tx.get<Watermark>(WATERMARK.collection, WATERMARK.key)
      : undefined;
  const fromHistory = beforeWatermark(wm, event.occurredAt);
  const keys = transactionKeys(event);
  const existing = findAlert(tx, [...keys, ...lookupOnlyKeys(event)], event);
  const alertId = existing?.id ?? keys[0]!;
  // Per alert, not per key: the same status told with or without the hash is one event.
  const eventId = eventKey(event, alertId);
  const seen = tx.get(ALERT_COLLECTIONS.events, eventId);
  if (seen) return { outcome: 'duplicate', eventId, alertId: seen.alertId };

  const stored: StoredEvent = {
    id: eventId,
    alertId,
    source,
    receivedAt: ctx.now,
    event,
    ...(input.raw !== undefined ? { raw: input.raw } : {}),
  };
  tx.put(ALERT_COLLECTIONS.events, eventId, stored);
  recordKeys(tx, keys, alertId);

  if (!existing) {
    const routeInput = { kind: event.kind, currency: event.currency, network: event.network, amount: event.amount };
    const channel = routeAlert(ctx.policy, routeInput);
    const mention = shouldMention(ctx.policy, routeInput, ctx.prices);
    // Recorded with the alert: its messages show the value it had when it came (src/slack/alert-parts.ts),
    // at the current price (the @here rule above judges at the policy price).
    const value =
      ctx.prices && event.amount && event.currency
        ? currentValueAt(ctx.prices, event.currency, event.amount)
        : undefined;
    const fresh: Alert = stripUndefined({
      id: alertId,
      kind: event.kind,
      typeName: event.typeName,
      status: event.statusName,
      hash: event.hash,
      amount: event.amount,
      charge: event.charge,
      totalAmount: event.totalAmount,
      currency: event.currency,
      network: event.network,
      clientEmail: event.clientEmail,
      receiveAddress: event.receiveAddress,
      depositAddress: event.depositAddress,
      receiverAddress: event.receiverAddress,
      senderAddress: event.senderAddress,
      merchantReference: event.merchantReference,
      reference: event.reference,
      extra: !KIND_RULES[event.kind].readable || Object.keys(event.extra).length ? event.extra : undefined,
      channel,
      mention,
      value,
      source,
      verification: input.verification ?? { state: 'unverified', attempts: 0 },
      history: [
        { ...(event.statusName ? { status: event.statusName } : {}), at: ctx.now, source, applied: true, eventId },
      ],
      messageKey: alertMessageKey(alertId),
      createdAt: ctx.now,
      updatedAt: ctx.now,
      historical: fromHistory ? true : undefined,
    });
    // Its sender on the sanctions list: flagged, never @here, the admins told (before anything is posted).
    const alert = screenDeposit(tx, fresh, ctx.screening, ctx.now);
    tx.put(ALERT_COLLECTIONS.alerts, alertId, alert);
    if (!KIND_RULES[event.kind].readable) {
      // Stored and counted; shown in the channel's hourly "unknown shape" message, never one post each.
      noteUnknown(tx, alert, ctx);
    } else if (fromHistory) {
      // History, not news: stored (a later notification finds it) and counted, not alerted.
      countIntoHistory(tx, wm!, event, ctx);
    } else {
      const posted = enqueueAlertPost(tx, alert, ctx);
      if (posted !== alert) tx.put(ALERT_COLLECTIONS.alerts, alertId, posted);
      return { outcome: 'created', eventId, alertId, alert: posted };
    }
    return { outcome: 'created', eventId, alertId, alert };
  }

  const applied = advances(existing.status, event.statusName);
  const next: Alert = { ...existing, history: [...existing.history], updatedAt: ctx.now };
  next.history.push({
    ...(event.statusName ? { status: event.statusName } : {}),
    at: ctx.now,
    source,
    applied,
    eventId,
  });
  let filled = false;
  for (const f of FILLABLE) {
    if (next[f] === undefined && event[f] !== undefined) {
      next[f] = event[f];
      filled = true;
    }
  }
  if (applied) next.status = event.statusName;
  // Pending before the watermark, settled after it: that is news, alerted as a new alert would be.
  const news = existing.historical && applied && !fromHistory && isTerminal(next.status);
  if (news) delete next.historical;
  // The transaction list speaks (reconciliation): it confirms the claim, or contradicts it.
  const state = next.verification.state;
  const l =
    input.verification?.state === 'confirmed' && state !== 'confirmed' && state !== 'contradicted'
      ? listedOf(event, input.verification)
      : undefined;
  const verdict = l && judge(next, [l]);
  if (news) {
    if (verdict?.kind === 'match') next.verification = input.verification!;
    const posted = enqueueAlertPost(tx, next, ctx);
    tx.put(ALERT_COLLECTIONS.alerts, alertId, posted);
    return { outcome: 'advanced', eventId, alertId, alert: posted };
  }
  tx.put(ALERT_COLLECTIONS.alerts, alertId, next);
  // Through the one path that also posts a gathered claim, adds the @here, or tells the admins.
  if (verdict?.kind === 'match' || verdict?.kind === 'mismatch') applyHistory(tx, next, verdict, ctx);
  const cur = tx.get(ALERT_COLLECTIONS.alerts, alertId)!;
  // An alert shown only in the hourly "unknown shape" message (or gathered into a flood summary)
  // has no message of its own to edit.
  if (!tx.get(OUTBOX_COLLECTIONS.messages, cur.messageKey))
    return { outcome: applied ? 'advanced' : 'recorded', eventId, alertId, alert: cur };
  // The message (or its line in a batch message) is edited to show a new status, or new details
  // (the hash at last, say) even when the status stays.
  if (applied || filled) {
    ctx.outbox.enqueue(tx, {
      op: 'update',
      renderer: ALERT_RENDERER,
      ref: alertId,
      key: cur.messageKey,
      priority: 'edit',
    });
  }
  if (applied) {
    // The thread gets a line saying when the status changed.
    ctx.outbox.enqueue(tx, {
      op: 'reply',
      renderer: ALERT_STATUS_RENDERER,
      ref: statusChangeRef(alertId, cur.history.length - 1),
      key: cur.messageKey,
      priority: 'detail',
    });
    // A failure keeps a message of its own: if the alert went out as a line of a batch message,
    // it gets one now. Not a deposit's never seen pending: it moved no money.
    const ofNote = failureIsNews({ kind: cur.kind, history: existing.history });
    if (isFailure(cur.status) && !isFailure(existing.status) && ofNote) {
      ctx.outbox.enqueue(tx, {
        op: 'post',
        renderer: ALERT_RENDERER,
        ref: alertId,
        key: `${cur.messageKey}:failed`,
        channel: cur.channel,
        priority: isClaim(cur) ? 'claim' : 'live',
        ifBatched: cur.messageKey,
      });
    }
  }
  return { outcome: applied ? 'advanced' : 'recorded', eventId, alertId, alert: cur };
}

/** What a reconciliation finding (an event made from a deposit's list record) says, as compared with a claim. */
function listedOf(e: WebhookEvent, v: Verification): Listed {
  return {
    type: 'deposit',
    ...(e.amount ? { amount: e.amount } : {}),
    ...(e.currency ? { currency: e.currency } : {}),
    ...(e.network ? { network: e.network } : {}),
    ...(v.listStatus ? { status: v.listStatus } : {}),
    ...(v.hashUrl ? { hashUrl: v.hashUrl } : {}),
  };
}
