/**
 * Attempts: carrying out one entry against Slack, and writing down what happened.
 *
 * Doubles: every post carries message metadata naming its entry. Before re-sending a post
 * whose previous attempt may have reached Slack (timeout, reset, a crash mid-call: the doubt,
 * `firstUncertainAt`, is made durable before each send), the worker looks for that metadata
 * in the channel's history since the first doubtful attempt and adopts the message it finds.
 * Only a post that failed in a way proving nothing was sent lifts the doubt; a lookup that
 * fails (rate limit, missing scope) leaves it in place and is simply tried again later.
 */
import { secrets } from '../secrets.js';
import { COLLECTIONS, type OutboxContext, type Outcome, uncertainSince } from './context.js';
import { stripUndefined } from '../util/strip-undefined.js';
import type { Batching } from './batching.js';
import type { Lane } from './lanes.js';
import { classifySlackError, type CallFailure } from './slack-errors.js';
import { METADATA_EVENT_TYPE, metadataOf } from './metadata.js';
import type { OutboxEntry, OutboxMessage } from './types.js';

/** Lookup errors that waiting alone will not cure: an operator has to act (add the *:history scopes). */
const OPERATOR_LOOKUP_ERRORS = new Set([
  'missing_scope',
  'unknown_method',
  'not_allowed_token_type',
  'not_in_channel',
  'channel_not_found',
]);

/** History pages read before giving up on telling (a lookup that cannot finish is not a "not found"). */
const LOOKUP_PAGES = 10;
const LOOKUP_PAGE_SIZE = 100;

interface Found {
  ts: string;
  channel: string;
}

const isFailure = (v: unknown): v is CallFailure => !!v && typeof v === 'object' && 'retry' in v;

