/**
 * Confirms one alert against the wallet service's own transaction list by its hash: the path
 * for withdrawals and other non-deposit alerts (few, and our own), and the sweep's safety net
 * for a deposit whose record the batched sweep (sweep.ts) could not have seen. Deposits at
 * volume are checked by the sweep, many hashes per list call.
 */
import type { PagedWallet } from '../wallet/pager.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { Store } from '../store/index.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import { normalizeHash } from './parse.js';
import { walletLink } from './links.js';
import { applyHistory, type Listed } from './posting.js';
import { ALERT_COLLECTIONS, type Alert } from './types.js';
import type { PolicySource } from '../policy/source.js';

export interface VerifyDeps {
  store: Store;
  outbox: Pick<Outbox, 'enqueue' | 'kick' | 'reprioritize'>;
  wallet: PagedWallet;
  policy: PolicySource;
  logger: Logger;
  now?: () => number;
}

export const MAX_VERIFY_ATTEMPTS = 20;

export function sameHash(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && normalizeHash(a) === normalizeHash(b);
}

/** What a list record says, in the terms a claim is compared in. */
export function listedOf(rec: TransactionRecord): Listed {
  const hashUrl = walletLink(rec.hashUrl);
  const addressUrl = walletLink(rec.toAddressUrl);
  const currency = rec.currency?.name ?? rec.currencyName;
  const network = rec.network?.name ?? rec.networkName;
  return {
    amount: rec.amount,
    ...(currency ? { currency } : {}),
    ...(network ? { network } : {}),
    status: rec.status,
    ...(hashUrl ? { hashUrl } : {}),
    ...(addressUrl ? { addressUrl } : {}),
  };
}

/** Returns the verification state after the attempt; wallet errors propagate (the caller retries later). */
export async function verifyAlert(
  deps: VerifyDeps,
  alertId: string,
): Promise<Alert['verification']['state'] | 'skipped'> {
  const now = deps.now ?? Date.now;
  const alert = deps.store.get(ALERT_COLLECTIONS.alerts, alertId);
  const settled = (a: Alert) => a.verification.state === 'confirmed' || a.verification.state === 'contradicted';
  if (!alert?.hash || settled(alert)) return 'skipped';
  const page = await deps.wallet.listTransactions({ hash: alert.hash, pageSize: 10 });
  const rec: TransactionRecord | undefined = page.records.find((r) => sameHash(r.hash, alert.hash));
  const state = await deps.store.commit((tx) => {
    const cur = tx.get(ALERT_COLLECTIONS.alerts, alertId);
    if (!cur || settled(cur)) return 'skipped' as const;
    const attempts = cur.verification.attempts + 1;
    const counted: Alert = { ...cur, verification: { ...cur.verification, attempts } };
    if (rec) {
      const ctx = { outbox: deps.outbox, policy: deps.policy.current(), now: now() };
      return applyHistory(tx, counted, listedOf(rec), ctx);
    }
    tx.put(ALERT_COLLECTIONS.alerts, alertId, {
      ...counted,
      verification: { ...counted.verification, state: 'not_found', checkedAt: now() },
    });
    return 'not_found' as const;
  });
  if (state !== 'not_found') deps.outbox.kick();
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
        a.verification.state !== 'contradicted' &&
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
