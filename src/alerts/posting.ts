/**
 * A notification is a claim (ARCHITECTURE.md invariant 14): how an alert reaches Slack while
 * the wallet's history has not corroborated it, and what happens once the history answers.
 *
 * - Any transaction told by a webhook (deposit, withdrawal, remittance, transfer) is a claim
 *   until the transaction list shows its own record with the same amount, currency and network
 *   (claims.ts decides). Its first message says so ("Reported by the wallet service ·
 *   checking"); it waits behind corroborated alerts in the outbox (priority `claim`), and
 *   shares a batch message with others unless it is a failure of note.
 * - @here for a large deposit is never in the alert itself (an edit cannot ping, and the first
 *   post is only a claim): once the history confirms it, a separate short post with @here
 *   follows (`ALERT_MENTION_RENDERER`, key `<alert key>:here`, at most one per alert).
 * - Its own list record naming another amount, currency or network is a contradiction: the
 *   alert says so, the audit log records it, and the admins are told (once: notices.ts). No
 *   record of it after `alerts.verify_grace` is flagged the same way (flagUnconfirmed).
 * - During a flood (notices.ts) a new claim is gathered into the channel's summary instead of a
 *   message of its own; if the history later confirms it, it is posted then, as news.
 */
import { screenDeposit, type DepositScreening } from './sanctions.js';
import { appendAudit } from '../audit/log.js';
import { COLLECTIONS as OUTBOX_COLLECTIONS, type Outbox, type OutboxPriority } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Tx } from '../store/index.js';
import type { Verdict } from './claims.js';
import { activeFlood, gatherInto, tellAdmins, ungather } from './notices.js';
import { KIND_RULES } from '../alert-kinds.js';
import { isFailure } from './status.js';
import { ALERT_COLLECTIONS, type Alert } from './types.js';

export const ALERT_RENDERER = 'alert';
export const ALERT_STATUS_RENDERER = 'alert.status';
/** Several alerts waiting for one channel at once: one message, a line each (src/slack/alert-messages.ts). */
export const ALERT_BATCH_RENDERER = 'alert.batch';
/** The short @here post that follows a large deposit once the wallet's history confirms it. */
export const ALERT_MENTION_RENDERER = 'alert.mention';

export function alertMessageKey(alertId: string): string {
  return `alert:${alertId}`;
}

export const mentionKey = (alertId: string) => `${alertMessageKey(alertId)}:here`;

export interface PostContext {
  outbox: Pick<Outbox, 'enqueue' | 'reprioritize'>;
  policy: Policy;
  now: number;
  /** Deposits from sanctioned senders are flagged (sanctions.ts). */
  screening?: DepositScreening;
}

/** A transaction a webhook told of that the wallet's history has not confirmed (yet), of any kind. */
export function isClaim(a: Pick<Alert, 'source' | 'verification'>): boolean {
  return a.source === 'webhook' && a.verification.state !== 'confirmed';
}

/** Whether the alert was ever told as pending (money on its way) before now. */
export function seenPending(a: Pick<Alert, 'history'>): boolean {
  return a.history.some((h) => h.applied && (h.status === 'PENDING' || h.status === 'ABOUT_TO_INITIATE'));
}

/**
 * Whether its failure keeps a message of its own (ALERT_KINDS' `failureOfNote`): a deposit's only
 * if it was ever told as pending (one that never arrived moved no money).
 */
export function failureIsNews(a: Pick<Alert, 'kind' | 'history'>): boolean {
  return KIND_RULES[a.kind].failureOfNote === 'always' || seenPending(a);
}

function postPriority(a: Alert): OutboxPriority {
  if (a.source === 'reconciliation') return 'reconciliation';
  return isClaim(a) ? 'claim' : 'live';
}

/**
 * The alert's own message (or its line in a batch message), as for any new alert; or, during
 * a flood in its channel, a claim is gathered into the summary (returned marked: the caller
 * stores what is returned).
 */
export function enqueueAlertPost(tx: Tx, alert: Alert, ctx: PostContext): Alert {
  if (isClaim(alert)) {
    const flood = activeFlood(tx, alert.channel, ctx.now);
    if (flood) return { ...alert, gathered: gatherInto(tx, flood, ctx.now).key };
  }
  const confirmed = alert.verification.state === 'confirmed';
  // A large confirmed one keeps a message of its own; so does a failure, except a deposit's
  // that was never seen pending (it moved no money: a line of a batch message says it).
  const failureOfNote = isFailure(alert.status) && failureIsNews(alert);
  // A deposit from a sanctioned sender too: its flag must not be one line among many.
  const own = (alert.mention && confirmed) || failureOfNote || !!alert.sanctioned;
  const priority = postPriority(alert);
  ctx.outbox.enqueue(tx, {
    op: 'post',
    renderer: ALERT_RENDERER,
    ref: alert.id,
    key: alert.messageKey,
    channel: alert.channel,
    priority,
    ...(own ? {} : { batch: { renderer: ALERT_BATCH_RENDERER, group: alert.kind } }),
  });
  if (alert.mention && confirmed && KIND_RULES[alert.kind].mentions) enqueueMention(tx, alert, ctx, priority);
  return alert;
}

function enqueueMention(tx: Tx, alert: Alert, ctx: PostContext, priority: OutboxPriority): void {
  const key = mentionKey(alert.id);
  if (tx.get(OUTBOX_COLLECTIONS.messages, key)) return;
  ctx.outbox.enqueue(tx, {
    op: 'post',
    renderer: ALERT_MENTION_RENDERER,
    ref: alert.id,
    key,
    channel: alert.channel,
    priority,
  });
}

