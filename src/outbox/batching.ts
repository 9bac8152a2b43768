/**
 * Batching: what several waiting entries become when one message can say it all.
 *
 * - Batch messages (`batch` on a post): at a posting slot, every post of the same group
 *   waiting for the channel becomes one message with a line each, live ones first, as many
 *   as the batch renderer says fit; the rest wait for the next slot. The members, the batch
 *   record and the batch message's own entry are written in ONE commit before anything is
 *   sent, so a restart finds either the members still waiting or the batch entry (which is
 *   posted once, with the outbox's usual look-up after a doubtful attempt): no line is posted
 *   twice or lost. A member's key then points at the batch (`batchKey`): its edits edit the
 *   batch message, and all pending edits of one message collapse into one chat.update.
 * - Bursts (`burst` on a post, the older scheme): past a threshold, a summary message with
 *   the posts as thread replies under it.
 * - Rendering: an entry's renderer, the batch renderer for a batch message or for an edit of
 *   one of its lines, or the burst renderer for a burst summary.
 */
import { COLLECTIONS, shownIn, type OutboxContext, uncertainSince } from './context.js';
import { rankOf, retryHold, type Lane } from './lanes.js';
import { BURST_RENDERER } from './renderers.js';
import type { BurstRenderer, OutboxBatch, OutboxEntry, OutboxMessage, Rendered, Renderer } from './types.js';

export { BURST_RENDERER };

export interface LaneOps {
  insert(entry: OutboxEntry): void;
  remove(lane: Lane, id: string): void;
}

