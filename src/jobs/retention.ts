/**
 * Retention: what the `store.prune` job deletes, and what it never does.
 *
 * Pruned, once older than the retention period (policy `retention.days`, default 30):
 * - alerts untouched for that long (`updatedAt`), with everything that only serves them: their
 *   webhook events, their extra lookup keys (`alert_keys`) and the record of their Slack
 *   message (so it can no longer be edited: nothing will edit it any more);
 * - webhook events whose alert is gone (or that never had one);
 * - outbox entries that were delivered (`done`) that long ago, and batch records none of whose
 *   lines still has a message record;
 * - escalation and away notices whose message was delivered, reminder times, and the escalation
 *   marks of requests no longer waiting (retention-notices.ts).
 * Never pruned: the audit log, withdrawal requests (and their cards' message records), job
 * records, settings, and any outbox entry not yet delivered (`pending`, or `failed`: parked
 * for an admin to requeue). An alert with a message still waiting in the outbox is kept too.
 *
 * Dedupe of late webhooks: a webhook is recognised as a duplicate through its stored event and
 * its alert. Both are kept for at least the retention period after the alert last changed, and
 * that period is never shorter than WEBHOOK_RETRY_WINDOW_DAYS: a retry or a late delivery of
 * the service lands while the alert is still there. A notification replayed after that (months
 * later) is treated as a new one.
 *
 * Then closed history leaves memory (src/history/rules.ts says what, and why no decision needs
 * it): on PostgreSQL it stays in the database, read on demand; and the whole audit chain is
 * verified (src/audit/verify.ts), a failure logged as an error, the head's hash logged otherwise.
 *
 * Deletes go through ordinary commits (durable, all-or-nothing per chunk; an alert and what
 * serves it are always in the same chunk), so a crash leaves a consistent prefix and the next
 * run finishes. Then the store is compacted so the files shrink.
 */
import { ALERT_COLLECTIONS, type Alert } from '../alerts/types.js';
import type { Logger } from '../log.js';
import { COLLECTIONS as OUTBOX } from '../outbox/types.js';
import type { Policy } from '../policy/schema.js';
import type { Store, Tx } from '../store/index.js';
import { checkFullAudit } from '../audit/verify.js';
import { moveHistory, type HistoryRow } from '../history/rules.js';
import type { PolicySource } from '../policy/source.js';
import { pruneNotices, type NoticePruneResult } from './retention-notices.js';

/**
 * The longest span over which the wallet service may deliver (or retry) a webhook. The spec
 * does not publish its retries; our sandbox retries for about 4 minutes (8 attempts, backoff
 * capped at 60 s), and webhook providers commonly retry for up to 3 days. We take 3 days, so
 * retention can never drop what a retry still needs for dedupe.
 */
export const WEBHOOK_RETRY_WINDOW_DAYS = 3;

const DAY_MS = 86_400_000;
/** Deletes per commit: keeps each journal line and each pause of the event loop small. */
const CHUNK = 2_000;

export interface PruneResult extends NoticePruneResult {
  days: number;
  cutoff: number;
  alerts: number;
  events: number;
  alertKeys: number;
  outboxEntries: number;
  outboxMessages: number;
  outboxBatches: number;
  /** Records that left memory for the store's history, per collection (src/history/rules.ts). */
  history: Record<string, number>;
  /** The audit chain's full check: whether it verified, and how many entries it walked. */
  audit: { ok: boolean; walked: number };
  /** Bytes of state file + journal before and after (after the compaction). */
  bytesBefore: number;
  bytesAfter: number;
}

export interface RetentionDeps {
  /** History rows the app adds after the table's (src/history/rules.ts `moveHistory`). */
  historyRows?: readonly HistoryRow[];
  store: Store;
  policy: PolicySource<Pick<Policy, 'retention'>>;
  logger: Logger;
  now: () => number;
}

