/**
 * Confirms an alert against the wallet service's own transaction list (lookup by hash).
 * Runs in the background after the webhook is acknowledged, and again from a job for
 * alerts that were not found yet, so a webhook alone is never taken as the last word.
 */
import type { Logger } from '../log.js';
import { COLLECTIONS as OUTBOX_COLLECTIONS, type Outbox } from '../outbox/index.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import { normalizeHash } from './parse.js';
import { ALERT_RENDERER } from './ingest.js';
import { walletLink } from './links.js';
import { ALERT_COLLECTIONS, type Alert } from './types.js';

export interface VerifyDeps {
  store: Store;
  outbox: Pick<Outbox, 'enqueue' | 'kick'>;
  wallet: Pick<WalletClient, 'listTransactions'>;
  logger: Logger;
  now?: () => number;
}

export const MAX_VERIFY_ATTEMPTS = 20;

export function sameHash(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && normalizeHash(a) === normalizeHash(b);
}

/** Returns the verification state after the attempt; wallet errors propagate (the caller retries later). */
export async function verifyAlert(
  deps: VerifyDeps,
  alertId: string,
): Promise<Alert['verification']['state'] | 'skipped'> {
  const now = deps.now ?? Date.now;
  const alert = deps.store.get(ALERT_COLLECTIONS.alerts, alertId);
  if (!alert?.hash || alert.verification.state === 'confirmed') return 'skipped';
  const page = await deps.wallet.listTransactions({ hash: alert.hash, pageSize: 10 });
  const rec: TransactionRecord | undefined = page.records.find((r) => sameHash(r.hash, alert.hash));
  const state = await deps.store.commit((tx) => {
    const cur = tx.get(ALERT_COLLECTIONS.alerts, alertId);
    if (!cur || cur.verification.state === 'confirmed') return 'skipped' as const;
    const attempts = cur.verification.attempts + 1;
    if (rec) {
      // A line already in a batch message keeps the link it was drawn with: the message was
      // filled leaving room for a status word, not for a longer link (see src/alerts/links.ts).
      const batched = !!tx.get(OUTBOX_COLLECTIONS.messages, cur.messageKey)?.batchKey;
      const hashUrl = batched ? undefined : walletLink(rec.hashUrl);
      const addressUrl = walletLink(rec.toAddressUrl);
      tx.put(ALERT_COLLECTIONS.alerts, alertId, {
        ...cur,
        verification: {
          state: 'confirmed',
          attempts,
          checkedAt: now(),
          ...(hashUrl ? { hashUrl } : {}),
          ...(addressUrl ? { addressUrl } : {}),
          listStatus: rec.status,
        },
      });
      // An alert shown only in the hourly "unknown shape" message has no message of its own to edit.
      if (tx.get(OUTBOX_COLLECTIONS.messages, cur.messageKey))
        deps.outbox.enqueue(tx, {
          op: 'update',
          renderer: ALERT_RENDERER,
          ref: alertId,
          key: cur.messageKey,
          priority: 'edit',
        });
      return 'confirmed' as const;
    }
    tx.put(ALERT_COLLECTIONS.alerts, alertId, {
      ...cur,
      verification: { ...cur.verification, state: 'not_found', attempts, checkedAt: now() },
    });
    return 'not_found' as const;
  });
  if (state === 'confirmed') deps.outbox.kick();
  return state;
}

/** Alerts still worth checking: unconfirmed, with a hash, recent, and not checked too often. */
export function alertsToVerify(store: Store, now: number, maxAgeMs = 24 * 3_600_000): string[] {
  return store
    .find(
      ALERT_COLLECTIONS.alerts,
      (a) =>
        !!a.hash &&
        a.verification.state !== 'confirmed' &&
        a.verification.attempts < MAX_VERIFY_ATTEMPTS &&
        now - a.createdAt <= maxAgeMs,
    )
    .map((a) => a.id);
}

/**
 * In-process background verification: a small queue with a few spaced retries, so a
 * deposit that reaches the list a little after its webhook still gets confirmed quickly.
 */
export function createVerifier(deps: VerifyDeps, retryDelaysMs: readonly number[] = [2_000, 10_000, 60_000]) {
  const log = deps.logger.child({ module: 'alert-verify' });
  const timers = new Set<NodeJS.Timeout>();
  const inflight = new Set<Promise<unknown>>();
  let stopped = false;

  function schedule(alertId: string, round: number, delay: number): void {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      run(alertId, round);
    }, delay);
    timers.add(t);
  }

  function run(alertId: string, round: number): void {
    if (stopped) return;
    const p = verifyAlert(deps, alertId)
      .then((state) => {
        if (state === 'not_found' && round < retryDelaysMs.length) schedule(alertId, round + 1, retryDelaysMs[round]!);
      })
      .catch((err: unknown) => {
        log.warn({ err, alertId }, 'could not check the alert against the transaction list; will retry');
        if (round < retryDelaysMs.length) schedule(alertId, round + 1, retryDelaysMs[round]!);
      })
      .finally(() => inflight.delete(p));
    inflight.add(p);
  }

  return {
    request(alertId: string): void {
      run(alertId, 0);
    },
    async idle(): Promise<void> {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
    async stop(): Promise<void> {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.allSettled([...inflight]);
    },
  };
}
