/**
 * What the people-facing side of withdrawals leaves behind, pruned with the rest (issue 39 left
 * these to grow): escalation and away notices (a notice is only what its outbox message is drawn
 * from, so it goes once that message is delivered and the notice is older than the retention
 * period), escalation marks of requests no longer waiting (a mark only stops a second DM for a
 * request still short of approvals), and per-person reminder times older than the period (the
 * quiet time they enforce is 4 hours, far inside it).
 */
import { AWAY_NOTICES } from '../away/state.js';
import { COLLECTIONS as OUTBOX } from '../outbox/types.js';
import type { Collection, Store, Tx } from '../store/index.js';
import { ESCALATION_MARKS, ESCALATION_NOTICES } from '../withdrawals/escalation.js';
import { PERSON_NUDGES } from '../withdrawals/nudges.js';
import { WITHDRAWALS } from '../withdrawals/shell.js';

export interface NoticePruneResult {
  notices: number;
  marks: number;
  nudges: number;
}

type DeleteIds = (ids: string[], del: (tx: Tx, id: string) => boolean) => Promise<number>;

/** Deletes the records of `c` older than `cutoff` that `keep` (judged at the scan and again in the commit) does not hold back. */
function pruneOlder<T extends { id: string; at: string }>(
  store: Store,
  c: Collection<T>,
  cutoff: number,
  keep: (read: Pick<Tx, 'get'>, v: T) => boolean,
  deleteIds: DeleteIds,
): Promise<number> {
  const gone = (read: Pick<Tx, 'get'>, v: T | undefined): v is T => !!v && Date.parse(v.at) < cutoff && !keep(read, v);
  return deleteIds(
    store.find(c, (v) => gone(store, v)).map((v) => v.id),
    (tx, id) => {
      if (!gone(tx, tx.get(c, id))) return false;
      tx.delete(c, id);
      return true;
    },
  );
}

export async function pruneNotices(store: Store, cutoff: number, deleteIds: DeleteIds): Promise<NoticePruneResult> {
  // A message not delivered yet (waiting, or failed and parked for an admin to requeue) is drawn
  // from its notice when it goes. A delivered entry never waits again, so the scan's set holds.
  const undelivered = new Set(store.find(OUTBOX.entries, (e) => e.state !== 'done').map((e) => e.ref));
  const drawnLater = (_: unknown, n: { id: string }) => undelivered.has(n.id);
  const notices =
    (await pruneOlder(store, ESCALATION_NOTICES, cutoff, drawnLater, deleteIds)) +
    (await pruneOlder(store, AWAY_NOTICES, cutoff, drawnLater, deleteIds));
  // A mark stops a second DM for a request still short of approvals; once it stopped waiting, nothing reads it.
  const stillWaiting = (read: Pick<Tx, 'get'>, requestId: string) =>
    read.get(WITHDRAWALS, requestId)?.state === 'pending';
  const marks = await deleteIds(
    store.find(ESCALATION_MARKS, (m) => !stillWaiting(store, m.requestId)).map((m) => m.id),
    (tx, id) => {
      const m = tx.get(ESCALATION_MARKS, id);
      if (!m || stillWaiting(tx, m.requestId)) return false;
      tx.delete(ESCALATION_MARKS, id);
      return true;
    },
  );
  const nudges = await pruneOlder(store, PERSON_NUDGES, cutoff, () => false, deleteIds);
  return { notices, marks, nudges };
}
