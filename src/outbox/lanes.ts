/**
 * Lanes and pacing. One lane per channel (or DM user), holding the ids of its pending
 * entries in enqueue order. Two clocks pace a lane: its post slot (chat.postMessage, thread
 * replies and ephemerals: Slack allows about one message per second per channel) and its
 * update slot, which also waits for the workspace-wide chat.update budget. At each turn the
 * lane sends the best entry whose slot is open and whose target exists: by priority, then
 * by order. Entries of the same priority therefore keep their order, and a post that must
 * be retried holds back the posts of its rank behind it (that is what keeps alerts in order
 * when Slack comes back) without holding back edits, and the other way round. A failure about
 * one entry (a 5xx on its payload, a history look-up that cannot be done) delays that entry
 * and what queues behind it in its rank only: a post of a better rank (news that arrived
 * since) still goes at the next slot. Only a failure about the channel or the workspace (429,
 * auth, Slack unreachable) closes the lane's slot.
 */
import type { OutboxEntry, OutboxPriority } from './types.js';

export interface Lane {
  name: string;
  ids: string[];
  busy: boolean;
  /** Earliest time of the next post (pace after a post, backoff after a failure). */
  postAt: number;
  /** Earliest time of the next edit of a message in this lane (backoff after a failure). */
  updateAt: number;
  /** The highest order waiting when the lane last posted: `live` entries up to it are its backlog. */
  backlogUpTo: number;
  /** When the lane has something to do next (Infinity: only a new entry or a kick wakes it). */
  wakeAt: number;
  /** Entries waiting for their own retry (a failure about that entry alone), by id. */
  retryAt: Map<string, number>;
  /** Post slots in a row given to a better-ranked entry while an older, lower-ranked post waited. */
  passedOver: number;
}

export const PRIORITY_RANK: Record<OutboxPriority, number> = {
  live: 0,
  edit: 1,
  reconciliation: 2,
  claim: 2.5,
  detail: 3,
};

/**
 * An entry marked `live` is news only until its lane's next post: what was already waiting
 * when the lane last posted and did not fit is the backlog. The backlog still goes ahead of
 * edits and everything else, and in order among itself, but behind what arrived since, so a
 * new transaction reaches Slack at the next slot even when a thousand others wait for the
 * same channel.
 */
const BACKLOG_RANK = 0.5;

/** Claims likewise: one that arrived since the lane last posted goes ahead of the claims that waited through it. */
const CLAIM_BACKLOG_RANK = 2.75;

export function rankOf(e: Pick<OutboxEntry, 'priority' | 'order'>, backlogUpTo = 0): number {
  if (e.priority === 'live' && e.order <= backlogUpTo) return BACKLOG_RANK;
  if (e.priority === 'claim' && e.order <= backlogUpTo) return CLAIM_BACKLOG_RANK;
  return PRIORITY_RANK[e.priority ?? 'live'];
}

export type Slot = 'post' | 'update';
export const slotOf = (e: Pick<OutboxEntry, 'op'>): Slot => (e.op === 'update' ? 'update' : 'post');

export function createLaneIndex(getEntry: (id: string) => OutboxEntry | undefined) {
  const lanes = new Map<string, Lane>();
  const indexed = new Set<string>();

  function laneFor(name: string): Lane {
    let l = lanes.get(name);
    if (!l) {
      l = {
        name,
        ids: [],
        busy: false,
        postAt: 0,
        updateAt: 0,
        backlogUpTo: 0,
        wakeAt: 0,
        retryAt: new Map(),
        passedOver: 0,
      };
      lanes.set(name, l);
    }
    return l;
  }

  function insert(entry: OutboxEntry): void {
    if (indexed.has(entry.id)) return;
    indexed.add(entry.id);
    const lane = laneFor(entry.lane);
    let i = lane.ids.length;
    while (i > 0 && getEntry(lane.ids[i - 1]!)!.order > entry.order) i--;
    lane.ids.splice(i, 0, entry.id);
    lane.wakeAt = 0;
  }

  function remove(lane: Lane, id: string): void {
    const i = lane.ids.indexOf(id);
    if (i >= 0) lane.ids.splice(i, 1);
    lane.retryAt.delete(id);
    indexed.delete(id);
  }

  function pending(): number {
    let n = 0;
    for (const l of lanes.values()) n += l.ids.length;
    return n;
  }

  return { lanes, laneFor, insert, remove, pending };
}

