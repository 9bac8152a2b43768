/**
 * The outbox: every Slack post or edit that must be neither lost nor doubled.
 *
 * An entry is written to the store in the same commit as the event that causes it, then
 * carried out by the worker, then its result (channel, ts) is written back. The parts:
 * - `lanes.ts`: one lane per channel, its priorities and its pacing (posts and edits apart);
 * - `batching.ts`: batch messages, burst summaries, rendering, and edits that collapse;
 * - `attempts.ts`: the Slack calls, retries, and the history look-up that prevents doubles.
 */
import { currentRequest, inRequest } from '../request-context.js';
import type { Tx } from '../store/index.js';
import { createAttempts } from './attempts.js';
import type { OutboxOptions } from './options.js';
import { createBatching } from './batching.js';
import { APP_RENDERER_NAMES, assertRegistered, BURST_RENDERER, type RendererName } from './renderers.js';
import { registered, shownIn, type OutboxContext } from './context.js';
import { stripUndefined } from '../util/strip-undefined.js';
import { createLaneIndex, pickNext, slotOf, type Lane } from './lanes.js';
import {
  COLLECTIONS,
  type BatchRenderer,
  type BurstRenderer,
  type OutboxEntry,
  type OutboxMessage,
  type OutboxPriority,
  type OutboxRequest,
  type Renderer,
} from './types.js';

export * from './types.js';
export { classifySlackError } from './slack-errors.js';
export { METADATA_EVENT_TYPE } from './metadata.js';
export { APP_RENDERER_NAMES, APP_RENDERERS, BURST_RENDERER, type RendererName } from './renderers.js';
export type { SlackClient } from './context.js';
export type { OutboxOptions } from './options.js';

export interface Outbox {
  /** Call inside the store.commit that records the cause; returns the entry id. */
  enqueue(tx: Tx, req: OutboxRequest): string;
  /**
   * Inside a commit: gives the post of this key (or the batch message carrying it as a line),
   * if it still waits, another priority (a claim the wallet's history now corroborates goes
   * ahead as news). Returns whether a waiting post was found.
   */
  reprioritize(tx: Tx, key: string, priority: OutboxPriority, o?: { ownMessage?: boolean }): boolean;
  registerRenderer(kind: RendererName, fn: Renderer): void;
  /** A renderer for batch messages (see `OutboxRequest.batch`). */
  registerBatchRenderer(kind: RendererName, r: BatchRenderer): void;
  /** The words of burst summaries (see `OutboxRequest.burst`). */
  registerBurstRenderer(r: BurstRenderer): void;
  /**
   * Throws, naming them, when any of `names` (default: every renderer the app registers,
   * renderers.ts, and the burst renderer) has no renderer: called at start, before `start`, so a
   * missing one stops the start instead of failing the first message that needs it.
   */
  assertRenderers(names?: readonly RendererName[]): void;
  start(): void;
  stop(): Promise<void>;
  /** Wake the worker (enqueue does it too; useful after a policy change or a requeue). */
  kick(): void;
  /** Resolves once no entry is pending; rejects after timeoutMs. For tests and shutdown. */
  drain(timeoutMs?: number): Promise<void>;
  pending(): number;
  /** Put parked (failed) entries back in their lanes; returns how many. */
  requeueFailed(filter?: (e: OutboxEntry) => boolean): Promise<number>;
  /** The posted message of a key, if any. */
  message(key: string): OutboxMessage | undefined;
  /** The message a key is shown in: its own, or the batch message holding it as a line. */
  shownIn(key: string): OutboxMessage | undefined;
  /**
   * `fn(key)` runs each time a keyed post or DM is in Slack and its ts recorded (after the
   * commit that records it), so work that needs the message (a permalink, a DM linking to it)
   * starts then instead of polling. Not durable: what must survive a restart looks again at start.
   */
  onPosted(fn: (key: string) => void | Promise<void>): void;
}

/** File deletions wait in a lane of their own: no channel's messages queue behind them. */
const FILES_LANE = 'files';