/** The retention period in force: the policy's, never less than the webhook retry window. */
export function effectiveRetentionDays(policy: Pick<Policy, 'retention'>): { days: number; clamped: boolean } {
  const wanted = policy.retention.days;
  return wanted < WEBHOOK_RETRY_WINDOW_DAYS
    ? { days: WEBHOOK_RETRY_WINDOW_DAYS, clamped: true }
    : { days: wanted, clamped: false };
}

export class Retention {
  constructor(private readonly d: RetentionDeps) {}

  async prune(): Promise<PruneResult> {
    const { store, logger } = this.d;
    const { days, clamped } = effectiveRetentionDays(this.d.policy.current());
    if (clamped) {
      logger.warn(
        { wanted: this.d.policy.current().retention.days, days },
        `retention.days is below the webhook retry window; keeping ${days} days`,
      );
    }
    const cutoff = this.d.now() - days * DAY_MS;
    const before = store.stats();
    const result: PruneResult = {
      days,
      cutoff,
      alerts: 0,
      events: 0,
      alertKeys: 0,
      outboxEntries: 0,
      outboxMessages: 0,
      outboxBatches: 0,
      notices: 0,
      marks: 0,
      nudges: 0,
      history: {},
      audit: { ok: true, walked: 0 },
      bytesBefore: before.snapshotBytes + before.journalBytes,
      bytesAfter: 0,
    };

    // Alerts and what serves them, chunk by chunk, each alert whole in one commit.
    const waiting = new Set(
      store.find(OUTBOX.entries, (e) => e.state !== 'done' && e.key !== undefined).map((e) => e.key!),
    );
    const oldAlerts = store.find(ALERT_COLLECTIONS.alerts, (a) => a.updatedAt < cutoff && !waiting.has(a.messageKey));
    const eventsByAlert = new Map<string, string[]>();
    for (const e of store.all(ALERT_COLLECTIONS.events)) {
      const list = eventsByAlert.get(e.alertId);
      if (list) list.push(e.id);
      else eventsByAlert.set(e.alertId, [e.id]);
    }
    const keysByAlert = new Map<string, string[]>();
    for (const k of store.all(ALERT_COLLECTIONS.keys)) {
      const list = keysByAlert.get(k.alertId);
      if (list) list.push(k.key);
      else keysByAlert.set(k.alertId, [k.key]);
    }
    for (let i = 0; i < oldAlerts.length; ) {
      const chunk: Alert[] = [];
      let ops = 0;
      while (i < oldAlerts.length && (ops < CHUNK || chunk.length === 0)) {
        const a = oldAlerts[i++]!;
        chunk.push(a);
        ops += 2 + (eventsByAlert.get(a.id)?.length ?? 0) + (keysByAlert.get(a.id)?.length ?? 0);
      }
      const n = await store.commit((tx) => this.deleteAlerts(tx, chunk, eventsByAlert, keysByAlert, cutoff));
      result.alerts += n.alerts;
      result.events += n.events;
      result.alertKeys += n.keys;
      result.outboxMessages += n.messages;
    }

    // Events left without an alert.
    const orphans = store
      .find(ALERT_COLLECTIONS.events, (e) => e.receivedAt < cutoff && !store.get(ALERT_COLLECTIONS.alerts, e.alertId))
      .map((e) => e.id);
    result.events += await this.deleteIds(orphans, (tx, id) => {
      const e = tx.get(ALERT_COLLECTIONS.events, id);
      if (!e || e.receivedAt >= cutoff || tx.get(ALERT_COLLECTIONS.alerts, e.alertId)) return false;
      tx.delete(ALERT_COLLECTIONS.events, id);
      return true;
    });

    // Delivered outbox entries.
    const delivered = store
      .find(OUTBOX.entries, (e) => e.state === 'done' && (e.finishedAt ?? e.createdAt) < cutoff)
      .map((e) => e.id);
    result.outboxEntries += await this.deleteIds(delivered, (tx, id) => {
      const e = tx.get(OUTBOX.entries, id);
      // Read again inside the commit: never delete an entry that is (again) waiting.
      if (e?.state !== 'done' || (e.finishedAt ?? e.createdAt) >= cutoff) return false;
      tx.delete(OUTBOX.entries, id);
      return true;
    });

    // Batch records no line of which is still a message (their edits can no longer happen).
    const batches = store.find(OUTBOX.batches, (b) => b.createdAt < cutoff).map((b) => b.key);
    result.outboxBatches += await this.deleteIds(batches, (tx, key) => {
      const b = tx.get(OUTBOX.batches, key);
      if (!b || b.createdAt >= cutoff) return false;
      if (b.members.some((m) => (m.key && tx.get(OUTBOX.messages, m.key)) || tx.get(OUTBOX.entries, m.entryId)))
        return false;
      tx.delete(OUTBOX.batches, key);
      const own = tx.get(OUTBOX.messages, key);
      if (own && tx.get(OUTBOX.entries, own.entryId)?.state !== 'pending') tx.delete(OUTBOX.messages, key);
      return true;
    });

    Object.assign(result, await pruneNotices(store, cutoff, (ids, del) => this.deleteIds(ids, del)));

    result.history = await moveHistory(store, this.d.now(), this.d.historyRows);
    // The whole chain, every day (a check from the checkpoint misses an edit made before it); the
    // head's hash goes to the log, a record kept outside the database to compare a restore against.
    const check = await checkFullAudit(store, this.d.now);
    result.audit = { ok: check.ok, walked: check.walked };
    if (check.ok) logger.info({ entries: check.count, headHash: check.lastHash }, 'the whole audit log verifies');
    else
      logger.error(
        { seq: check.seq, reason: check.reason },
        'the audit log does not verify: /treasury audit export sends it with the entry where it breaks',
      );

    await store.compact();
    const after = store.stats();
    result.bytesAfter = after.snapshotBytes + after.journalBytes;
    logger.info(
      { ...result, cutoff: new Date(cutoff).toISOString() },
      'pruned records older than the retention period',
    );
    return result;
  }