/** Where the alert's message stands: none queued, waiting to be posted, in Slack, or given up (skipped). */
export function shownState(tx: Pick<Tx, 'get'>, key: string): 'none' | 'waiting' | 'shown' | 'dropped' {
  const own = tx.get(OUTBOX_COLLECTIONS.messages, key);
  if (!own) return 'none';
  const m = own.batchKey ? tx.get(OUTBOX_COLLECTIONS.messages, own.batchKey) : own;
  if (m?.ts) return 'shown';
  return m && tx.get(OUTBOX_COLLECTIONS.entries, m.entryId)?.state === 'pending' ? 'waiting' : 'dropped';
}

/**
 * Redraws the alert's message if it is in Slack or on its way (a post being sent now was drawn
 * before this change; an edit queued behind a post that is drawn later collapses into it).
 */
export function refreshAlert(tx: Tx, alert: Alert, outbox: Pick<Outbox, 'enqueue'>): void {
  const state = shownState(tx, alert.messageKey);
  if (state !== 'shown' && state !== 'waiting') return;
  outbox.enqueue(tx, {
    op: 'update',
    renderer: ALERT_RENDERER,
    ref: alert.id,
    key: alert.messageKey,
    priority: 'edit',
  });
}

/**
 * The wallet's history lists this alert's own record (claims.ts `judge`): confirmed if it
 * agrees, contradicted if it names another amount, currency or network. Stores the alert;
 * returns the outcome.
 */
export function applyHistory(
  tx: Tx,
  cur: Alert,
  verdict: Extract<Verdict, { kind: 'match' | 'mismatch' }>,
  ctx: PostContext,
): 'confirmed' | 'contradicted' | 'skipped' {
  if (cur.verification.state === 'confirmed' || cur.verification.state === 'contradicted') return 'skipped';
  const l = verdict.listed;
  if (verdict.kind === 'mismatch') {
    const diff = verdict.diff;
    const next: Alert = {
      ...cur,
      verification: {
        ...cur.verification,
        state: 'contradicted',
        checkedAt: ctx.now,
        mismatch: diff,
        ...(l.status ? { listStatus: l.status } : {}),
      },
      updatedAt: ctx.now,
    };
    tx.put(ALERT_COLLECTIONS.alerts, cur.id, next);
    appendAudit(tx, {
      actor: 'system',
      action: 'alert.contradicted',
      subject: cur.id,
      details: { kind: cur.kind, hash: cur.hash ?? null, mismatch: diff },
      at: ctx.now,
    });
    tellAdmins(tx, 'contradiction', ctx, { alert: next });
    refreshAlert(tx, next, ctx.outbox);
    return 'contradicted';
  }
  // A line already in a batch message keeps the link it was drawn with: the message was
  // filled leaving room for a status word, not for a longer link (see src/alerts/links.ts).
  const batched = !!tx.get(OUTBOX_COLLECTIONS.messages, cur.messageKey)?.batchKey;
  let next: Alert = {
    ...cur,
    verification: {
      state: 'confirmed',
      attempts: cur.verification.attempts,
      checkedAt: ctx.now,
      // A withdrawal of ours keeps showing its request's outcome.
      ...(cur.verification.request ? { request: cur.verification.request } : {}),
      ...(l.hashUrl && !batched ? { hashUrl: l.hashUrl } : {}),
      ...(l.addressUrl ? { addressUrl: l.addressUrl } : {}),
      ...(l.status ? { listStatus: l.status } : {}),
    },
    updatedAt: ctx.now,
  };
  // The history names the sender when the notification did not: a sanctioned one is flagged now.
  next = screenDeposit(tx, next, ctx.screening, ctx.now, l.fromAddress);
  const wasGathered = cur.gathered;
  if (wasGathered) {
    ungather(tx, wasGathered);
    delete next.gathered;
  }
  const state = shownState(tx, cur.messageKey);
  let shown = state === 'shown' || state === 'waiting';
  if (state === 'shown') refreshAlert(tx, next, ctx.outbox);
  else if (state === 'waiting') {
    // Corroborated now: its post goes ahead of the claims still waiting (a large one as a
    // message of its own, as large confirmed deposits are); the edit covers a post in flight.
    ctx.outbox.reprioritize(tx, cur.messageKey, 'live', { ownMessage: next.mention && KIND_RULES[next.kind].mentions });
    refreshAlert(tx, next, ctx.outbox);
  } else if (wasGathered) {
    // Gathered into a flood summary: posted now, as news (under a fresh key if its first post was skipped).
    if (state === 'dropped') next = { ...next, messageKey: `${alertMessageKey(cur.id)}:${ctx.now}` };
    next = enqueueAlertPost(tx, next, ctx);
    shown = true;
  }
  tx.put(ALERT_COLLECTIONS.alerts, cur.id, next);
  if (shown && next.mention && KIND_RULES[next.kind].mentions) enqueueMention(tx, next, ctx, 'live');
  return 'confirmed';
}

/**
 * A transaction reported confirmed that the wallet's history still does not show after the grace:
 * flagged (its message says it may be forged), audited, and the admins told (once: notices.ts).
 */
export function flagUnconfirmed(tx: Tx, cur: Alert, graceMs: number, ctx: PostContext): void {
  const next: Alert = {
    ...cur,
    verification: { ...cur.verification, state: 'not_found', flaggedAt: ctx.now, graceMs },
    updatedAt: ctx.now,
  };
  tx.put(ALERT_COLLECTIONS.alerts, cur.id, next);
  appendAudit(tx, {
    actor: 'system',
    action: 'alert.not_in_history',
    subject: cur.id,
    details: { kind: cur.kind, hash: cur.hash ?? null, graceMs },
    at: ctx.now,
  });
  tellAdmins(tx, 'not_found', ctx, { alert: next, graceMs });
  refreshAlert(tx, next, ctx.outbox);
}
