/**
 * The channel model a person sees: messages in post order (replies carry `thread_ts` and bump
 * their parent's reply count), DM channels per user, and deletes that leave Slack's tombstone.
 */
import { SLACK_IDS, messageTs, slackId } from '../slack-ids.js';
import { stripUndefined } from '../../util/strip-undefined.js';
import { ApiError, asArray, checkBlocks, checkTextLength, str } from './args.js';
import type { ChannelStore, SlackState } from './state.js';
import type { FakeMessage, Json } from './types.js';

function store(s: SlackState, channel: string): ChannelStore {
  let c = s.channelStores.get(channel);
  if (!c) {
    c = { messages: [] };
    s.channelStores.set(channel, c);
  }
  return c;
}

export function findMessage(s: SlackState, channel: string, ts: string): FakeMessage | undefined {
  return s.channelStores.get(channel)?.messages.find((m) => m.ts === ts);
}

export function dmChannel(s: SlackState, userId: string): string {
  let id = s.dms.get(userId);
  if (!id) {
    id = slackId('D');
    s.dms.set(userId, id);
  }
  return id;
}

// Posting to a user id lands in the app's DM with that user, as on Slack.
export function resolveChannel(s: SlackState, channel: string): string {
  return /^[UW][A-Z0-9]+$/.test(channel) ? dmChannel(s, channel) : channel;
}

export function addMessage(s: SlackState, channel: string, fields: Partial<FakeMessage>, via: string): FakeMessage {
  const msg: FakeMessage = {
    type: 'message',
    channel,
    ts: messageTs(),
    user: SLACK_IDS.botUserId,
    bot_id: SLACK_IDS.botId,
    app_id: SLACK_IDS.appId,
    team: SLACK_IDS.teamId,
    ...stripUndefined(fields),
    via,
  };
  store(s, channel).messages.push(msg);
  if (msg.thread_ts) {
    const parent = findMessage(s, channel, msg.thread_ts);
    if (parent) {
      parent.reply_count = (parent.reply_count ?? 0) + 1;
      parent.latest_reply = msg.ts;
    }
  }
  return msg;
}

export function deleteMessage(s: SlackState, channel: string, ts: string): boolean {
  const c = s.channelStores.get(channel);
  const i = c?.messages.findIndex((m) => m.ts === ts) ?? -1;
  if (!c || i < 0) return false;
  const msg = c.messages[i]!;
  if ((msg.reply_count ?? 0) > 0) {
    // Slack keeps a tombstone so the thread stays reachable.
    c.messages[i] = {
      type: 'message',
      subtype: 'tombstone',
      channel,
      ts,
      text: 'This message was deleted.',
      user: 'USLACKBOT',
      team: msg.team,
      reply_count: msg.reply_count,
      latest_reply: msg.latest_reply,
      via: msg.via,
    };
  } else {
    c.messages.splice(i, 1);
    if (msg.thread_ts) {
      const parent = findMessage(s, channel, msg.thread_ts);
      if (parent?.reply_count) parent.reply_count -= 1;
    }
  }
  return true;
}

/** A message as the Web API returns it: without the fake's own fields. */
export function messageJson(m: FakeMessage): Json {
  const { via: _via, channel: _channel, ...rest } = m;
  return rest;
}

/** text / blocks / attachments of a post, checked as Slack checks them (one of them must say something). */
export function messageContent(args: Json): Pick<FakeMessage, 'text' | 'blocks' | 'attachments'> {
  const text = str(args.text);
  const blocks = args.blocks !== undefined ? checkBlocks(args.blocks, 50) : undefined;
  const attachments = args.attachments !== undefined ? asArray(args.attachments) : undefined;
  if (!text && !blocks?.length && !attachments?.length) throw new ApiError('no_text');
  checkTextLength(text);
  return stripUndefined({ text, blocks, attachments });
}
