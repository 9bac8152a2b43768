/**
 * Holds one alert to the wallet service's own transaction list by its hash (claims.ts judges):
 * the path for withdrawals, remittances and transfers (few, and often our own), and the sweep's
 * safety net for a deposit whose record the batched sweep (sweep.ts) could not have seen.
 * Deposits at volume are checked by the sweep, many hashes per list call. A claim reported
 * confirmed and still not backed after `alerts.verify_grace` is flagged here, as the sweep
 * flags deposits.
 */
import type { PagedWallet } from '../wallet/pager.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { Reads, Store, Tx } from '../store/index.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import { judge, ourWithdrawal, overdue, type Listed, type OurWithdrawal, type OurWithdrawalView } from './claims.js';
import { checkable, KIND_RULES } from '../alert-kinds.js';
import { normalizeHash } from './parse.js';
import { walletLink } from './links.js';
import { applyHistory, flagUnconfirmed, refreshAlert } from './posting.js';
import { ALERT_COLLECTIONS, type Alert } from './types.js';
import type { PolicySource } from '../policy/source.js';
import type { DepositScreening } from './sanctions.js';

export interface VerifyDeps {
  store: Store;
  outbox: Pick<Outbox, 'enqueue' | 'kick' | 'reprioritize'>;
  wallet: PagedWallet;
  policy: PolicySource;
  logger: Logger;
  now?: () => number;
  /** The app's own withdrawal request under this reference, if it made one (wired in src/app/alerts.ts). */
  ourWithdrawal?: (reads: Reads, merchantReference: string) => OurWithdrawalView | undefined;
  /** Deposits from sanctioned senders are flagged (sanctions.ts). */
  screening?: DepositScreening;
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
    ...(rec.type !== 'unknown' ? { type: rec.type } : {}),
    ...(rec.reference ? { reference: rec.reference } : {}),
    amount: rec.amount,
    ...(currency ? { currency } : {}),
    ...(network ? { network } : {}),
    status: rec.status,
    ...(hashUrl ? { hashUrl } : {}),
    ...(addressUrl ? { addressUrl } : {}),
    ...(rec.fromAddress ? { fromAddress: rec.fromAddress } : {}),
  };
}

const settled = (a: Alert) => a.verification.state === 'confirmed' || a.verification.state === 'contradicted';

/** The request behind a withdrawal alert, if the app made it. */
function oursOf(deps: VerifyDeps, tx: Tx, a: Alert): OurWithdrawal | undefined {
  if (!KIND_RULES[a.kind].ours || !a.merchantReference || !deps.ourWithdrawal) return undefined;
  const view = deps.ourWithdrawal(tx, a.merchantReference);
  return view && ourWithdrawal(a.merchantReference, view);
}

export type VerifyOutcome = Alert['verification']['state'] | 'waiting' | 'skipped';

/**
 * Returns the verification state after the attempt (`waiting`: the history shows a withdrawal
 * of ours whose request has not settled yet); wallet errors propagate (the caller retries later).
 */
export async function verifyAlert(deps: VerifyDeps, alertId: string): Promise<VerifyOutcome> {
  const now = deps.now ?? Date.now;
  const alert = deps.store.get(ALERT_COLLECTIONS.alerts, alertId);
  if (!alert?.hash || settled(alert) || !checkable(alert.kind)) return 'skipped';
  const page = await deps.wallet.listTransactions({ hash: alert.hash, pageSize: 10 });
  const records = page.records.filter((r) => sameHash(r.hash, alert.hash)).map(listedOf);
  const state = await deps.store.commit((tx): VerifyOutcome => {
    const cur = tx.get(ALERT_COLLECTIONS.alerts, alertId);
    if (!cur || settled(cur)) return 'skipped';
    const policy = deps.policy.current();
    const ctx = { outbox: deps.outbox, policy, now: now(), ...(deps.screening ? { screening: deps.screening } : {}) };
    const ours = oursOf(deps, tx, cur);
    const request = ours && (ours.settled ? { settled: ours.settled } : {});
    const counted: Alert = {
      ...cur,
      verification: {
        ...cur.verification,
        attempts: cur.verification.attempts + 1,
        ...(request ? { request } : {}),
      },
    };
    const verdict = judge(counted, records, ours);
    if (verdict.kind === 'match' || verdict.kind === 'mismatch') return applyHistory(tx, counted, verdict, ctx);
    const missed = verdict.kind === 'miss';
    const next: Alert = {
      ...counted,
      verification: { ...counted.verification, state: missed ? 'not_found' : 'unverified', checkedAt: ctx.now },
    };
    tx.put(ALERT_COLLECTIONS.alerts, alertId, next);
    const graceMs = policy.alerts.verify_grace;
    if (missed && overdue(next, graceMs, ctx.now)) flagUnconfirmed(tx, next, graceMs, ctx);
    // Its request settled since it was drawn: the message shows the new outcome.
    else if (JSON.stringify(request) !== JSON.stringify(cur.verification.request)) refreshAlert(tx, next, deps.outbox);
    return missed ? 'not_found' : 'waiting';
  });
  if (state !== 'not_found' && state !== 'skipped') deps.outbox.kick();
  return state;
}

/**
 * Alerts still worth a look-up by hash: of a kind the history can show, not settled, with a
 * hash, recent, and not checked too often (unless one reported confirmed is due its flag).
 */
export function alertsToVerify(store: Store, now: number, graceMs: number, maxAgeMs = 24 * 3_600_000): string[] {
  return store
    .find(
      ALERT_COLLECTIONS.alerts,
      (a) =>
        !!a.hash &&
        checkable(a.kind) &&
        !settled(a) &&
        (a.verification.attempts < MAX_VERIFY_ATTEMPTS || overdue(a, graceMs, now)) &&
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
        const again = state === 'not_found' || state === 'waiting';
        if (again && round < retryDelaysMs.length) schedule(alertId, round + 1, retryDelaysMs[round]!);
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
