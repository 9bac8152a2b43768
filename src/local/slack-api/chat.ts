/**
 * The chat methods (post, update, delete, ephemerals, permalinks) and conversations.open:
 * everything that writes the channel model or opens a DM.
 */
import { SLACK_IDS, messageTs, slackId } from '../slack-ids.js';
import { stripUndefined } from '../../util/strip-undefined.js';
import { ApiError, asArray, bool, checkBlocks, checkTextLength, requireString, str } from './args.js';
import {
  addMessage,
  deleteMessage,
  dmChannel,
  findMessage,
  messageContent,
  messageJson,
  resolveChannel,
} from './messages.js';
import type { Handler, SlackState } from './state.js';

export function chatHandlers(s: SlackState): Record<string, Handler> {
  return {
    'chat.postMessage': (args) => {
      const channel = resolveChannel(s, requireString(args, 'channel', 'channel_not_found'));
      const content = messageContent(args);
      const threadTs = str(args.thread_ts);
      const msg = addMessage(
        s,
        channel,
        {
          ...content,
          metadata: args.metadata,
          thread_ts: threadTs,
          reply_broadcast: threadTs ? bool(args.reply_broadcast) || undefined : undefined,
        },
        'chat.postMessage',
      );
      return { channel, ts: msg.ts, message: messageJson(msg) };
    },

    'chat.update': (args) => {
      const channel = resolveChannel(s, requireString(args, 'channel', 'channel_not_found'));
      const ts = requireString(args, 'ts', 'message_not_found');
      const msg = findMessage(s, channel, ts);
      if (!msg || msg.subtype === 'tombstone') throw new ApiError('message_not_found');
      if (msg.user !== SLACK_IDS.botUserId) throw new ApiError('cant_update_message');
      if (args.text === undefined && args.blocks === undefined && args.attachments === undefined)
        throw new ApiError('no_text');
      const blocks = args.blocks !== undefined ? checkBlocks(args.blocks, 50) : undefined;
      const attachments = args.attachments !== undefined ? asArray(args.attachments) : undefined;
      const text = str(args.text);
      checkTextLength(text);
      // Omitted fields keep their previous value; an empty array clears blocks/attachments.
      if (args.text !== undefined) msg.text = text;
      if (blocks) msg.blocks = blocks;
      if (attachments) msg.attachments = attachments;
      if (args.metadata !== undefined) msg.metadata = args.metadata;
      msg.edited = { user: SLACK_IDS.botUserId, ts: messageTs() };
      return { channel, ts, text: msg.text ?? '', message: messageJson(msg) };
    },

    'chat.delete': (args) => {
      const channel = resolveChannel(s, requireString(args, 'channel', 'channel_not_found'));
      const ts = requireString(args, 'ts', 'message_not_found');
      if (!deleteMessage(s, channel, ts)) throw new ApiError('message_not_found');
      return { channel, ts };
    },

    'chat.postEphemeral': (args) => {
      const channel = resolveChannel(s, requireString(args, 'channel', 'channel_not_found'));
      const user = requireString(args, 'user', 'user_not_found');
      const content = messageContent(args);
      const message_ts = messageTs();
      s.ephemerals.push({
        channel,
        user,
        message_ts,
        ...stripUndefined({ ...content, thread_ts: str(args.thread_ts) }),
        via: 'chat.postEphemeral',
      });
      return { message_ts };
    },

    'chat.getPermalink': (args) => {
      const channel = resolveChannel(s, requireString(args, 'channel', 'channel_not_found'));
      const ts = requireString(args, 'message_ts', 'message_not_found');
      const msg = findMessage(s, channel, ts);
      if (!msg) throw new ApiError('message_not_found');
      const base = `https://${SLACK_IDS.teamDomain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
      const permalink = msg.thread_ts ? `${base}?thread_ts=${msg.thread_ts}&cid=${channel}` : base;
      return { channel, permalink };
    },

    'conversations.open': (args) => {
      const channelArg = str(args.channel);
      if (channelArg) return { no_op: true, already_open: true, channel: { id: channelArg } };
      const ids = (str(args.users) ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      if (ids.length === 0) throw new ApiError('users_list_not_supplied');
      const key = ids.sort().join(',');
      const existed = s.dms.has(key);
      const id = ids.length === 1 ? dmChannel(s, key) : (s.dms.get(key) ?? slackId('G'));
      s.dms.set(key, id);
      return { no_op: existed, already_open: existed, channel: { id } };
    },
  };
}
