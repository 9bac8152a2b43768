/**
 * The outbox: every Slack post or edit that must be neither lost nor doubled.
 *
 * An entry is written to the store in the same commit as the event that causes it, then
 * carried out by the worker, then its result (channel, ts) is written back. Entries form
 * one lane per channel, drained in order and paced; a failing head blocks its lane (that is
 * what keeps alerts in order when Slack comes back) until it succeeds or is parked as failed.
 *
 * Doubles: every post carries message metadata naming its entry. Before re-sending a post
 * whose previous attempt may have reached Slack (timeout, reset, a crash mid-call: the doubt,
 * `firstUncertainAt`, is made durable before each send), the worker looks for that metadata
 * in the channel's history since the first doubtful attempt and adopts the message it finds.
 * Only a post that failed in a way proving nothing was sent lifts the doubt; a lookup that
 * fails (rate limit, missing scope) leaves it in place and is simply tried again later.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import { secrets } from '../secrets.js';
import type { Store, Tx } from '../store/index.js';
import { classifySlackError, type CallFailure } from './slack-errors.js';
import {
  COLLECTIONS,
  type OutboxEntry,
  type OutboxMessage,
  type OutboxRequest,
  type Rendered,
  type Renderer,
} from './types.js';

export * from './types.js';
export { classifySlackError } from './slack-errors.js';

export const METADATA_EVENT_TYPE = 'treasury_outbox';
export const BURST_RENDERER = 'outbox.burst';

/** The subset of WebClient the worker uses; a real WebClient satisfies it. */
export type SlackClient = Pick<WebClient, 'chat' | 'conversations'>;

export interface OutboxOptions {
  store: Store;
  client: SlackClient;
  logger: Logger;
  now?: () => number;
  /** Minimum gap between two messages in one lane (Slack allows about one per second per channel). */
  paceMs?: number;
  /** More than this many foldable posts waiting for one channel become a summary + thread. */
  burstThreshold?: number;
  /** First retry delay; doubles per attempt up to maxBackoffMs. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** How far before an uncertain attempt the history lookup starts. */
  lookbackMs?: number;
  /**
   * After an attempt with an unknown outcome, wait at least this long before looking it up:
   * Slack may still be processing a request whose response we gave up on.
   */
  unknownOutcomeDelayMs?: number;
}

export interface Outbox {
  /** Call inside the store.commit that records the cause; returns the entry id. */
  enqueue(tx: Tx, req: OutboxRequest): string;
  registerRenderer(kind: string, fn: Renderer): void;
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
}

interface Lane {
  name: string;
  ids: string[];
  busy: boolean;
  notBefore: number;
}

type Outcome = { kind: 'done' } | { kind: 'parked' } | { kind: 'retry'; afterMs: number };

/** Lookup errors that waiting alone will not cure: an operator has to act (add the *:history scopes). */
const OPERATOR_LOOKUP_ERRORS = new Set(['missing_scope', 'unknown_method', 'not_allowed_token_type', 'not_in_channel', 'channel_not_found']);

/** History pages read before giving up on telling (a lookup that cannot finish is not a "not found"). */
const LOOKUP_PAGES = 10;
const LOOKUP_PAGE_SIZE = 100;

/** Since when an entry's earlier attempts may have landed; undefined when none may have. */
function uncertainSince(e: Pick<OutboxEntry, 'firstUncertainAt' | 'sentAt'>): number | undefined {
  return e.firstUncertainAt ?? e.sentAt;
}