export function createOutbox(o: OutboxOptions): Outbox {
  const { store, client } = o;
  const now = o.now ?? Date.now;
  const paceMs = o.paceMs ?? 1100;
  const updatePaceMs = o.updatePaceMs ?? o.paceMs ?? 1250;
  const reserveEvery = Math.max(2, o.reserveEvery ?? 5);
  const log = o.logger.child({ module: 'outbox' });
  const postedListeners: Array<(key: string) => void | Promise<void>> = [];
  const ctx: OutboxContext = {
    store,
    client,
    log,
    now,
    baseBackoffMs: o.baseBackoffMs ?? 1000,
    maxBackoffMs: o.maxBackoffMs ?? 60_000,
    lookbackMs: o.lookbackMs ?? 60_000,
    unknownOutcomeDelayMs: o.unknownOutcomeDelayMs ?? 5_000,
    onSent: o.onSent,
    burstThreshold: o.burstThreshold ?? 10,
    renderers: new Map(),
    batchRenderers: new Map(),
    getEntry: (id) => store.get(COLLECTIONS.entries, id),
    getMessage: (key) => store.get(COLLECTIONS.messages, key),
    posted: (key) => {
      // After this turn, and a listener's failure (thrown or rejected) is only logged: the post is done.
      for (const fn of postedListeners)
        Promise.resolve()
          .then(() => fn(key))
          .catch((err: unknown) => log.error({ err, key }, 'a listener for posted messages failed'));
    },
  };
  const { getEntry } = ctx;
  const index = createLaneIndex(getEntry);
  const batching = createBatching(ctx, index);
  const attempts = createAttempts(ctx, batching, index.remove);

  let fresh: string[] = [];
  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  /** chat.update's budget is per workspace: one clock for every lane. */
  let sharedUpdateAt = 0;
  const running = new Set<Promise<void>>();

  function nextOrder(tx: Tx): number {
    const meta = tx.get(COLLECTIONS.meta, 'seq');
    const seq = (meta?.seq ?? 0) + 1;
    tx.put(COLLECTIONS.meta, 'seq', { seq });
    return seq;
  }

  function laneOf(tx: Tx, req: OutboxRequest): string {
    switch (req.op) {
      case 'post':
      case 'ephemeral':
        if (!req.channel) throw new Error(`outbox: ${req.op} needs a channel`);
        return req.channel;
      case 'dm':
        if (!req.user) throw new Error('outbox: dm needs a user');
        return `dm:${req.user}`;
      case 'update':
      case 'reply': {
        if (!req.key) throw new Error(`outbox: ${req.op} needs the key of a message`);
        const m = tx.get(COLLECTIONS.messages, req.key);
        if (!m) throw new Error(`outbox: ${req.op} of unknown message key ${req.key}`);
        return m.lane;
      }
      case 'delete_file':
        if (!req.ref) throw new Error('outbox: delete_file needs the file id as ref');
        return FILES_LANE;
    }
  }

  function enqueue(tx: Tx, req: OutboxRequest): string {
    if (req.op === 'ephemeral' && !req.user) throw new Error('outbox: ephemeral needs a user');
    const lane = laneOf(tx, req);
    const order = nextOrder(tx);
    const id = `ob_${String(order).padStart(10, '0')}`;
    const entry: OutboxEntry = {
      ...stripUndefined({ ...req }),
      id,
      order,
      lane,
      state: 'pending',
      createdAt: now(),
      attempts: 0,
    };
    // The request that caused it (request-context.ts): its sending logs under the same id.
    const requestId = currentRequest()?.id;
    if (requestId) entry.requestId = requestId;
    tx.put(COLLECTIONS.entries, id, entry);
    if ((req.op === 'post' || req.op === 'dm') && req.key) {
      if (tx.get(COLLECTIONS.messages, req.key)) throw new Error(`outbox: message key ${req.key} is already used`);
      tx.put(COLLECTIONS.messages, req.key, { key: req.key, lane, entryId: id });
    }
    // Indexed only if the commit survives (checked when absorbed); acting waits for durability.
    fresh.push(id);
    if (started) setImmediate(kick);
    return id;
  }

  function reprioritize(tx: Tx, key: string, priority: OutboxPriority, o: { ownMessage?: boolean } = {}): boolean {
    const own = tx.get(COLLECTIONS.messages, key);
    const m = own?.batchKey ? tx.get(COLLECTIONS.messages, own.batchKey) : own;
    const e = m && tx.get(COLLECTIONS.entries, m.entryId);
    if (e?.state !== 'pending' || (e.op !== 'post' && e.op !== 'dm')) return false;
    // `ownMessage`: a post not yet folded into a batch message leaves its batch group (it is now news of its own).
    const unbatch = o.ownMessage && !own!.batchKey && !!e.batch;
    if (e.priority !== priority || unbatch) {
      const next = { ...e, priority };
      if (unbatch) delete next.batch;
      tx.put(COLLECTIONS.entries, e.id, next);
    }
    if (started) setImmediate(kick);
    return true;
  }

  function absorbFresh(): void {
    const ids = fresh;
    fresh = [];
    for (const id of ids) {
      const e = getEntry(id);
      if (e && e.state === 'pending') index.insert(e);
    }
  }

  function kick(): void {
    if (!started || stopped) return;
    absorbFresh();
    const t = now();
    let soonest = Infinity;
    for (const lane of index.lanes.values()) {
      if (lane.busy || lane.ids.length === 0) continue;
      if (lane.wakeAt <= t) {
        lane.busy = true;
        const p = runLane(lane)
          .catch((err: unknown) => {
            log.error({ err, lane: lane.name }, 'outbox lane failed unexpectedly; retrying');
            lane.wakeAt = now() + ctx.baseBackoffMs;
          })
          .finally(() => {
            lane.busy = false;
            running.delete(p);
            kick();
          });
        running.add(p);
      } else soonest = Math.min(soonest, lane.wakeAt);
    }
    if (soonest < Infinity && soonest < timerAt) {
      if (timer) clearTimeout(timer);
      timerAt = soonest;
      timer = setTimeout(
        () => {
          timer = undefined;
          timerAt = Infinity;
          kick();
        },
        Math.max(0, soonest - t),
      );
    }
  }

  /** Sends what the lane's open slots allow, best first, until nothing is due; then notes when to wake. */
  async function runLane(lane: Lane): Promise<void> {
    while (!stopped && lane.ids.length) {
      absorbFresh();
      const choice = pickNext(
        lane,
        now(),
        sharedUpdateAt,
        getEntry,
        batching.ready,
        (id) => index.remove(lane, id),
        reserveEvery,
      );
      if (!('entry' in choice)) {
        lane.wakeAt = choice.wakeAt;
        return;
      }
      let entry = choice.entry;
      const slot = slotOf(entry);
      // Everything waiting now that this slot does not take becomes the lane's backlog.
      const waitingUpTo = lane.ids.reduce((m, id) => Math.max(m, getEntry(id)?.order ?? 0), 0);
      if (await batching.foldBurst(lane, entry)) continue;
      entry = (await batching.formBatch(lane, entry, { headFirst: choice.reserved })) ?? entry;
      const e = entry;
      if (o.giveWay) await o.giveWay();
      const outcome = await (e.requestId
        ? inRequest('outbox', () => attempts.attempt(e, lane), e.requestId)
        : attempts.attempt(e, lane));
      if (
        slot === 'post' &&
        ((outcome.kind === 'done' && outcome.sent) || (outcome.kind === 'retry' && outcome.called))
      ) {
        lane.passedOver = choice.passedOver ? lane.passedOver + 1 : 0;
      }
      if (outcome.kind === 'retry') {
        const t = now();
        const at = t + outcome.afterMs;
        // A failure about the channel or workspace closes the slot for everyone; one about
        // this entry delays it (and its rank's backlog behind it, see lanes.ts) alone.
        if (!outcome.wide) lane.retryAt.set(entry.id, at);
        if (slot === 'post') {
          if (outcome.wide) lane.postAt = Math.max(lane.postAt, at);
          else if (outcome.called) lane.postAt = Math.max(lane.postAt, t + paceMs);
          // A slot spent on a failed post still ends what counts as new: what waited then is the backlog.
          lane.backlogUpTo = waitingUpTo;
        } else if (outcome.rateLimited) sharedUpdateAt = Math.max(sharedUpdateAt, at);
        else if (outcome.wide) lane.updateAt = at;
        continue;
      }
      index.remove(lane, entry.id);
      if (outcome.kind === 'done' && outcome.sent) {
        if (slot === 'update') sharedUpdateAt = now() + updatePaceMs;
        else {
          lane.postAt = now() + paceMs;
          lane.backlogUpTo = waitingUpTo;
        }
      }
    }
    lane.wakeAt = Infinity;
  }

  function pending(): number {
    absorbFresh();
    return index.pending();
  }

  return {
    enqueue,
    reprioritize,
    registerRenderer(kind, fn) {
      if (kind === BURST_RENDERER) throw new Error(`renderer kind ${kind} is reserved`);
      ctx.renderers.set(kind, fn);
    },
    registerBatchRenderer: (kind, r) => void ctx.batchRenderers.set(kind, r),
    registerBurstRenderer(r) {
      ctx.burstRenderer = r;
    },
    assertRenderers: (names = [...APP_RENDERER_NAMES, BURST_RENDERER]) => assertRegistered(names, registered(ctx)),
    start() {
      if (started) return;
      started = true;
      stopped = false;
      for (const e of store.all(COLLECTIONS.entries)) if (e.state === 'pending') index.insert(e);
      kick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerAt = Infinity;
      await Promise.allSettled([...running]);
      started = false;
    },
    kick,
    async drain(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (pending() > 0 || running.size > 0) {
        if (Date.now() > deadline) throw new Error(`outbox: ${pending()} entries still pending after ${timeoutMs} ms`);
        kick();
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    pending,
    async requeueFailed(filter = () => true) {
      const ids = await store.commit((tx) => {
        const out: string[] = [];
        for (const e of tx.all(COLLECTIONS.entries)) {
          if (e.state !== 'failed' || !filter(e)) continue;
          const next: OutboxEntry = { ...e, state: 'pending', attempts: 0 };
          delete next.finishedAt;
          tx.put(COLLECTIONS.entries, e.id, next);
          out.push(e.id);
        }
        return out;
      });
      fresh.push(...ids);
      kick();
      return ids.length;
    },
    message: ctx.getMessage,
    shownIn: (key) => shownIn(ctx, key),
    onPosted: (fn) => void postedListeners.push(fn),
  };
}