  private deleteAlerts(
    tx: Tx,
    chunk: Alert[],
    eventsByAlert: Map<string, string[]>,
    keysByAlert: Map<string, string[]>,
    cutoff: number,
  ): { alerts: number; events: number; keys: number; messages: number } {
    const n = { alerts: 0, events: 0, keys: 0, messages: 0 };
    for (const seen of chunk) {
      // Read again inside the commit: an alert a webhook has just changed stays.
      const a = tx.get(ALERT_COLLECTIONS.alerts, seen.id);
      if (!a || a.updatedAt >= cutoff) continue;
      tx.delete(ALERT_COLLECTIONS.alerts, a.id);
      n.alerts++;
      for (const id of eventsByAlert.get(a.id) ?? []) {
        if (!tx.get(ALERT_COLLECTIONS.events, id)) continue;
        tx.delete(ALERT_COLLECTIONS.events, id);
        n.events++;
      }
      for (const key of keysByAlert.get(a.id) ?? []) {
        if (tx.get(ALERT_COLLECTIONS.keys, key)?.alertId !== a.id) continue;
        tx.delete(ALERT_COLLECTIONS.keys, key);
        n.keys++;
      }
      for (const key of [a.messageKey, `${a.messageKey}:failed`]) {
        const m = tx.get(OUTBOX.messages, key);
        if (!m) continue;
        // A message whose entry is still waiting is never dropped (it would be posted with no record).
        const entry = tx.get(OUTBOX.entries, m.entryId);
        if (entry && entry.state !== 'done') continue;
        tx.delete(OUTBOX.messages, key);
        n.messages++;
      }
    }
    return n;
  }

  /** Deletes ids in chunks of one commit each; `del` re-checks inside the commit and says whether it deleted. */
  private async deleteIds(ids: string[], del: (tx: Tx, id: string) => boolean): Promise<number> {
    let total = 0;
    for (let i = 0; i < ids.length; i += CHUNK) {
      const slice = ids.slice(i, i + CHUNK);
      total += await this.d.store.commit((tx) => slice.filter((id) => del(tx, id)).length);
    }
    return total;
  }
}