export function createOutbox(o: OutboxOptions): Outbox {
  const { store, client, logger } = o;
  const now = o.now ?? Date.now;
  const paceMs = o.paceMs ?? 1100;
  const burstThreshold = o.burstThreshold ?? 10;
  const baseBackoffMs = o.baseBackoffMs ?? 1000;
  const maxBackoffMs = o.maxBackoffMs ?? 60_000;
  const lookbackMs = o.lookbackMs ?? 60_000;
  const unknownOutcomeDelayMs = o.unknownOutcomeDelayMs ?? 5_000;
  const log = logger.child({ module: 'outbox' });

  const renderers = new Map<string, Renderer>();
  const lanes = new Map<string, Lane>();
  const indexed = new Set<string>();
  let fresh: string[] = [];
  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  const running = new Set<Promise<void>>();

  const getEntry = (id: string) => store.get<OutboxEntry>(COLLECTIONS.entries, id);
  const getMessage = (key: string) => store.get<OutboxMessage>(COLLECTIONS.messages, key);

  function nextOrder(tx: Tx): number {
    const meta = tx.get<{ seq: number }>(COLLECTIONS.meta, 'seq');
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
        const m = tx.get<OutboxMessage>(COLLECTIONS.messages, req.key);
        if (!m) throw new Error(`outbox: ${req.op} of unknown message key ${req.key}`);
        return m.lane;
      }
    }
  }

  function enqueue(tx: Tx, req: OutboxRequest): string {
    if (req.op === 'ephemeral' && !req.user) throw new Error('outbox: ephemeral needs a user');
    const lane = laneOf(tx, req);
    const order = nextOrder(tx);
    const id = `ob_${String(order).padStart(10, '0')}`;
    const entry: OutboxEntry = { ...stripUndefined({ ...req }), id, order, lane, state: 'pending', createdAt: now(), attempts: 0 };
    tx.put(COLLECTIONS.entries, id, entry);
    if ((req.op === 'post' || req.op === 'dm') && req.key) {
      if (tx.get(COLLECTIONS.messages, req.key)) throw new Error(`outbox: message key ${req.key} is already used`);
      tx.put<OutboxMessage>(COLLECTIONS.messages, req.key, { key: req.key, lane, entryId: id });
    }
    // Indexed only if the commit survives (checked when absorbed); acting waits for durability.
    fresh.push(id);
    if (started) setImmediate(kick);
    return id;
  }

  function laneFor(name: string): Lane {
    let l = lanes.get(name);
    if (!l) {
      l = { name, ids: [], busy: false, notBefore: 0 };
      lanes.set(name, l);
    }
    return l;
  }

  function insertInLane(entry: OutboxEntry): void {
    if (indexed.has(entry.id)) return;
    indexed.add(entry.id);
    const lane = laneFor(entry.lane);
    let i = lane.ids.length;
    while (i > 0 && getEntry(lane.ids[i - 1]!)!.order > entry.order) i--;
    lane.ids.splice(i, 0, entry.id);
  }

  function absorbFresh(): void {
    const ids = fresh;
    fresh = [];
    for (const id of ids) {
      const e = getEntry(id);
      if (e && e.state === 'pending') insertInLane(e);
    }
  }

  function removeFromLane(lane: Lane, id: string): void {
    const i = lane.ids.indexOf(id);
    if (i >= 0) lane.ids.splice(i, 1);
    indexed.delete(id);
  }

  function kick(): void {
    if (!started || stopped) return;
    absorbFresh();
    const t = now();
    let soonest = Infinity;
    for (const lane of lanes.values()) {
      if (lane.busy || lane.ids.length === 0) continue;
      if (lane.notBefore <= t) {
        lane.busy = true;
        const p = runLane(lane)
          .catch((err: unknown) => log.error({ err, lane: lane.name }, 'outbox lane failed unexpectedly; retrying'))
          .finally(() => {
            lane.busy = false;
            running.delete(p);
            if (lane.notBefore <= now() && lane.ids.length) lane.notBefore = now() + baseBackoffMs;
            kick();
          });
        running.add(p);
      } else soonest = Math.min(soonest, lane.notBefore);
    }
    if (soonest < Infinity && soonest < timerAt) {
      if (timer) clearTimeout(timer);
      timerAt = soonest;
      timer = setTimeout(() => {
        timer = undefined;
        timerAt = Infinity;
        kick();
      }, Math.max(0, soonest - t));
    }
  }

  async function runLane(lane: Lane): Promise<void> {
    while (!stopped && lane.ids.length) {
      if (lane.notBefore > now()) return;
      const id = lane.ids[0]!;
      const entry = getEntry(id);
      if (!entry || entry.state !== 'pending') {
        removeFromLane(lane, id);
        continue;
      }
      if (await foldBurst(lane, entry)) continue;
      const outcome = await attempt(entry, lane);
      if (outcome.kind === 'retry') {
        lane.notBefore = now() + outcome.afterMs;
        return;
      }
      removeFromLane(lane, id);
      lane.notBefore = now() + paceMs;
    }
  }

  // ------------------------------------------------------------------ burst

  const foldable = (e: OutboxEntry | undefined): e is OutboxEntry =>
    !!e && e.state === 'pending' && e.op === 'post' && !!e.burst && !e.threadUnder && uncertainSince(e) === undefined && e.attempts === 0;

  async function foldBurst(lane: Lane, head: OutboxEntry): Promise<boolean> {
    if (!foldable(head)) return false;
    const waiting = lane.ids.map(getEntry).filter(foldable);
    if (waiting.length <= burstThreshold) return false;
    const summaryKey = `burst:${head.id}`;
    const summaryId = await store.commit((tx) => {
      const labels: Record<string, number> = {};
      let mention = false;
      let first = Infinity;
      const members: string[] = [];
      for (const w of waiting) {
        const cur = tx.get<OutboxEntry>(COLLECTIONS.entries, w.id);
        if (!foldable(cur)) continue;
        labels[cur.burst!.label] = (labels[cur.burst!.label] ?? 0) + 1;
        mention ||= cur.burst!.mention === true;
        first = Math.min(first, cur.createdAt);
        members.push(cur.id);
        tx.put<OutboxEntry>(COLLECTIONS.entries, cur.id, { ...cur, threadUnder: summaryKey });
      }
      tx.put(COLLECTIONS.bursts, summaryKey, { key: summaryKey, channel: lane.name, labels, mention, firstAt: first, count: members.length, members });
      const order = head.order - 0.5;
      const id = `ob_${String(head.order).padStart(10, '0')}_burst`;
      const summary: OutboxEntry = {
        op: 'post',
        renderer: BURST_RENDERER,
        ref: summaryKey,
        key: summaryKey,
        channel: lane.name,
        id,
        order,
        lane: lane.name,
        state: 'pending',
        createdAt: now(),
        attempts: 0,
      };
      tx.put(COLLECTIONS.entries, id, summary);
      tx.put<OutboxMessage>(COLLECTIONS.messages, summaryKey, { key: summaryKey, lane: lane.name, entryId: id });
      return id;
    });
    insertInLane(getEntry(summaryId)!);
    log.info({ channel: lane.name, count: waiting.length }, 'burst: posting a summary with the details in its thread');
    return true;
  }

  const renderBurst: Renderer = (ref, ctx) => {
    const b = store.get<{ labels: Record<string, number>; mention: boolean; firstAt: number; count: number }>(COLLECTIONS.bursts, ref);
    if (!b) return null;
    const parts = Object.entries(b.labels).map(([label, n]) => `${n} ${label}${n === 1 ? '' : 's'}`);
    const minutes = Math.max(1, Math.ceil((ctx.now - b.firstAt) / 60_000));
    const span = minutes === 1 ? 'the last minute' : `the last ${minutes} minutes`;
    const text = `${b.mention ? '<!here> ' : ''}${parts.join(', ')} in ${span}. Details in the thread.`;
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
  };

  // ------------------------------------------------------------------ attempts

  function backoff(attempts: number): number {
    return Math.min(maxBackoffMs, baseBackoffMs * 2 ** Math.max(0, attempts - 1));
  }

  async function park(entry: OutboxEntry, error: string): Promise<Outcome> {
    log.error({ entry: entry.id, op: entry.op, lane: entry.lane, renderer: entry.renderer, error }, 'outbox entry failed for good; parked');
    await store.commit((tx) => {
      const cur = tx.get<OutboxEntry>(COLLECTIONS.entries, entry.id);
      if (cur) tx.put<OutboxEntry>(COLLECTIONS.entries, entry.id, { ...cur, state: 'failed', lastError: error, finishedAt: now() });
    });
    return { kind: 'parked' };
  }

  /**
   * A call failed. `postNotSent`: the failed call was the post itself and its failure proves
   * it never reached Slack; only then is the doubt about earlier attempts lifted (the lookup
   * that preceded this post had ruled them out). Any other failure, a lookup's above all,
   * leaves the doubt exactly as it was.
   */
  async function failed(entry: OutboxEntry, f: CallFailure, o: { postNotSent?: boolean } = {}): Promise<Outcome> {
    if (!f.retry) return park(entry, f.error);
    const attempts = entry.attempts + 1;
    const delay = f.afterMs ?? Math.max(backoff(attempts), f.unknownOutcome ? unknownOutcomeDelayMs : 0);
    log.warn({ entry: entry.id, op: entry.op, lane: entry.lane, attempts, error: f.error, retryInMs: delay }, 'slack call failed; will retry');
    await store.commit((tx) => {
      const cur = tx.get<OutboxEntry>(COLLECTIONS.entries, entry.id);
      if (!cur) return;
      const next: OutboxEntry = { ...cur, attempts, lastError: secrets.scrub(f.error) };
      if (o.postNotSent && !f.unknownOutcome) {
        delete next.sentAt;
        delete next.firstUncertainAt;
      }
      tx.put(COLLECTIONS.entries, entry.id, next);
    });
    return { kind: 'retry', afterMs: delay };
  }

  function render(entry: OutboxEntry): { ok: true; content: Rendered | null } | { ok: false; error: string } {
    const fn = entry.renderer === BURST_RENDERER ? renderBurst : renderers.get(entry.renderer);
    if (!fn) return { ok: false, error: `no renderer registered for "${entry.renderer}"` };
    try {
      return { ok: true, content: fn(entry.ref, { op: entry.op, key: entry.key, now: now() }) };
    } catch (err) {
      return { ok: false, error: `renderer ${entry.renderer} threw: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  /** Updates of the same message queued behind this entry: what we render now already shows their state. */
  /**
   * Pending edits of the message this entry is about to render in full (a post or an edit of
   * the same key and renderer): they would show exactly what this one shows. A thread reply
   * is another message, so it never absorbs the parent's edits.
   */
  function collapsible(lane: Lane, entry: OutboxEntry): string[] {
    if (!entry.key || (entry.op !== 'post' && entry.op !== 'update')) return [];
    return lane.ids.filter((id) => {
      if (id === entry.id) return false;
      const e = getEntry(id);
      return !!e && e.state === 'pending' && e.op === 'update' && e.key === entry.key && e.renderer === entry.renderer;
    });
  }

  async function finish(entry: OutboxEntry, lane: Lane, result: NonNullable<OutboxEntry['result']>, collapsed: string[], message?: Partial<OutboxMessage>): Promise<Outcome> {
    await store.commit((tx) => {
      const cur = tx.get<OutboxEntry>(COLLECTIONS.entries, entry.id);
      if (!cur) return;
      const done: OutboxEntry = { ...cur, state: 'done', result, finishedAt: now(), attempts: cur.attempts + 1 };
      delete done.lastError;
      tx.put(COLLECTIONS.entries, entry.id, done);
      // A reply names its parent's key; only the entry that created the keyed message records it.
      if (message && entry.key && (entry.op === 'post' || entry.op === 'dm')) {
        const m = tx.get<OutboxMessage>(COLLECTIONS.messages, entry.key);
        if (m) tx.put<OutboxMessage>(COLLECTIONS.messages, entry.key, stripUndefined({ ...m, ...message }));
      }
      for (const id of collapsed) {
        const c = tx.get<OutboxEntry>(COLLECTIONS.entries, id);
        if (c && c.state === 'pending') {
          tx.put<OutboxEntry>(COLLECTIONS.entries, id, { ...c, state: 'done', finishedAt: now(), result: { channel: result.channel, ts: result.ts, collapsedInto: entry.id } });
        }
      }
    });
    for (const id of collapsed) removeFromLane(lane, id);
    return { kind: 'done' };
  }

  /**
   * Marks the attempt durably before anything goes out; its resolution also proves the entry
   * itself is durable. A post also records the doubt it creates: `firstUncertainAt` keeps the
   * earliest doubtful attempt (it is never moved forward while set), `sentAt` the latest.
   */
  async function markAttempt(entry: OutboxEntry, patch: Partial<OutboxEntry>, o: { post?: boolean } = {}): Promise<OutboxEntry | undefined> {
    return store.commit((tx) => {
      const cur = tx.get<OutboxEntry>(COLLECTIONS.entries, entry.id);
      if (!cur || cur.state !== 'pending') return undefined;
      const next: OutboxEntry = { ...cur, ...patch };
      if (o.post) {
        const t = now();
        next.firstUncertainAt = uncertainSince(cur) ?? t;
        next.sentAt = t;
      }
      tx.put(COLLECTIONS.entries, entry.id, next);
      return next;
    });
  }

  interface Found {
    ts: string;
    channel: string;
  }

  /**
   * Looks for the message a doubtful attempt may have posted, from a little before the FIRST
   * doubtful attempt (later attempts move `sentAt`, never this start). undefined: it is not
   * there. A failure: we could not tell; the caller retries later and the doubt stays.
   */
  async function lookup(entry: OutboxEntry, channel: string, threadTs: string | undefined): Promise<Found | undefined | CallFailure> {
    const oldest = ((uncertainSince(entry) ?? now()) - lookbackMs) / 1000;
    const matches = (m: { metadata?: { event_type?: string; event_payload?: Record<string, unknown> }; ts?: string }) =>
      m.metadata?.event_type === METADATA_EVENT_TYPE && m.metadata.event_payload?.outbox_id === entry.id && typeof m.ts === 'string';
    try {
      let cursor: string | undefined;
      for (let page = 0; page < LOOKUP_PAGES; page++) {
        const res = threadTs
          ? await client.conversations.replies({ channel, ts: threadTs, oldest: oldest.toFixed(6), limit: LOOKUP_PAGE_SIZE, include_all_metadata: true, ...(cursor ? { cursor } : {}) })
          : await client.conversations.history({ channel, oldest: oldest.toFixed(6), limit: LOOKUP_PAGE_SIZE, include_all_metadata: true, ...(cursor ? { cursor } : {}) });
        const hit = (res.messages ?? []).find((m) => matches(m as Parameters<typeof matches>[0]));
        if (hit?.ts) return { ts: hit.ts, channel };
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!cursor) return undefined;
      }
      // Unread pages remain: "not found" would be a guess, and a wrong guess is a double.
      log.error({ entry: entry.id, channel, pages: LOOKUP_PAGES }, 'too many messages since the doubtful attempt to rule out a duplicate; will look again');
      return { retry: true, error: 'lookup: window too large', unknownOutcome: true };
    } catch (err) {
      const f = classifySlackError(err);
      if (f.retry) return { ...f, error: `lookup: ${f.error}` };
      // Waiting (the lane stays blocked, nothing is lost) beats posting blind: a double cannot be taken back.
      const hint = OPERATOR_LOOKUP_ERRORS.has(f.error) ? ' (the app needs the *:history scopes and access to the channel)' : '';
      log.error({ entry: entry.id, channel, error: f.error }, `cannot read channel history to rule out a duplicate${hint}; will look again`);
      return { retry: true, error: `lookup: ${f.error}`, unknownOutcome: true };
    }
  }

  const isFailure = (v: unknown): v is CallFailure => !!v && typeof v === 'object' && 'retry' in v;

  async function attempt(entry: OutboxEntry, lane: Lane): Promise<Outcome> {
    switch (entry.op) {
      case 'post':
      case 'dm':
      case 'reply':
        return attemptPost(entry, lane);
      case 'update':
        return attemptUpdate(entry, lane);
      case 'ephemeral':
        return attemptEphemeral(entry);
    }
  }

  async function attemptPost(entry: OutboxEntry, lane: Lane): Promise<Outcome> {
    // Where it goes.
    let channel = entry.op === 'dm' ? entry.dmChannel : entry.channel;
    let threadTs: string | undefined;
    if (entry.op === 'reply') {
      const parent = getMessage(entry.key!);
      if (!parent?.ts || !parent.channel) return parentMissing(entry, parent);
      channel = parent.channel;
      threadTs = parent.threadTs ?? parent.ts;
    } else if (entry.threadUnder) {
      const summary = getMessage(entry.threadUnder);
      // A summary that could not be posted must not take its details down with it.
      if (summary?.ts && summary.channel) threadTs = summary.ts;
      else if (getEntry(summary?.entryId ?? '')?.state !== 'failed') return { kind: 'retry', afterMs: baseBackoffMs };
    }
    if (entry.op === 'dm' && !channel) {
      try {
        const res = await client.conversations.open({ users: entry.user! });
        channel = res.channel?.id;
        if (!channel) return failed(entry, { retry: true, error: 'conversations.open returned no channel', unknownOutcome: false });
      } catch (err) {
        return failed(entry, classifySlackError(err));
      }
    }
    if (!channel) return park(entry, 'no channel');

    // A previous attempt may have landed: look before posting again.
    if (uncertainSince(entry) !== undefined) {
      const found = await lookup(entry, channel, threadTs);
      if (isFailure(found)) return failed(entry, found);
      if (found) {
        log.info({ entry: entry.id, channel, ts: found.ts }, 'adopted the message an earlier attempt posted');
        return finish(entry, lane, { channel, ts: found.ts, adopted: true }, [], { channel, ts: found.ts, ...(threadTs ? { threadTs } : {}) });
      }
    }

    const rendered = render(entry);
    if (!rendered.ok) return park(entry, rendered.error);
    if (!rendered.content) return finish(entry, lane, { channel, skipped: true }, []);
    const collapsed = collapsible(lane, entry);
    const marked = await markAttempt(entry, entry.op === 'dm' ? { dmChannel: channel } : {}, { post: true });
    if (!marked) return { kind: 'parked' };
    try {
      const res = await client.chat.postMessage({
        channel,
        text: rendered.content.text,
        ...(rendered.content.blocks ? { blocks: rendered.content.blocks as never } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
        metadata: { event_type: METADATA_EVENT_TYPE, event_payload: { outbox_id: entry.id } },
      });
      const ts = res.ts;
      const where = res.channel ?? channel;
      if (!ts) return failed(marked, { retry: true, error: 'chat.postMessage returned no ts', unknownOutcome: true });
      return finish(marked, lane, { channel: where, ts }, collapsed, { channel: where, ts, ...(threadTs ? { threadTs } : {}) });
    } catch (err) {
      const f = classifySlackError(err);
      return failed(marked, f, { postNotSent: f.retry && !f.unknownOutcome });
    }
  }

  async function parentMissing(entry: OutboxEntry, parent: OutboxMessage | undefined): Promise<Outcome> {
    const parentEntry = parent ? getEntry(parent.entryId) : undefined;
    if (!parentEntry || parentEntry.state === 'failed' || parentEntry.result?.skipped) return park(entry, 'parent_message_failed');
    // The parent is still on its way (it sits earlier in the same lane, so this is rare).
    return { kind: 'retry', afterMs: baseBackoffMs };
  }

  async function attemptUpdate(entry: OutboxEntry, lane: Lane): Promise<Outcome> {
    const target = getMessage(entry.key!);
    if (!target?.ts || !target.channel) return parentMissing(entry, target);
    const rendered = render(entry);
    if (!rendered.ok) return park(entry, rendered.error);
    if (!rendered.content) return finish(entry, lane, { channel: target.channel, skipped: true }, []);
    const collapsed = collapsible(lane, entry);
    const marked = await markAttempt(entry, {});
    if (!marked) return { kind: 'parked' };
    try {
      // An edit is idempotent: repeating it after an unknown outcome shows the same thing.
      await client.chat.update({
        channel: target.channel,
        ts: target.ts,
        text: rendered.content.text,
        ...(rendered.content.blocks ? { blocks: rendered.content.blocks as never } : {}),
      });
      return finish(marked, lane, { channel: target.channel, ts: target.ts }, collapsed);
    } catch (err) {
      return failed(marked, classifySlackError(err));
    }
  }

  async function attemptEphemeral(entry: OutboxEntry): Promise<Outcome> {
    const rendered = render(entry);
    if (!rendered.ok) return park(entry, rendered.error);
    const lane = laneFor(entry.lane);
    if (!rendered.content) return finish(entry, lane, { channel: entry.channel!, skipped: true }, []);
    const marked = await markAttempt(entry, {});
    if (!marked) return { kind: 'parked' };
    try {
      await client.chat.postEphemeral({
        channel: entry.channel!,
        user: entry.user!,
        text: rendered.content.text,
        ...(rendered.content.blocks ? { blocks: rendered.content.blocks as never } : {}),
      });
      return finish(marked, lane, { channel: entry.channel! }, []);
    } catch (err) {
      const f = classifySlackError(err);
      // Ephemerals cannot be looked up afterwards; one that may have arrived is not repeated.
      if (f.retry && f.unknownOutcome) return finish(marked, lane, { channel: entry.channel!, uncertain: true }, []);
      return failed(marked, f);
    }
  }

  // ------------------------------------------------------------------ lifecycle

  function pending(): number {
    absorbFresh();
    let n = 0;
    for (const l of lanes.values()) n += l.ids.length;
    return n;
  }

  return {
    enqueue,
    registerRenderer(kind, fn) {
      if (kind === BURST_RENDERER) throw new Error(`renderer kind ${kind} is reserved`);
      renderers.set(kind, fn);
    },
    start() {
      if (started) return;
      started = true;
      stopped = false;
      for (const e of store.all<OutboxEntry>(COLLECTIONS.entries)) if (e.state === 'pending') insertInLane(e);
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
        for (const e of tx.all<OutboxEntry>(COLLECTIONS.entries)) {
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
    message: getMessage,
  };
}

function stripUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}