/**
 * `passedOver`: an older post of a lower rank was ready and not chosen. `reserved`: this slot
 * is the one kept for such a post (so thread details and findings are never starved).
 */
export type Choice = { entry: OutboxEntry; passedOver: boolean; reserved: boolean } | { wakeAt: number };

/**
 * Which entries must wait at `t` for a retry: one whose own retry is not due yet, and for
 * posts, every later post of the same rank (so a rank keeps its order). `due`: when the
 * earliest of those it waits for is due.
 */
export function retryHold(lane: Lane, t: number, getEntry: (id: string) => OutboxEntry | undefined) {
  /** Per rank of posts: the first order waiting for a retry and when that retry is due. */
  const firstWaiting = new Map<number, { order: number; due: number }>();
  for (const [id, due] of lane.retryAt) {
    if (due <= t) continue;
    const e = getEntry(id);
    if (!e || slotOf(e) !== 'post') continue;
    const r = rankOf(e, lane.backlogUpTo);
    const cur = firstWaiting.get(r);
    if (!cur || e.order < cur.order) firstWaiting.set(r, { order: e.order, due });
  }
  return (e: OutboxEntry): { due: number } | undefined => {
    const own = lane.retryAt.get(e.id);
    if (own !== undefined && own > t) return { due: own };
    if (slotOf(e) !== 'post') return undefined;
    const w = firstWaiting.get(rankOf(e, lane.backlogUpTo));
    return w && e.order > w.order ? { due: w.due } : undefined;
  };
}

/**
 * The entry to send now, or when to look again. `ready` says whether an entry's target
 * exists yet (an edit waits for the post it edits); one that is not ready is skipped, not
 * waited on, so it never blocks the lane. Ids of entries no longer pending go to `drop`.
 *
 * Priorities alone would starve the lowest ranks under a steady stream of news; so once
 * `reserveEvery - 1` post slots in a row went to better-ranked entries while an older post
 * waited, the next post slot goes to the OLDEST post that is ready. Oldest, not lowest: every
 * waiting post is thus reached after a bounded number of slots, and each rank keeps its order.
 */
export function pickNext(
  lane: Lane,
  t: number,
  sharedUpdateAt: number,
  getEntry: (id: string) => OutboxEntry | undefined,
  ready: (e: OutboxEntry) => boolean,
  drop: (id: string) => void,
  reserveEvery = Infinity,
): Choice {
  const rank = (e: OutboxEntry) => rankOf(e, lane.backlogUpTo);
  const updateAt = Math.max(lane.updateAt, sharedUpdateAt);
  const opensAt = (e: OutboxEntry) => (slotOf(e) === 'post' ? lane.postAt : updateAt);
  const held = retryHold(lane, t, getEntry);
  let best: OutboxEntry | undefined;
  /** The first (oldest) post whose slot is open now. */
  let oldest: OutboxEntry | undefined;
  let wakeAt = Infinity;
  const gone: string[] = [];
  for (const id of lane.ids) {
    const e = getEntry(id);
    if (e?.state !== 'pending') {
      gone.push(id);
      continue;
    }
    const worse = !!best && (rank(e) > rank(best) || (rank(e) === rank(best) && e.order > best.order));
    // A worse entry matters only as the oldest open post (for the reserved slot).
    if (worse && (oldest || slotOf(e) !== 'post' || lane.postAt > t)) continue;
    if (!ready(e)) continue;
    const hold = held(e);
    if (hold) {
      wakeAt = Math.min(wakeAt, Math.max(hold.due, opensAt(e)));
      continue;
    }
    const at = opensAt(e);
    if (at > t) {
      wakeAt = Math.min(wakeAt, at);
      continue;
    }
    if (!oldest && slotOf(e) === 'post') oldest = e;
    if (worse) continue;
    best = e;
  }
  for (const id of gone) drop(id);
  if (!best) return { wakeAt };
  const passedOver = !!oldest && oldest !== best && slotOf(best) === 'post' && rank(oldest) > rank(best);
  if (passedOver && lane.passedOver + 1 >= reserveEvery) return { entry: oldest!, passedOver: false, reserved: true };
  return { entry: best, passedOver, reserved: false };
}