export function createAttempts(
  ctx: OutboxContext,
  batching: Pick<Batching, 'render' | 'collapsible'>,
  removeFromLane: (lane: Lane, id: string) => void,
) {
  const { store, client, log, now, getEntry, getMessage } = ctx;
  const { render, collapsible } = batching;

  function backoff(attempts: number): number {
    return Math.min(ctx.maxBackoffMs, ctx.baseBackoffMs * 2 ** Math.max(0, attempts - 1));
  }

  async function park(entry: OutboxEntry, error: string): Promise<Outcome> {
    log.error(
      { entry: entry.id, op: entry.op, lane: entry.lane, renderer: entry.renderer, error },
      'outbox entry failed for good; parked',
    );
    await store.commit((tx) => {
      const cur = tx.get(COLLECTIONS.entries, entry.id);
      if (cur) tx.put(COLLECTIONS.entries, entry.id, { ...cur, state: 'failed', lastError: error, finishedAt: now() });
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
    const delay = f.afterMs ?? Math.max(backoff(attempts), f.unknownOutcome ? ctx.unknownOutcomeDelayMs : 0);
    log.warn(
      { entry: entry.id, op: entry.op, lane: entry.lane, attempts, error: f.error, retryInMs: delay },
      'slack call failed; will retry',
    );
    await store.commit((tx) => {
      const cur = tx.get(COLLECTIONS.entries, entry.id);
      if (!cur) return;
      const next: OutboxEntry = { ...cur, attempts, lastError: secrets.scrub(f.error) };
      if (o.postNotSent && !f.unknownOutcome) {
        delete next.sentAt;
        delete next.firstUncertainAt;
      }
      tx.put(COLLECTIONS.entries, entry.id, next);
    });
    return {
      kind: 'retry',
      afterMs: Math.max(1, delay),
      rateLimited: f.afterMs !== undefined,
      wide: f.wide === true,
      called: true,
    };
  }

  async function finish(
    entry: OutboxEntry,
    lane: Lane,
    result: NonNullable<OutboxEntry['result']>,
    collapsed: string[],
    message?: Partial<OutboxMessage>,
  ): Promise<Outcome> {
    await store.commit((tx) => {
      const cur = tx.get(COLLECTIONS.entries, entry.id);
      if (!cur) return;
      const done: OutboxEntry = { ...cur, state: 'done', result, finishedAt: now(), attempts: cur.attempts + 1 };
      delete done.lastError;
      tx.put(COLLECTIONS.entries, entry.id, done);
      // A reply names its parent's key; only the entry that created the keyed message records it.
      if (message && entry.key && (entry.op === 'post' || entry.op === 'dm')) {
        const m = tx.get(COLLECTIONS.messages, entry.key);
        if (m) tx.put(COLLECTIONS.messages, entry.key, stripUndefined({ ...m, ...message }));
      }
      for (const id of collapsed) {
        const c = tx.get(COLLECTIONS.entries, id);
        if (c && c.state === 'pending') {
          tx.put(COLLECTIONS.entries, id, {
            ...c,
            state: 'done',
            finishedAt: now(),
            result: { channel: result.channel, ...(result.ts ? { ts: result.ts } : {}), collapsedInto: entry.id },
          });
        }
      }
    });
    for (const id of collapsed) removeFromLane(lane, id);
    if (!result.skipped) {
      log.info({ entry: entry.id, op: entry.op, renderer: entry.renderer, channel: result.channel }, 'sent to Slack');
      ctx.onSent?.(entry);
    }
    if (message?.ts && entry.key && (entry.op === 'post' || entry.op === 'dm')) ctx.posted(entry.key);
    return { kind: 'done', sent: !result.skipped };
  }

  /**
   * Marks the attempt durably before anything goes out; its resolution also proves the entry
   * itself is durable. A post also records the doubt it creates: `firstUncertainAt` keeps the
   * earliest doubtful attempt (it is never moved forward while set), `sentAt` the latest.
   */
  async function markAttempt(
    entry: OutboxEntry,
    patch: Partial<OutboxEntry>,
    o: { post?: boolean } = {},
  ): Promise<OutboxEntry | undefined> {
    return store.commit((tx) => {
      const cur = tx.get(COLLECTIONS.entries, entry.id);
      if (cur?.state !== 'pending') return undefined;
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

  /**
   * Looks for the message a doubtful attempt may have posted, from a little before the FIRST
   * doubtful attempt (later attempts move `sentAt`, never this start). undefined: it is not
   * there. A failure: we could not tell; the caller retries later and the doubt stays.
   */
  async function lookup(
    entry: OutboxEntry,
    channel: string,
    threadTs: string | undefined,
  ): Promise<Found | undefined | CallFailure> {
    const oldest = ((uncertainSince(entry) ?? now()) - ctx.lookbackMs) / 1000;
    // Ours whatever the event type a renderer gave it (a card's or an alert's: metadata.ts).
    const matches = (m: { metadata?: { event_type?: string; event_payload?: Record<string, unknown> }; ts?: string }) =>
      (m.metadata?.event_type === METADATA_EVENT_TYPE || m.metadata?.event_type?.startsWith('treasury_') === true) &&
      m.metadata.event_payload?.outbox_id === entry.id &&
      typeof m.ts === 'string';
    try {
      let cursor: string | undefined;
      for (let page = 0; page < LOOKUP_PAGES; page++) {
        const res = threadTs
          ? await client.conversations.replies({
              channel,
              ts: threadTs,
              oldest: oldest.toFixed(6),
              limit: LOOKUP_PAGE_SIZE,
              include_all_metadata: true,
              ...(cursor ? { cursor } : {}),
            })
          : await client.conversations.history({
              channel,
              oldest: oldest.toFixed(6),
              limit: LOOKUP_PAGE_SIZE,
              include_all_metadata: true,
              ...(cursor ? { cursor } : {}),
            });
        const hit = (res.messages ?? []).find((m) => matches(m as Parameters<typeof matches>[0]));
        if (hit?.ts) return { ts: hit.ts, channel };
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!cursor) return undefined;
      }
      // Unread pages remain: "not found" would be a guess, and a wrong guess is a double.
      log.error(
        { entry: entry.id, channel, pages: LOOKUP_PAGES },
        'too many messages since the doubtful attempt to rule out a duplicate; will look again',
      );
      return { retry: true, error: 'lookup: window too large', unknownOutcome: true };
    } catch (err) {
      const f = classifySlackError(err);
      // A lookup that fails holds back its own entry only: a fresh post needs no lookup.
      if (f.retry) return { ...f, error: `lookup: ${f.error}`, wide: false };
      // Waiting (this entry and the backlog behind it wait, nothing is lost) beats posting blind: a double cannot be taken back.
      const hint = OPERATOR_LOOKUP_ERRORS.has(f.error)
        ? ' (the app needs the *:history scopes and access to the channel)'
        : '';
      log.error(
        { entry: entry.id, channel, error: f.error },
        `cannot read channel history to rule out a duplicate${hint}; will look again`,
      );
      return { retry: true, error: `lookup: ${f.error}`, unknownOutcome: true, wide: false };
    }
  }

  async function attemptPost(entry: OutboxEntry, lane: Lane): Promise<Outcome> {
    // Where it goes.
    let channel = entry.op === 'dm' ? entry.dmChannel : entry.channel;
    let threadTs: string | undefined;
    if (entry.op === 'reply') {
      const parent = getMessage(entry.key!);
      // A line of a batch message has no thread of its own: its line shows the status.
      if (parent?.batchKey) return finish(entry, lane, { channel: lane.name, skipped: true }, []);
      if (!parent?.ts || !parent.channel) return parentMissing(entry, parent);
      channel = parent.channel;
      threadTs = parent.threadTs ?? parent.ts;
    } else if (entry.threadUnder) {
      const summary = getMessage(entry.threadUnder);
      // A summary that could not be posted must not take its details down with it.
      if (summary?.ts && summary.channel) threadTs = summary.ts;
      else if (getEntry(summary?.entryId ?? '')?.state !== 'failed')
        return { kind: 'retry', afterMs: ctx.baseBackoffMs };
    }
    if (entry.op === 'post' && entry.ifBatched && !getMessage(entry.ifBatched)?.batchKey) {
      return finish(entry, lane, { channel: channel ?? lane.name, skipped: true }, []);
    }
    if (entry.op === 'dm' && !channel) {
      try {
        const res = await client.conversations.open({ users: entry.user! });
        channel = res.channel?.id;
        if (!channel)
          return failed(entry, { retry: true, error: 'conversations.open returned no channel', unknownOutcome: false });
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
        // The adopted message shows what was true at that attempt, not now: edits queued for
        // its key stay pending, so one chat.update redraws the current state. Only a post
        // drawn now may absorb them.
        return finish(entry, lane, { channel, ts: found.ts, adopted: true }, [], {
          channel,
          ts: found.ts,
          ...(threadTs ? { threadTs } : {}),
        });
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
        metadata: metadataOf(rendered.content, entry.id),
      });
      const ts = res.ts;
      const where = res.channel ?? channel;
      if (!ts) return failed(marked, { retry: true, error: 'chat.postMessage returned no ts', unknownOutcome: true });
      return finish(marked, lane, { channel: where, ts }, collapsed, {
        channel: where,
        ts,
        ...(threadTs ? { threadTs } : {}),
      });
    } catch (err) {
      const f = classifySlackError(err);
      return failed(marked, f, { postNotSent: f.retry && !f.unknownOutcome });
    }
  }

  async function parentMissing(entry: OutboxEntry, parent: OutboxMessage | undefined): Promise<Outcome> {
    const parentEntry = parent ? getEntry(parent.entryId) : undefined;
    if (!parentEntry || parentEntry.state === 'failed' || parentEntry.result?.skipped)
      return park(entry, 'parent_message_failed');
    // The parent is still on its way (the lane sends it first, so this is rare).
    return { kind: 'retry', afterMs: ctx.baseBackoffMs };
  }

  async function attemptUpdate(entry: OutboxEntry, lane: Lane): Promise<Outcome> {
    const own = getMessage(entry.key!);
    const target = own?.batchKey ? getMessage(own.batchKey) : own;
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
        // A card or alert says its new state to other apps too (the post's outbox_id kept).
        ...(rendered.content.metadata ? { metadata: metadataOf(rendered.content, target.entryId) } : {}),
      });
      return finish(marked, lane, { channel: target.channel, ts: target.ts }, collapsed);
    } catch (err) {
      return failed(marked, classifySlackError(err));
    }
  }

  async function attemptEphemeral(entry: OutboxEntry, lane: Lane): Promise<Outcome> {
    const rendered = render(entry);
    if (!rendered.ok) return park(entry, rendered.error);
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

  /**
   * Deleting twice is harmless: a file Slack no longer has counts as deleted. A file is never
   * given up on (it may hold a secret): a refusal that waiting does not cure (a missing scope,
   * say) is retried at the longest backoff, loudly, until an operator fixes it.
   */
  async function attemptDeleteFile(entry: OutboxEntry, lane: Lane): Promise<Outcome> {
    const marked = await markAttempt(entry, {});
    if (!marked) return { kind: 'parked' };
    try {
      await client.files.delete({ file: entry.ref });
      return finish(marked, lane, { channel: lane.name }, []);
    } catch (err) {
      const f = classifySlackError(err);
      if (f.error === 'file_not_found' || f.error === 'file_deleted')
        return finish(marked, lane, { channel: lane.name, skipped: true }, []);
      if (f.retry) return failed(marked, f);
      log.error({ entry: entry.id, error: f.error }, 'Slack refuses to delete a file the app uploaded; will try again');
      return failed(marked, { retry: true, error: f.error, unknownOutcome: false, afterMs: ctx.maxBackoffMs });
    }
  }

  async function attempt(entry: OutboxEntry, lane: Lane): Promise<Outcome> {
    switch (entry.op) {
      case 'post':
      case 'dm':
      case 'reply':
        return attemptPost(entry, lane);
      case 'update':
        return attemptUpdate(entry, lane);
      case 'ephemeral':
        return attemptEphemeral(entry, lane);
      case 'delete_file':
        return attemptDeleteFile(entry, lane);
    }
  }

  return { attempt };
}