export function createBatching(ctx: OutboxContext, lanes: LaneOps) {
  const { store, getEntry, getMessage, now, log } = ctx;

  // ------------------------------------------------------------------ batch messages

  /** A post that can still join a batch: never attempted, so no doubt about an earlier send. */
  const batchable = (e: OutboxEntry | undefined, like?: OutboxEntry): e is OutboxEntry =>
    !!e &&
    e.state === 'pending' &&
    e.op === 'post' &&
    !!e.batch &&
    !e.threadUnder &&
    e.attempts === 0 &&
    uncertainSince(e) === undefined &&
    ctx.batchRenderers.has(e.batch.renderer) &&
    (!like ||
      (e.batch.renderer === like.batch!.renderer && e.batch.group === like.batch!.group && e.lane === like.lane));

  /**
   * If `head` is a batchable post and others of its group wait in its lane, writes the batch
   * (members first by priority, then order) and returns the batch message's entry to post
   * instead; otherwise undefined (post `head` as it is).
   */
  async function formBatch(
    lane: Lane,
    head: OutboxEntry,
    o: { headFirst?: boolean } = {},
  ): Promise<OutboxEntry | undefined> {
    if (!batchable(head)) return undefined;
    // A line waiting behind a post that must be retried stays behind it.
    const held = retryHold(lane, now(), getEntry);
    const waiting = lane.ids
      .map(getEntry)
      .filter((e): e is OutboxEntry => batchable(e, head) && !held(e))
      .sort((a, b) => rankOf(a, lane.backlogUpTo) - rankOf(b, lane.backlogUpTo) || a.order - b.order);
    // A slot kept for an older entry (see lanes.ts) must carry it, whatever else fills it.
    if (o.headFirst) waiting.sort((a, b) => Number(b.id === head.id) - Number(a.id === head.id));
    if (waiting.length < 2) return undefined;
    const renderer = ctx.batchRenderers.get(head.batch!.renderer)!;
    const n = Math.min(waiting.length, Math.max(1, renderer.fits(waiting.map((e) => e.ref))));
    if (n < 2) return undefined;
    const chosen = waiting.slice(0, n);
    const first = chosen.reduce((a, b) => (a.order <= b.order ? a : b));
    const key = `batch:${first.id}`;
    const batchEntry = await store.commit((tx) => {
      const members: OutboxBatch['members'] = [];
      for (const c of chosen) {
        const cur = tx.get(COLLECTIONS.entries, c.id);
        if (!batchable(cur, head)) continue;
        members.push({ entryId: cur.id, ref: cur.ref, ...(cur.key ? { key: cur.key } : {}) });
        tx.put(COLLECTIONS.entries, cur.id, {
          ...cur,
          state: 'done',
          finishedAt: now(),
          result: { channel: lane.name, batchedInto: key },
        });
        if (cur.key) {
          const m = tx.get(COLLECTIONS.messages, cur.key);
          if (m) tx.put(COLLECTIONS.messages, cur.key, { ...m, batchKey: key });
        }
      }
      if (members.length === 0) return { entry: undefined, members };
      const batch: OutboxBatch = {
        key,
        lane: lane.name,
        renderer: head.batch!.renderer,
        group: head.batch!.group,
        members,
        createdAt: now(),
      };
      tx.put(COLLECTIONS.batches, key, batch);
      const entry: OutboxEntry = {
        op: 'post',
        renderer: batch.renderer,
        ref: key,
        key,
        channel: lane.name,
        ...(head.priority ? { priority: head.priority } : {}),
        id: `${first.id}_batch`,
        order: first.order,
        lane: lane.name,
        state: 'pending',
        createdAt: now(),
        attempts: 0,
      };
      tx.put(COLLECTIONS.entries, entry.id, entry);
      tx.put(COLLECTIONS.messages, key, { key, lane: lane.name, entryId: entry.id });
      return { entry, members };
    });
    for (const m of batchEntry.members) lanes.remove(lane, m.entryId);
    if (!batchEntry.entry) return undefined;
    lanes.insert(batchEntry.entry);
    log.info(
      { channel: lane.name, lines: batchEntry.members.length, waiting: waiting.length },
      'batch: several posts as one message',
    );
    return getEntry(batchEntry.entry.id);
  }

  function renderBatch(key: string): Rendered | null {
    const b = store.get(COLLECTIONS.batches, key);
    const r = b && ctx.batchRenderers.get(b.renderer);
    if (!b || !r) return null;
    return r.render(
      b.members.map((m) => m.ref),
      { op: 'post', key, now: now() },
    );
  }

  // ------------------------------------------------------------------ bursts

  const foldable = (e: OutboxEntry | undefined): e is OutboxEntry =>
    !!e &&
    e.state === 'pending' &&
    e.op === 'post' &&
    !!e.burst &&
    !e.threadUnder &&
    uncertainSince(e) === undefined &&
    e.attempts === 0;

  async function foldBurst(lane: Lane, head: OutboxEntry): Promise<boolean> {
    if (!foldable(head)) return false;
    const waiting = lane.ids.map(getEntry).filter(foldable);
    if (waiting.length <= ctx.burstThreshold) return false;
    const summaryKey = `burst:${head.id}`;
    const summaryId = await store.commit((tx) => {
      const labels: Record<string, number> = {};
      let mention = false;
      let first = Infinity;
      const members: string[] = [];
      for (const w of waiting) {
        const cur = tx.get(COLLECTIONS.entries, w.id);
        if (!foldable(cur)) continue;
        labels[cur.burst!.label] = (labels[cur.burst!.label] ?? 0) + 1;
        mention ||= cur.burst!.mention === true;
        first = Math.min(first, cur.createdAt);
        members.push(cur.id);
        tx.put(COLLECTIONS.entries, cur.id, { ...cur, threadUnder: summaryKey });
      }
      tx.put(COLLECTIONS.bursts, summaryKey, {
        key: summaryKey,
        channel: lane.name,
        labels,
        mention,
        firstAt: first,
        count: members.length,
        members,
      });
      const id = `ob_${String(head.order).padStart(10, '0')}_burst`;
      const summary: OutboxEntry = {
        op: 'post',
        renderer: BURST_RENDERER,
        ref: summaryKey,
        key: summaryKey,
        channel: lane.name,
        ...(head.priority ? { priority: head.priority } : {}),
        id,
        order: head.order - 0.5,
        lane: lane.name,
        state: 'pending',
        createdAt: now(),
        attempts: 0,
      };
      tx.put(COLLECTIONS.entries, id, summary);
      tx.put(COLLECTIONS.messages, summaryKey, { key: summaryKey, lane: lane.name, entryId: id });
      return id;
    });
    lanes.insert(getEntry(summaryId)!);
    log.info({ channel: lane.name, count: waiting.length }, 'burst: posting a summary with the details in its thread');
    return true;
  }

  /** The summary's words are the app's (ctx.burstRenderer); the outbox gives what it counted. */
  const renderBurst =
    (burstRenderer: BurstRenderer): Renderer =>
    (ref, rctx) => {
      const b = store.get(COLLECTIONS.bursts, ref);
      return b ? burstRenderer(b, rctx) : null;
    };

  // ------------------------------------------------------------------ rendering and edits

  function render(entry: OutboxEntry): { ok: true; content: Rendered | null } | { ok: false; error: string } {
    try {
      // An edit of a line of a batch message redraws the whole batch message.
      const m = entry.op === 'update' && entry.key ? getMessage(entry.key) : undefined;
      if (m?.batchKey) return { ok: true, content: renderBatch(m.batchKey) };
      if (ctx.batchRenderers.has(entry.renderer)) return { ok: true, content: renderBatch(entry.ref) };
      const fn =
        entry.renderer === BURST_RENDERER
          ? ctx.burstRenderer && renderBurst(ctx.burstRenderer)
          : ctx.renderers.get(entry.renderer);
      if (!fn) return { ok: false, error: `no renderer registered for "${entry.renderer}"` };
      return {
        ok: true,
        content: fn(entry.ref, { op: entry.op, ...(entry.key ? { key: entry.key } : {}), now: now() }),
      };
    } catch (err) {
      return {
        ok: false,
        error: `renderer ${entry.renderer} threw: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  }

  /** The key of the message an entry's edit lands in (a batched line's edits land in its batch). */
  const landsIn = (key: string) => getMessage(key)?.batchKey ?? key;

  /**
   * Pending edits of the message this entry is about to render in full (a post or an edit of
   * the same message): they would show exactly what this one shows. For a plain message the
   * renderer must match too; a batch message is always drawn whole. A thread reply is
   * another message, so it never absorbs the parent's edits.
   */
  function collapsible(lane: Lane, entry: OutboxEntry): string[] {
    if (!entry.key || (entry.op !== 'post' && entry.op !== 'update')) return [];
    const target = entry.op === 'update' ? landsIn(entry.key) : entry.key;
    const whole = !!store.get(COLLECTIONS.batches, target);
    return lane.ids.filter((id) => {
      if (id === entry.id) return false;
      const e = getEntry(id);
      return (
        !!e &&
        e.state === 'pending' &&
        e.op === 'update' &&
        !!e.key &&
        landsIn(e.key) === target &&
        (whole || e.renderer === entry.renderer)
      );
    });
  }

  /**
   * Whether an entry's target exists yet. Edits and replies wait for the message they edit or
   * answer (a batch line: for its batch message); a burst detail for its summary; an
   * `ifBatched` post until it is known whether its key was batched. A target that failed for
   * good counts as ready: the attempt then parks the entry with the reason.
   */
  function ready(e: OutboxEntry): boolean {
    const settled = (m: OutboxMessage | undefined) => !m || !!m.ts || getEntry(m.entryId)?.state !== 'pending';
    if (e.op === 'update' || e.op === 'reply') {
      const m = getMessage(e.key ?? '');
      if (e.op === 'reply' && m?.batchKey) return true;
      return settled(m?.batchKey ? getMessage(m.batchKey) : m);
    }
    if (e.op === 'post' && e.ifBatched) {
      const m = getMessage(e.ifBatched);
      return !!m?.batchKey || settled(m);
    }
    if (e.threadUnder) return settled(getMessage(e.threadUnder));
    return true;
  }

  return { formBatch, foldBurst, render, collapsible, ready, shownIn: (key: string) => shownIn(ctx, key) };
}

export type Batching = ReturnType<typeof createBatching>;
