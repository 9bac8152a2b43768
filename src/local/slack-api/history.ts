/**
 * Reading the channel model back: conversations.history and conversations.replies, with
 * Slack's time windows, page sizes and cursors.
 */
import { ApiError, bool, compareTs, requireString, str, tsKey } from './args.js';
import { findMessage, messageJson } from './messages.js';
import type { Handler, SlackState } from './state.js';
import type { FakeMessage, Json } from './types.js';

// As Slack shows it when read back: a thread parent carries thread_ts = its own ts, and
// metadata only comes with include_all_metadata.
function readJson(m: FakeMessage, withMetadata: boolean): Json {
  const { metadata, ...rest } = messageJson(m);
  const out: Json = m.reply_count !== undefined && !m.thread_ts ? { ...rest, thread_ts: m.ts } : rest;
  if (withMetadata && metadata !== undefined) out.metadata = metadata;
  return out;
}

function sortedMessages(s: SlackState, channel: string): FakeMessage[] {
  return [...(s.channelStores.get(channel)?.messages ?? [])].sort((a, b) => compareTs(a.ts, b.ts));
}

/** oldest/latest bounds, exclusive unless `inclusive`; an absent bound does not limit. */
function timeWindow(args: Json): (m: FakeMessage) => boolean {
  const bound = (key: 'oldest' | 'latest') => {
    const v = str(args[key]);
    return v === undefined || v === '' ? undefined : tsKey(v, `invalid_ts_${key}`);
  };
  const oldest = bound('oldest');
  const latest = bound('latest');
  const inclusive = bool(args.inclusive);
  return (m) => {
    const k = tsKey(m.ts);
    const afterOldest = oldest === undefined || k > oldest || (inclusive && k === oldest);
    const beforeLatest = latest === undefined || k < latest || (inclusive && k === latest);
    return afterOldest && beforeLatest;
  };
}

/**
 * One page of `items` (already in answer order: newest first for history, oldest first for
 * replies). The cursor is Slack-shaped, base64 of `next_ts:<ts of the next item>`.
 */
function paginate(
  items: FakeMessage[],
  args: Json,
  order: 'newest_first' | 'oldest_first',
  limits: { default: number; max: number },
) {
  const n = Number(str(args.limit));
  const limit = Number.isInteger(n) && n > 0 ? Math.min(n, limits.max) : limits.default;
  let start = 0;
  const cursor = str(args.cursor);
  if (cursor) {
    const m = /^next_ts:(\d+\.\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
    if (!m) throw new ApiError('invalid_cursor');
    const from = tsKey(m[1]!);
    start = items.findIndex((x) => (order === 'newest_first' ? tsKey(x.ts) <= from : tsKey(x.ts) >= from));
    if (start < 0) start = items.length;
  }
  const page = items.slice(start, start + limit);
  const next = items[start + limit];
  const withMetadata = bool(args.include_all_metadata);
  return {
    messages: page.map((m) => readJson(m, withMetadata)),
    has_more: next !== undefined,
    response_metadata: { next_cursor: next ? Buffer.from(`next_ts:${next.ts}`).toString('base64') : '' },
  };
}

export function historyHandlers(s: SlackState): Record<string, Handler> {
  return {
    // Top-level messages and broadcast replies, newest first; other thread replies only through replies.
    'conversations.history': (args) => {
      const channel = requireString(args, 'channel', 'channel_not_found');
      const inWindow = timeWindow(args);
      const visible = sortedMessages(s, channel)
        .filter((m) => (!m.thread_ts || m.thread_ts === m.ts || m.reply_broadcast) && inWindow(m))
        .reverse();
      return paginate(visible, args, 'newest_first', { default: 100, max: 999 });
    },

    // A thread oldest first. `ts` may be the parent or any reply; a message without replies is
    // its own one-message thread. The parent leads the first page whatever oldest/latest say
    // (as on Slack); continuation pages carry replies only.
    'conversations.replies': (args) => {
      const channel = requireString(args, 'channel', 'channel_not_found');
      const ts = requireString(args, 'ts', 'thread_not_found');
      const target = findMessage(s, channel, ts);
      if (!target) throw new ApiError('thread_not_found');
      const rootTs = target.thread_ts ?? target.ts;
      const parent = findMessage(s, channel, rootTs) ?? target;
      const inWindow = timeWindow(args);
      const replies = sortedMessages(s, channel).filter(
        (m) => m.thread_ts === rootTs && m.ts !== rootTs && inWindow(m),
      );
      return paginate([parent, ...replies], args, 'oldest_first', { default: 1000, max: 1000 });
    },
  };
}
