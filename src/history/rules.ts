/**
 * Which records leave memory for the store's history (src/store/history.ts), one row per
 * collection: when a record is cold, and why no decision can need it any more.
 *
 * Money-safety invariant: nothing a decision reads may leave memory. Decisions read open
 * requests, the rolling limits' windows (up to 30 days), the destinations paid in the last 90
 * days (look-alike screening), every completed payment (a new destination's "paid before" and a
 * new client, with no window), the dedup keys of recent alerts and the outbox's pending entries.
 * So:
 * - an audit entry is cold once older than AUDIT_HOT_DAYS: no decision reads the log (it is
 *   written, verified and shown, all through history);
 * - a withdrawal request is cold once closed (final state) longer than WITHDRAWAL_HOT_DAYS, well
 *   past every windowed rule and a late notification about it. A completed one is folded into
 *   the paid summary (src/withdrawals/paid-summary.ts) by the commit that evicts it: "paid before",
 *   the allowlist's "never paid before", a known client and the fee estimate read every completed
 *   payment with no window, and read the summary for those no longer in memory. Never: a failure
 *   the service never executed, and any request of a repeated payout (`repeatOf`, hold/: a repeat
 *   is refused or held by its family's members, found through those links, with no window), nor a
 *   batch's row (read with its batch).
 * Alerts, events and delivered outbox entries are not here: retention deletes them (src/jobs/retention.ts).
 */
import { AUDIT_COLLECTION, type AuditEntry, auditId } from '../audit/log.js';
import { type Collection, collection, type Store, type Tx } from '../store/index.js';
import { foldPaid } from '../withdrawals/paid-summary.js';
import { WITHDRAWALS } from '../withdrawals/shell.js';
import { FINAL_STATES, type WithdrawalRequest } from '../withdrawals/types.js';

const DAY_MS = 86_400_000;
/** Audit entries stay in memory this long: `/treasury audit` shows the newest from memory. */
export const AUDIT_HOT_DAYS = 7;
/** The longest lookback of any rule (90 days: look-alikes of destinations paid), and a month more. */
export const WITHDRAWAL_HOT_DAYS = 120;

export interface HistoryRule<T> {
  collection: Collection<T>;
  idOf: (v: T) => string;
  /** Whether nothing decides on the record any more at `now`. */
  cold: (v: T, now: number) => boolean;
  /** Inside the commit that evicts it: what must stay known of it in memory (a summary). */
  onEvict?: (tx: Tx, v: T) => void;
}

/** When a request closed: its last step (a final state is its last). */
export function closedAt(r: WithdrawalRequest): number {
  let at = Date.parse(r.createdAt);
  for (const h of r.history) at = Math.max(at, Date.parse(h.at));
  return at;
}

export function withdrawalIsCold(r: WithdrawalRequest, now: number): boolean {
  if (!FINAL_STATES.includes(r.state)) return false;
  // A failure the service never executed is what a repeat of the payout is matched against, with
  // no window (hold/: a retyped repeat is held), and a repeat's family is walked through its links:
  // a completed member missing from it would let the payout be requested and paid again.
  if (r.error?.kind === 'never_executed' || r.repeatOf !== undefined || r.repeatLinked !== undefined) return false;
  // A batch's rows are read with the batch (its result file, synchronously): they stay while it does.
  if (r.batch) return false;
  return closedAt(r) < now - WITHDRAWAL_HOT_DAYS * DAY_MS;
}

export const AUDIT_RULE: HistoryRule<AuditEntry> = {
  collection: AUDIT_COLLECTION,
  idOf: (e) => auditId(e.seq),
  cold: (e, now) => Date.parse(e.at) < now - AUDIT_HOT_DAYS * DAY_MS,
};

/**
 * The completed requests already folded into the paid summary, by request id (persisted name:
 * never change it). A request put again after it left memory (hot once more) and evicted again
 * must not count twice: the commit that folds checks and writes its mark. The marks stay in
 * memory (a check inside a commit cannot wait for the database): a few dozen bytes per completed
 * payment, against the request's kilobytes that leave.
 */
export const PAID_FOLDED = collection<{ id: string }>('paid_folded');

/** Folds a completed request into the paid summary once, whatever how often it is evicted. */
export function foldPaidOnce(tx: Tx, r: WithdrawalRequest): void {
  if (r.state !== 'completed' || tx.get(PAID_FOLDED, r.id)) return;
  foldPaid(tx, r);
  tx.put(PAID_FOLDED, r.id, { id: r.id });
}

export const WITHDRAWAL_RULE: HistoryRule<WithdrawalRequest> = {
  collection: WITHDRAWALS,
  idOf: (r) => r.id,
  cold: withdrawalIsCold,
  // Each completed payment counts exactly once for the rules: in memory, or in the summary.
  onEvict: foldPaidOnce,
};

/** A row of the table: moves its collection's cold records, returns how many left memory. */
export interface HistoryRow {
  name: string;
  move: (store: Store, now: number) => Promise<number>;
}

/** The table: each row moves its collection's cold records (typed per row, no casts). */
export const HISTORY_RULES: readonly HistoryRow[] = [
  { name: AUDIT_COLLECTION, move: (store, now) => moveCold(store, AUDIT_RULE, now) },
  { name: WITHDRAWALS, move: (store, now) => moveCold(store, WITHDRAWAL_RULE, now) },
];

/** Evicts per commit: keeps each group write and each pause of the event loop small. */
const CHUNK = 2_000;

/**
 * Moves a collection's cold records out of memory, a chunk per commit, each record judged again
 * inside its commit (one changed since the scan stays), with what its rule keeps of it (onEvict)
 * in that same commit. Returns how many left memory: none on the embedded store, which keeps
 * everything (and so folds nothing).
 */
export async function moveCold<T>(store: Store, rule: HistoryRule<T>, now: number): Promise<number> {
  // Where nothing leaves memory, nothing is folded into a summary either (it would count twice).
  if (!store.evicts) return 0;
  const ids = store.find(rule.collection, (v) => rule.cold(v, now)).map(rule.idOf);
  let moved = 0;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const slice = ids.slice(i, i + CHUNK);
    const evicted = await store.commit((tx) =>
      slice.filter((id) => {
        const v = tx.get(rule.collection, id);
        if (v === undefined || !rule.cold(v, now)) return false;
        rule.onEvict?.(tx, v);
        tx.evict(rule.collection, id);
        return true;
      }),
    );
    moved += evicted.filter((id) => store.get(rule.collection, id) === undefined).length;
  }
  return moved;
}

/** Runs the whole table (the daily job; a migration or a bench after filling a store): what left memory, per collection. */
export async function moveHistory(
  store: Store,
  now: number,
  /** Rows the app adds after the table's own (what the Slack side keeps per request: src/slack/withdrawal-history.ts). */
  after: readonly HistoryRow[] = [],
): Promise<Record<string, number>> {
  const moved: Record<string, number> = {};
  for (const rule of [...HISTORY_RULES, ...after]) moved[rule.name] = await rule.move(store, now);
  return moved;
}
