/**
 * The Slack Web API of the local workspace, and the recording fake of the tests: one
 * implementation, so what the tests check is what a person sees in the browser.
 * It listens on a loopback port (random unless given). Bolt's WebClient is
 * pointed at it with `clientOptions: { slackApiUrl: fake.url }`; the fake answers the way
 * Slack does (HTTP 200 with `ok: false` for API errors, 429 + Retry-After for rate limits)
 * and keeps a model of what a user would see: channel messages after updates and deletes,
 * ephemerals, uploaded files, modals, and messages posted through response_urls.
 * conversations.history and conversations.replies read that same model back.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SLACK_IDS, messageTs, slackId, triggerId } from './slack-ids.js';
import { stripUndefined } from '../util/strip-undefined.js';

export type Json = Record<string, unknown>;

export interface RecordedCall {
  /** Web API method (`chat.postMessage`), or the pseudo-methods `response_url` and `file_upload`. */
  method: string;
  /** Arguments as the fake understood them: JSON-encoded fields (blocks, view, ...) decoded. */
  args: Json;
  token: string | undefined;
  /** Date.now() when the request arrived (before any injected delay). */
  at: number;
  /** Filled in once answered. */
  status?: number;
  response?: unknown;
}

export interface FailureSpec {
  /** HTTP status to answer with (429 gets `Retry-After` when `retryAfter` is set). */
  status?: number;
  /** Seconds for the Retry-After header; alone it implies status 429. */
  retryAfter?: number;
  /** Answer HTTP 200 `{ ok: false, error }`. */
  error?: string;
  /** Hold the answer this long; alone it means "slow, then the normal answer" (for client timeouts). */
  delayMs?: number;
  /** How many consecutive calls the rule applies to (default 1). */
  times?: number;
}

export interface FakeFileRef {
  id: string;
  name: string;
  title: string;
}

export interface FakeMessage {
  type: 'message';
  subtype?: string;
  channel: string;
  ts: string;
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: unknown;
  files?: FakeFileRef[];
  user: string;
  bot_id?: string;
  app_id?: string;
  team: string;
  /** Set on replies: the parent's ts. */
  thread_ts?: string;
  reply_broadcast?: boolean;
  /** Set on parents that have replies. */
  reply_count?: number;
  latest_reply?: string;
  edited?: { user: string; ts: string };
  /** How it got there: `chat.postMessage`, `response_url`, `files.completeUploadExternal`. */
  via: string;
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  message_ts: string;
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  thread_ts?: string;
  via: string;
}

export interface FakeFile {
  id: string;
  name: string;
  title: string;
  /** The uploaded bytes. */
  content: Buffer;
  /** `content` decoded as UTF-8, for text files. */
  text: string;
  /** What files.getUploadURLExternal was told; real Slack rejects a mismatch, so tests may compare. */
  declaredLength: number;
  channel?: string;
  thread_ts?: string;
  initial_comment?: string;
  alt_text?: string;
  snippet_type?: string;
}

export interface FakeView {
  id: string;
  team_id: string;
  type: string;
  callback_id?: string;
  private_metadata?: string;
  external_id?: string;
  title?: unknown;
  submit?: unknown;
  close?: unknown;
  blocks: unknown[];
  state: { values: Json };
  hash: string;
  root_view_id: string;
  previous_view_id: string | null;
  app_id: string;
  bot_id: string;
  /** For App Home tabs: whose home it is. */
  user_id?: string;
  /** Any other field the app sent in the view (notify_on_close, clear_on_close, ...). */
  [key: string]: unknown;
}

export interface ResponsePost {
  id: string;
  url: string;
  body: Json;
  at: number;
  status: number;
}

export interface ResponseMessage {
  response_type: 'ephemeral' | 'in_channel';
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  thread_ts?: string;
}

export interface ResponseUrlOptions {
  /** Channel the interaction happened in: `in_channel` responses appear there too. */
  channel?: string;
  /** The user who triggered it (ephemeral responses are for them). */
  user?: string;
  /**
   * The channel message the interaction came from (a button on it): `replace_original`
   * and `delete_original` then act on that message in `fake.channel(channel)`.
   */
  messageTs?: string;
  /**
   * The ephemeral message the interaction came from (a button on a response_url message):
   * `replace_original` / `delete_original` then act on that message, as on Slack.
   */
  original?: { responseUrl: string; ts: string };
}

export interface SlackUser {
  id: string;
  team_id: string;
  name: string;
  real_name: string;
  deleted: boolean;
  is_bot: boolean;
  is_admin: boolean;
  tz: string;
  tz_offset: number;
  profile: Json;
  [key: string]: unknown;
}

/** Anything that can hand out a WebSocket URL for apps.connections.open (the socket fake). */
export interface SocketUrlSource {
  issueUrl(): string;
}

export interface FakeSlackOptions {
  /** If set, only these tokens are accepted; others get `invalid_auth`. */
  tokens?: string[];
  /** users.info overrides, merged over a synthesised user. */
  users?: Record<string, Partial<SlackUser>>;
  /** usergroups.users.list members per group id (`S...`). */
  usergroups?: Record<string, string[]>;
  /** Socket fake whose URL apps.connections.open returns. */
  socket?: SocketUrlSource;
  /** Slack allows five posts per response_url; the sixth gets 404 `used_url`. */
  responseUrlMaxUses?: number;
  /** Default timeout of waitFor (ms). */
  waitTimeoutMs?: number;
  /**
   * Consulted before every Web API call (after failNext rules): a FailureSpec answers the call
   * with that failure (e.g. a rate limiter returning `{ retryAfter: 1 }`); undefined lets it through.
   */
  gate?: ApiGate;
  /** Listen address (default 127.0.0.1) and port (default: a random free one). */
  host?: string;
  port?: number;
}

/** A user-visible ephemeral, wherever it came from (chat.postEphemeral, a response_url, an ack body). */
export interface VisibleEphemeral {
  channel: string;
  user: string;
  ts: string;
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  /** Set when it came through a response_url: buttons on it act on it through that URL's state. */
  responseUrl?: string;
  via: string;
}

export type ApiGate = (method: string, args: Json) => FailureSpec | undefined;

export interface FakeSlack {
  /** `http://127.0.0.1:<port>/api/` — give it to WebClient as `slackApiUrl`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  calls(method?: string): RecordedCall[];
  waitFor(method: string, predicate?: (call: RecordedCall) => boolean, timeoutMs?: number): Promise<RecordedCall>;
  failNext(method: string, spec?: FailureSpec): void;
  /** Live messages of a channel in post order, replies included (they carry `thread_ts`). */
  channel(id: string): FakeMessage[];
  /** Replies to one parent, oldest first (the parent itself excluded). */
  thread(channel: string, threadTs: string): FakeMessage[];
  /** Channel ids that have received anything. */
  channels(): string[];
  ephemerals(channel?: string, user?: string): FakeEphemeral[];
  /** Files whose upload was completed (shared or not). */
  files(): FakeFile[];
  /** Modals currently known (opened, pushed, updated). */
  views(): FakeView[];
  view(idOrExternalId: string): FakeView | undefined;
  homeTab(userId: string): FakeView | undefined;
  /** The DM channel id conversations.open returns for a user (stable per fake). */
  dmChannel(userId: string): string;
  responseUrl(opts?: ResponseUrlOptions): string;
  /** Every POST to any response_url, in order. */
  readonly responses: ResponsePost[];
  /** What the user currently sees from one response_url (after replace/delete). */
  responseMessages(urlOrId: string): ResponseMessage[];
  setUser(id: string, user: Partial<SlackUser>): void;
  setUsergroup(id: string, members: string[]): void;
  attachSocket(source: SocketUrlSource | undefined): void;
  /** Replace the gate of FakeSlackOptions (undefined removes it). */
  setGate(gate: ApiGate | undefined): void;
  /** Called (synchronously) after anything a person could see may have changed. */
  onChange(listener: () => void): () => void;
  /** A trigger_id for an interaction by `user`: modals opened with it belong to that user. */
  issueTrigger(user: string): string;
  /** The modals open for `user`, bottom of the stack first. */
  openViews(user: string): FakeView[];
  /** Close a modal (the user pressed Cancel, or the app's ack closed it). */
  closeView(id: string): void;
  /** Apply a view_submission ack: `update` replaces the view, `push` stacks one, `clear` closes all. */
  applyViewResponse(user: string, viewId: string, response: Json): void;
  /** Show a message only `user` sees in `channel` (a slash command's ack body). */
  showEphemeral(channel: string, user: string, content: { text?: string; blocks?: unknown[] }, via: string): void;
  /** Every ephemeral `user` can see, oldest first. */
  visibleEphemerals(user: string): VisibleEphemeral[];
  file(id: string): FakeFile | undefined;
  /** Forget every call, message, file, view, response and pending failure; keeps users, groups and socket. */
  reset(): void;
  close(): Promise<void>;
}

const READ_METHODS = new Set(['auth.test', 'api.test', 'conversations.history', 'conversations.replies', 'users.info', 'usergroups.users.list', 'chat.getPermalink']);

// Fields that WebClient JSON-encodes inside form bodies; decoded so tests assert on objects.
const STRUCTURED_FIELDS = new Set(['blocks', 'attachments', 'view', 'metadata', 'files', 'unfurls', 'user_auth_blocks']);

class ApiError extends Error {
  constructor(
    readonly error: string,
    readonly messages: string[] = [],
  ) {
    super(error);
  }
}

interface ResponseUrlState {
  id: string;
  url: string;
  opts: ResponseUrlOptions;
  uses: number;
  messages: ResponseMessage[];
  /** A ts per message (parallel to `messages`), so a person sees them in time order with the rest. */
  stamps: string[];
}

interface PendingUpload {
  id: string;
  filename: string;
  declaredLength: number;
  alt_text?: string;
  snippet_type?: string;
  content?: Buffer;
  completed?: FakeFile;
}

interface ChannelStore {
  messages: FakeMessage[];
}

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const maxUses = opts.responseUrlMaxUses ?? 5;
  const defaultWait = opts.waitTimeoutMs ?? 3000;
  let socket = opts.socket;
  let gate = opts.gate;

  let calls: RecordedCall[] = [];
  let failures = new Map<string, Array<FailureSpec & { left: number }>>();
  let channelStores = new Map<string, ChannelStore>();
  let ephemerals: FakeEphemeral[] = [];
  let uploads = new Map<string, PendingUpload>();
  let views = new Map<string, FakeView>();
  let homeTabs = new Map<string, FakeView>();
  let responseUrls = new Map<string, ResponseUrlState>();
  let responses: ResponsePost[] = [];
  const users = new Map<string, Partial<SlackUser>>(Object.entries(opts.users ?? {}));
  const usergroups = new Map<string, string[]>(Object.entries(opts.usergroups ?? {}));
  const dms = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();
  const listeners = new Set<() => void>();
  const triggerOwners = new Map<string, string>();
  let viewOwners = new Map<string, string>();

  function changed(): void {
    for (const l of listeners) {
      try {
        l();
      } catch {
        // A listener's failure is its own business; the API keeps answering.
      }
    }
  }

  let origin = '';

  // ---------- the user-visible model ----------

  function store(channel: string): ChannelStore {
    let s = channelStores.get(channel);
    if (!s) {
      s = { messages: [] };
      channelStores.set(channel, s);
    }
    return s;
  }

  function findMessage(channel: string, ts: string): FakeMessage | undefined {
    return channelStores.get(channel)?.messages.find((m) => m.ts === ts);
  }

  function dmChannel(userId: string): string {
    let id = dms.get(userId);
    if (!id) {
      id = slackId('D');
      dms.set(userId, id);
    }
    return id;
  }

  // Posting to a user id lands in the app's DM with that user, as on Slack.
  function resolveChannel(channel: string): string {
    return /^[UW][A-Z0-9]+$/.test(channel) ? dmChannel(channel) : channel;
  }

  function addMessage(channel: string, fields: Partial<FakeMessage>, via: string): FakeMessage {
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
    store(channel).messages.push(msg);
    if (msg.thread_ts) {
      const parent = findMessage(channel, msg.thread_ts);
      if (parent) {
        parent.reply_count = (parent.reply_count ?? 0) + 1;
        parent.latest_reply = msg.ts;
      }
    }
    return msg;
  }

  function deleteMessage(channel: string, ts: string): boolean {
    const s = channelStores.get(channel);
    const i = s?.messages.findIndex((m) => m.ts === ts) ?? -1;
    if (!s || i < 0) return false;
    const msg = s.messages[i]!;
    if ((msg.reply_count ?? 0) > 0) {
      // Slack keeps a tombstone so the thread stays reachable.
      s.messages[i] = {
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
      s.messages.splice(i, 1);
      if (msg.thread_ts) {
        const parent = findMessage(channel, msg.thread_ts);
        if (parent && parent.reply_count) parent.reply_count -= 1;
      }
    }
    return true;
  }

  function messageJson(m: FakeMessage): Json {
    const { via: _via, channel: _channel, ...rest } = m;
    return rest;
  }

  // ---------- reading the model back (conversations.history / replies) ----------

  // As Slack shows it when read back: a thread parent carries thread_ts = its own ts, and
  // metadata only comes with include_all_metadata.
  function readJson(m: FakeMessage, withMetadata: boolean): Json {
    const { metadata, ...rest } = messageJson(m);
    const out: Json = m.reply_count !== undefined && !m.thread_ts ? { ...rest, thread_ts: m.ts } : rest;
    if (withMetadata && metadata !== undefined) out.metadata = metadata;
    return out;
  }

  function sortedMessages(channel: string): FakeMessage[] {
    return [...(channelStores.get(channel)?.messages ?? [])].sort((a, b) => compareTs(a.ts, b.ts));
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
  function paginate(items: FakeMessage[], args: Json, order: 'newest_first' | 'oldest_first', limits: { default: number; max: number }) {
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

  // ---------- Web API methods ----------

  type Handler = (args: Json, token: string) => Json;

  const handlers: Record<string, Handler> = {
    'api.test': (args) => ({ args }),

    'auth.test': () => ({
      url: `https://${SLACK_IDS.teamDomain}.slack.com/`,
      team: SLACK_IDS.teamName,
      user: SLACK_IDS.botName,
      team_id: SLACK_IDS.teamId,
      user_id: SLACK_IDS.botUserId,
      bot_id: SLACK_IDS.botId,
      app_id: SLACK_IDS.appId,
      is_enterprise_install: false,
    }),

    'chat.postMessage': (args) => {
      const channel = resolveChannel(requireString(args, 'channel', 'channel_not_found'));
      const content = messageContent(args);
      const threadTs = str(args.thread_ts);
      const msg = addMessage(
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
      const channel = resolveChannel(requireString(args, 'channel', 'channel_not_found'));
      const ts = requireString(args, 'ts', 'message_not_found');
      const msg = findMessage(channel, ts);
      if (!msg || msg.subtype === 'tombstone') throw new ApiError('message_not_found');
      if (msg.user !== SLACK_IDS.botUserId) throw new ApiError('cant_update_message');
      if (args.text === undefined && args.blocks === undefined && args.attachments === undefined) throw new ApiError('no_text');
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
      const channel = resolveChannel(requireString(args, 'channel', 'channel_not_found'));
      const ts = requireString(args, 'ts', 'message_not_found');
      if (!deleteMessage(channel, ts)) throw new ApiError('message_not_found');
      return { channel, ts };
    },

    'chat.postEphemeral': (args) => {
      const channel = resolveChannel(requireString(args, 'channel', 'channel_not_found'));
      const user = requireString(args, 'user', 'user_not_found');
      const content = messageContent(args);
      const message_ts = messageTs();
      ephemerals.push({
        channel,
        user,
        message_ts,
        ...stripUndefined({ ...content, thread_ts: str(args.thread_ts) }),
        via: 'chat.postEphemeral',
      });
      return { message_ts };
    },

    'chat.getPermalink': (args) => {
      const channel = resolveChannel(requireString(args, 'channel', 'channel_not_found'));
      const ts = requireString(args, 'message_ts', 'message_not_found');
      const msg = findMessage(channel, ts);
      if (!msg) throw new ApiError('message_not_found');
      const base = `https://${SLACK_IDS.teamDomain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
      const permalink = msg.thread_ts ? `${base}?thread_ts=${msg.thread_ts}&cid=${channel}` : base;
      return { channel, permalink };
    },

    // Top-level messages and broadcast replies, newest first; other thread replies only through replies.
    'conversations.history': (args) => {
      const channel = requireString(args, 'channel', 'channel_not_found');
      const inWindow = timeWindow(args);
      const visible = sortedMessages(channel)
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
      const target = findMessage(channel, ts);
      if (!target) throw new ApiError('thread_not_found');
      const rootTs = target.thread_ts ?? target.ts;
      const parent = findMessage(channel, rootTs) ?? target;
      const inWindow = timeWindow(args);
      const replies = sortedMessages(channel).filter((m) => m.thread_ts === rootTs && m.ts !== rootTs && inWindow(m));
      return paginate([parent, ...replies], args, 'oldest_first', { default: 1000, max: 1000 });
    },

    'conversations.open': (args) => {
      const channelArg = str(args.channel);
      if (channelArg) return { no_op: true, already_open: true, channel: { id: channelArg } };
      const ids = (str(args.users) ?? '').split(',').map((u) => u.trim()).filter(Boolean);
      if (ids.length === 0) throw new ApiError('users_list_not_supplied');
      const key = ids.sort().join(',');
      const existed = dms.has(key);
      const id = ids.length === 1 ? dmChannel(key) : (dms.get(key) ?? slackId('G'));
      dms.set(key, id);
      return { no_op: existed, already_open: existed, channel: { id } };
    },

    'users.info': (args) => {
      const id = requireString(args, 'user', 'user_not_found');
      const override = users.get(id);
      if (!override && !/^[UW][A-Z0-9]+$/.test(id)) throw new ApiError('user_not_found');
      return { user: synthUser(id, override) };
    },

    'usergroups.users.list': (args) => {
      const group = requireString(args, 'usergroup', 'no_such_subteam');
      const members = usergroups.get(group);
      if (!members) throw new ApiError('no_such_subteam');
      return { users: [...members] };
    },

    'views.open': (args) => {
      const trigger = requireString(args, 'trigger_id', 'invalid_arguments');
      const view = newView(args.view, null);
      const owner = triggerOwners.get(trigger);
      if (owner) viewOwners.set(view.id, owner);
      return { view };
    },

    'views.push': (args) => {
      const trigger = requireString(args, 'trigger_id', 'invalid_arguments');
      const owner = triggerOwners.get(trigger);
      const top = owner ? stackOf(owner).at(-1) : [...views.values()].at(-1);
      const view = newView(args.view, top ?? null);
      if (owner) viewOwners.set(view.id, owner);
      return { view };
    },

    'views.update': (args) => {
      const id = str(args.view_id);
      const externalId = str(args.external_id);
      if (!id && !externalId) throw new ApiError('invalid_arguments', ['[ERROR] view_id or external_id is required']);
      const current = id ? views.get(id) : [...views.values()].find((v) => v.external_id === externalId);
      if (!current) throw new ApiError('not_found');
      const hash = str(args.hash);
      if (hash && hash !== current.hash) throw new ApiError('hash_conflict');
      const next = buildView(args.view, current.id);
      const updated: FakeView = {
        ...next,
        id: current.id,
        root_view_id: current.root_view_id,
        previous_view_id: current.previous_view_id,
      };
      views.set(current.id, updated);
      return { view: updated };
    },

    'views.publish': (args) => {
      const user = requireString(args, 'user_id', 'invalid_arguments');
      const previous = homeTabs.get(user);
      const hash = str(args.hash);
      if (hash && previous && hash !== previous.hash) throw new ApiError('hash_conflict');
      const view = buildView(args.view, previous?.id ?? slackId('V'));
      if (view.type !== 'home') throw new ApiError('invalid_arguments', ['[ERROR] views.publish needs a view of type home']);
      view.user_id = user;
      homeTabs.set(user, view);
      return { view };
    },

    'files.getUploadURLExternal': (args) => {
      const filename = requireString(args, 'filename', 'invalid_arguments');
      const length = Number(args.length);
      if (!Number.isInteger(length) || length <= 0) throw new ApiError('invalid_arguments', ['[ERROR] length must be a positive integer']);
      const id = slackId('F');
      uploads.set(id, {
        id,
        filename,
        declaredLength: length,
        ...stripUndefined({ alt_text: str(args.alt_text), snippet_type: str(args.snippet_type) }),
      });
      return { upload_url: `${origin}/upload/v1/${id}`, file_id: id };
    },

    'files.completeUploadExternal': (args) => {
      const list = args.files;
      if (!Array.isArray(list) || list.length === 0) throw new ApiError('invalid_arguments', ['[ERROR] files is required']);
      const channel = str(args.channel_id) ?? str(args.channels)?.split(',')[0];
      const threadTs = str(args.thread_ts);
      const initialComment = str(args.initial_comment);
      const done: FakeFile[] = [];
      for (const entry of list) {
        const e = (entry ?? {}) as Json;
        const up = uploads.get(String(e.id));
        if (!up || !up.content) throw new ApiError('file_not_found');
        if (up.completed) throw new ApiError('file_already_completed');
        const file: FakeFile = {
          id: up.id,
          name: up.filename,
          title: str(e.title) ?? up.filename,
          content: up.content,
          text: up.content.toString('utf8'),
          declaredLength: up.declaredLength,
          ...stripUndefined({
            channel: channel ? resolveChannel(channel) : undefined,
            thread_ts: threadTs,
            initial_comment: initialComment,
            alt_text: up.alt_text,
            snippet_type: up.snippet_type,
          }),
        };
        up.completed = file;
        done.push(file);
      }
      if (channel) {
        // Sharing files shows a message with them (and the initial comment) in the channel or thread.
        addMessage(
          resolveChannel(channel),
          {
            text: initialComment ?? '',
            files: done.map((f) => ({ id: f.id, name: f.name, title: f.title })),
            thread_ts: threadTs,
            blocks: args.blocks !== undefined ? asArray(args.blocks) : undefined,
          },
          'files.completeUploadExternal',
        );
      }
      return {
        files: done.map((f) => ({
          id: f.id,
          created: Math.floor(Date.now() / 1000),
          timestamp: Math.floor(Date.now() / 1000),
          name: f.name,
          title: f.title,
          mimetype: mimeType(f.name),
          filetype: f.name.split('.').pop() ?? '',
          user: SLACK_IDS.botUserId,
          size: f.content.length,
          is_public: Boolean(channel),
          permalink: `https://${SLACK_IDS.teamDomain}.slack.com/files/${SLACK_IDS.botUserId}/${f.id}/${f.name}`,
          channels: f.channel ? [f.channel] : [],
        })),
      };
    },

    'apps.connections.open': () => {
      if (!socket) {
        // invalid_auth is one of the errors SocketModeClient treats as unrecoverable: start() fails fast instead of
        // retrying forever. The [ERROR] line is printed by WebClient's logger.
        throw new ApiError('invalid_auth', ['[ERROR] fake-slack: no socket fake attached (use startFakeSlack({ socket }) or attachSocket)']);
      }
      return { url: socket.issueUrl() };
    },
  };

  function stackOf(user: string): FakeView[] {
    return [...views.values()].filter((v) => viewOwners.get(v.id) === user);
  }

  function newView(raw: unknown, previous: FakeView | null): FakeView {
    const id = slackId('V');
    const view: FakeView = {
      ...buildView(raw, id),
      root_view_id: previous?.root_view_id ?? id,
      previous_view_id: previous?.id ?? null,
    };
    if (view.type !== 'modal') throw new ApiError('invalid_arguments', ['[ERROR] only modal views can be opened or pushed']);
    views.set(id, view);
    return view;
  }

  function buildView(raw: unknown, id: string): FakeView {
    const v = decodeJson(raw);
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ApiError('invalid_arguments', ['[ERROR] view is required']);
    const view = v as Json;
    const type = str(view.type);
    if (type !== 'modal' && type !== 'home') throw new ApiError('invalid_arguments', ['[ERROR] view.type must be modal or home']);
    const pm = str(view.private_metadata);
    if (pm && pm.length > 3000) throw new ApiError('invalid_arguments', ['[ERROR] private_metadata must be at most 3000 characters']);
    const titleText = ((view.title ?? {}) as Json).text;
    if (type === 'modal') {
      if (typeof titleText !== 'string' || titleText.length === 0 || titleText.length > 24) {
        throw new ApiError('invalid_arguments', ['[ERROR] modal title text must be 1 to 24 characters']);
      }
    }
    const blocks = checkBlocks(view.blocks ?? [], 100, 'invalid_arguments');
    return {
      // Slack's view objects always carry these, empty when the app set none.
      callback_id: '',
      private_metadata: '',
      ...view,
      id,
      team_id: SLACK_IDS.teamId,
      type,
      blocks,
      state: { values: {} },
      hash: `${Math.floor(Date.now() / 1000)}.${Math.random().toString(36).slice(2, 10)}`,
      root_view_id: id,
      previous_view_id: null,
      app_id: SLACK_IDS.appId,
      bot_id: SLACK_IDS.botId,
    };
  }

  function messageContent(args: Json): Pick<FakeMessage, 'text' | 'blocks' | 'attachments'> {
    const text = str(args.text);
    const blocks = args.blocks !== undefined ? checkBlocks(args.blocks, 50) : undefined;
    const attachments = args.attachments !== undefined ? asArray(args.attachments) : undefined;
    if (!text && !(blocks && blocks.length) && !(attachments && attachments.length)) throw new ApiError('no_text');
    checkTextLength(text);
    return stripUndefined({ text, blocks, attachments });
  }

  function synthUser(id: string, override: Partial<SlackUser> | undefined): SlackUser {
    const name = override?.name ?? (id === SLACK_IDS.userId ? SLACK_IDS.userName : `user-${id.toLowerCase()}`);
    const realName = override?.real_name ?? name.replace(/(^|[-_.])(\w)/g, (_m, _s: string, c: string) => ` ${c.toUpperCase()}`).trim();
    return {
      id,
      team_id: SLACK_IDS.teamId,
      name,
      real_name: realName,
      deleted: false,
      is_bot: false,
      is_admin: false,
      is_owner: false,
      is_restricted: false,
      is_ultra_restricted: false,
      tz: 'Europe/London',
      tz_label: 'Greenwich Mean Time',
      tz_offset: 0,
      ...override,
      profile: {
        real_name: realName,
        display_name: name,
        email: `${name}@example.com`,
        team: SLACK_IDS.teamId,
        ...(override?.profile ?? {}),
      },
    };
  }

  // ---------- HTTP plumbing ----------

  function takeFailure(method: string): FailureSpec | undefined {
    const queue = failures.get(method);
    const rule = queue?.[0];
    if (!queue || !rule) return undefined;
    rule.left -= 1;
    if (rule.left <= 0) queue.shift();
    return rule;
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  }

  function send(res: ServerResponse, call: RecordedCall | undefined, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (call) {
      call.status = status;
      call.response = body;
    }
    // The client may have given up (timeout) while we were delaying.
    if (res.destroyed || res.writableEnded) return;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
      ...headers,
    });
    res.end(text);
  }

  // Returns true when the failure fully answered the request.
  async function applyFailure(method: string, res: ServerResponse, call: RecordedCall): Promise<boolean> {
    const rule = takeFailure(method) ?? gate?.(method, call.args);
    if (!rule) return false;
    if (rule.delayMs) await sleep(rule.delayMs);
    const status = rule.status ?? (rule.retryAfter !== undefined ? 429 : undefined);
    if (status !== undefined) {
      const headers: Record<string, string> = {};
      if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
      const error = rule.error ?? (status === 429 ? 'ratelimited' : 'fatal_error');
      send(res, call, status, { ok: false, error }, headers);
      return true;
    }
    if (rule.error) {
      send(res, call, 200, { ok: false, error: rule.error });
      return true;
    }
    return false;
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, method: string, raw: Buffer, query: URLSearchParams): Promise<void> {
    let parsed: ParsedBody;
    try {
      parsed = await parseBody(req, raw);
    } catch {
      calls.push({ method, args: { raw: raw.toString('utf8').slice(0, 500) }, token: bearer(req), at: Date.now(), status: 200, response: { ok: false, error: 'invalid_json' } });
      return send(res, undefined, 200, { ok: false, error: 'invalid_json' });
    }
    const args: Json = {};
    for (const [k, v] of query) args[k] = v;
    Object.assign(args, parsed.fields);
    for (const key of Object.keys(args)) if (STRUCTURED_FIELDS.has(key)) args[key] = decodeJson(args[key]);
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : str(args.token);
    delete args.token;
    const call: RecordedCall = { method, args, token, at: Date.now() };
    calls.push(call);

    if (await applyFailure(method, res, call)) return;

    const handler = handlers[method];
    if (!handler) return send(res, call, 200, { ok: false, error: 'unknown_method', req_method: method });
    if (!token) return send(res, call, 200, { ok: false, error: 'not_authed' });
    if (opts.tokens && !opts.tokens.includes(token)) return send(res, call, 200, { ok: false, error: 'invalid_auth' });
    const appToken = token.startsWith('xapp-');
    if (appToken !== (method === 'apps.connections.open')) return send(res, call, 200, { ok: false, error: 'not_allowed_token_type' });
    try {
      send(res, call, 200, { ok: true, ...handler(args, token) });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const body: Json = { ok: false, error: err.error };
      if (err.messages.length) body.response_metadata = { messages: err.messages };
      send(res, call, 200, body);
    }
  }

  async function handleUpload(req: IncomingMessage, res: ServerResponse, id: string, raw: Buffer): Promise<void> {
    const call: RecordedCall = { method: 'file_upload', args: { file_id: id, bytes: raw.length }, token: bearer(req), at: Date.now() };
    calls.push(call);
    if (await applyFailure('file_upload', res, call)) return;
    const up = uploads.get(id);
    if (!up) return send(res, call, 404, 'Not Found');
    const parsed = await parseBody(req, raw);
    // WebClient sends the bytes as a multipart file part; curl-style clients send them raw.
    up.content = parsed.file ?? raw;
    send(res, call, 200, `OK - ${up.content.length}`);
  }

  async function handleResponseUrl(req: IncomingMessage, res: ServerResponse, id: string, raw: Buffer): Promise<void> {
    const state = responseUrls.get(id);
    const parsed = await parseBody(req, raw);
    const body = parsed.fields;
    for (const key of Object.keys(body)) if (STRUCTURED_FIELDS.has(key)) body[key] = decodeJson(body[key]);
    const call: RecordedCall = { method: 'response_url', args: { ...body, response_url_id: id }, token: undefined, at: Date.now() };
    calls.push(call);
    const post: ResponsePost = { id, url: `${origin}/response/${id}`, body, at: call.at, status: 0 };
    responses.push(post);
    const answer = (status: number, payload: unknown): void => {
      post.status = status;
      send(res, call, status, payload);
    };
    if (await applyFailure('response_url', res, call)) {
      post.status = call.status ?? 0;
      return;
    }
    if (!state) return answer(404, { ok: false, error: 'expired_url' });
    if (state.uses >= maxUses) return answer(404, { ok: false, error: 'used_url' });
    state.uses += 1;
    try {
      applyResponse(state, body);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return answer(200, { ok: false, error: err.error });
    }
    answer(200, { ok: true });
  }

  function applyResponse(state: ResponseUrlState, body: Json): void {
    const { channel, messageTs: originalTs, original } = state.opts;
    // A button on an ephemeral: replace or delete that ephemeral, where it came from.
    const from = original ? responseUrls.get(original.responseUrl.split('/').pop() ?? '') : undefined;
    const at = from && original ? from.stamps.indexOf(original.ts) : -1;
    if (from && at >= 0 && (bool(body.delete_original) || bool(body.replace_original))) {
      if (bool(body.delete_original)) {
        from.messages.splice(at, 1);
        from.stamps.splice(at, 1);
        return;
      }
      const blocks = body.blocks !== undefined ? checkBlocks(body.blocks, 50) : undefined;
      const text = str(body.text);
      if (!text && !(blocks && blocks.length)) throw new ApiError('no_text');
      from.messages[at] = stripUndefined({ response_type: 'ephemeral' as const, text, blocks, thread_ts: str(body.thread_ts) });
      return;
    }
    if (bool(body.delete_original)) {
      if (originalTs && channel) {
        if (!deleteMessage(channel, originalTs)) throw new ApiError('message_not_found');
      } else {
        state.messages.pop();
      }
      return;
    }
    const blocks = body.blocks !== undefined ? checkBlocks(body.blocks, 50) : undefined;
    const attachments = body.attachments !== undefined ? asArray(body.attachments) : undefined;
    const text = str(body.text);
    if (!text && !(blocks && blocks.length) && !(attachments && attachments.length)) throw new ApiError('no_text');
    const responseType = body.response_type === 'in_channel' ? 'in_channel' : 'ephemeral';
    const message: ResponseMessage = stripUndefined({ response_type: responseType, text, blocks, attachments, thread_ts: str(body.thread_ts) });
    if (bool(body.replace_original)) {
      if (originalTs && channel) {
        const original = findMessage(channel, originalTs);
        if (!original) throw new ApiError('message_not_found');
        // Replacing swaps the whole content; nothing of the old message survives.
        original.text = text;
        original.blocks = blocks;
        original.attachments = attachments;
        original.edited = { user: SLACK_IDS.botUserId, ts: messageTs() };
        for (const k of ['text', 'blocks', 'attachments'] as const) if (original[k] === undefined) delete original[k];
      }
      if (state.messages.length) state.messages[state.messages.length - 1] = message;
      else {
        state.messages.push(message);
        state.stamps.push(messageTs());
      }
      return;
    }
    state.messages.push(message);
    state.stamps.push(messageTs());
    if (responseType === 'in_channel' && channel) addMessage(channel, stripUndefined({ text, blocks, attachments, thread_ts: message.thread_ts }), 'response_url');
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://fake');
      const route = (async () => {
        let m: RegExpMatchArray | null;
        if ((m = url.pathname.match(/^\/api\/([A-Za-z0-9_.]+)$/))) return handleApi(req, res, m[1]!, raw, url.searchParams);
        if (req.method === 'POST' && (m = url.pathname.match(/^\/upload\/v1\/([A-Z0-9]+)$/))) return handleUpload(req, res, m[1]!, raw);
        if (req.method === 'POST' && (m = url.pathname.match(/^\/response\/([A-Za-z0-9-]+)$/))) return handleResponseUrl(req, res, m[1]!, raw);
        return send(res, undefined, 404, 'Not Found');
      })();
      route
        .then(() => {
          // Reads change nothing a person sees; everything else may have.
          const method = /^\/api\/(.+)$/.exec(url.pathname)?.[1];
          if (!method || !READ_METHODS.has(method)) changed();
        })
        .catch((err: unknown) => send(res, undefined, 500, { ok: false, error: 'fake_slack_crashed', detail: String(err) }));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;

  const fake: FakeSlack = {
    url: `${origin}/api/`,
    origin,
    port,

    calls: (method) => (method ? calls.filter((c) => c.method === method) : [...calls]),

    async waitFor(method, predicate, timeoutMs = defaultWait) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = calls.find((c) => c.method === method && (!predicate || predicate(c)));
        if (hit) return hit;
        if (Date.now() >= deadline) throw new Error(describeMiss(method, calls, timeoutMs, Boolean(predicate)));
        await sleep(5);
      }
    },

    failNext(method, spec = {}) {
      const queue = failures.get(method) ?? [];
      queue.push({ ...spec, left: spec.times ?? 1 });
      failures.set(method, queue);
    },

    channel: (id) => (channelStores.get(id)?.messages ?? []).map((m) => ({ ...m })),
    thread: (channel, threadTs) =>
      (channelStores.get(channel)?.messages ?? []).filter((m) => m.thread_ts === threadTs && m.ts !== threadTs).map((m) => ({ ...m })),
    channels: () => [...channelStores.keys()],
    ephemerals: (channel, user) => ephemerals.filter((e) => (!channel || e.channel === channel) && (!user || e.user === user)),
    files: () => [...uploads.values()].flatMap((u) => (u.completed ? [u.completed] : [])),
    views: () => [...views.values()],
    view: (id) => views.get(id) ?? [...views.values()].find((v) => v.external_id === id),
    homeTab: (userId) => homeTabs.get(userId),
    dmChannel,

    responseUrl(o = {}) {
      const id = slackId('R', 8) + '-' + Math.random().toString(36).slice(2, 10);
      const url = `${origin}/response/${id}`;
      responseUrls.set(id, { id, url, opts: o, uses: 0, messages: [], stamps: [] });
      return url;
    },
    get responses() {
      return [...responses];
    },
    responseMessages(urlOrId) {
      const id = urlOrId.includes('/') ? (urlOrId.split('/').pop() ?? '') : urlOrId;
      const state = responseUrls.get(id);
      if (!state) throw new Error(`fake-slack: no response_url ${urlOrId} was issued`);
      return [...state.messages];
    },

    setUser: (id, user) => void users.set(id, user),
    setUsergroup: (id, members) => void usergroups.set(id, [...members]),
    attachSocket(source) {
      socket = source;
    },

    setGate(g) {
      gate = g;
    },

    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },

    issueTrigger(user) {
      const id = triggerId();
      triggerOwners.set(id, user);
      return id;
    },

    openViews: (user) => stackOf(user),

    closeView(id) {
      views.delete(id);
      viewOwners.delete(id);
      changed();
    },

    applyViewResponse(user, viewId, response) {
      const action = str(response.response_action);
      const current = views.get(viewId);
      if (action === 'clear') for (const v of stackOf(user)) views.delete(v.id);
      else if (action === 'update' && current) views.set(viewId, { ...buildView(response.view, viewId), root_view_id: current.root_view_id, previous_view_id: current.previous_view_id });
      else if (action === 'push') viewOwners.set(newView(response.view, current ?? null).id, user);
      else if (action !== 'errors') views.delete(viewId);
      changed();
    },

    showEphemeral(channel, user, content, via) {
      ephemerals.push({ channel, user, message_ts: messageTs(), ...stripUndefined({ text: content.text, blocks: content.blocks }), via });
      changed();
    },

    visibleEphemerals(user) {
      const out: VisibleEphemeral[] = ephemerals
        .filter((e) => e.user === user)
        .map((e) => stripUndefined({ channel: e.channel, user, ts: e.message_ts, text: e.text, blocks: e.blocks, attachments: e.attachments, via: e.via }));
      for (const s of responseUrls.values()) {
        if (s.opts.user !== user || !s.opts.channel) continue;
        s.messages.forEach((m, i) => {
          if (m.response_type !== 'ephemeral') return;
          out.push(stripUndefined({ channel: s.opts.channel!, user, ts: s.stamps[i]!, text: m.text, blocks: m.blocks, attachments: m.attachments, responseUrl: s.url, via: 'response_url' }));
        });
      }
      return out.sort((a, b) => compareTs(a.ts, b.ts));
    },

    file: (id) => uploads.get(id)?.completed,

    reset() {
      calls = [];
      failures = new Map();
      channelStores = new Map();
      ephemerals = [];
      uploads = new Map();
      views = new Map();
      homeTabs = new Map();
      viewOwners = new Map();
      responseUrls = new Map();
      responses = [];
    },

    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

// ---------- helpers ----------

function describeMiss(method: string, calls: RecordedCall[], timeoutMs: number, withPredicate: boolean): string {
  const same = calls.filter((c) => c.method === method);
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
  const seen = counts.size ? [...counts].map(([m, n]) => `${m} x${n}`).join(', ') : 'nothing';
  let msg = `fake-slack: no ${method} call${withPredicate ? ' matching the predicate' : ''} within ${timeoutMs} ms; calls seen: ${seen}`;
  if (same.length) {
    const shown = same.slice(-5).map((c) => `  ${JSON.stringify(c.args).slice(0, 300)} -> ${JSON.stringify(c.response ?? 'pending').slice(0, 120)}`);
    msg += `\nlast ${method} args:\n${shown.join('\n')}`;
  }
  return msg;
}

interface ParsedBody {
  fields: Json;
  /** The first file part of a multipart body. */
  file?: Buffer;
}

async function parseBody(req: IncomingMessage, raw: Buffer): Promise<ParsedBody> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (raw.length === 0) return { fields: {} };
  if (type === 'application/json') {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return { fields: value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : { body: value } };
  }
  if (type === 'application/x-www-form-urlencoded') {
    const fields: Json = {};
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) fields[k] = v;
    return { fields };
  }
  if (type === 'multipart/form-data') {
    // Node's fetch Request already implements a spec-compliant multipart parser.
    const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': req.headers['content-type']! }, body: raw }).formData();
    const fields: Json = {};
    let file: Buffer | undefined;
    for (const [k, v] of form) {
      if (typeof v === 'string') fields[k] = v;
      else {
        const bytes = Buffer.from(await v.arrayBuffer());
        file ??= bytes;
        fields[k] = { filename: v.name, size: bytes.length };
      }
    }
    return file ? { fields, file } : { fields };
  }
  return { fields: {} };
}

function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice('Bearer '.length) : undefined;
}

function decodeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function bool(v: unknown): boolean {
  return v === true || v === 'true' || v === '1' || v === 1;
}

function requireString(args: Json, key: string, error: string): string {
  const v = str(args[key]);
  if (!v) throw new ApiError(error, [`[ERROR] missing required field: ${key}`]);
  return v;
}

function asArray(v: unknown): unknown[] {
  const d = decodeJson(v);
  if (!Array.isArray(d)) throw new ApiError('invalid_arguments', ['[ERROR] expected a JSON array']);
  return d;
}

function checkTextLength(text: string | undefined): void {
  if (text && text.length > 40_000) throw new ApiError('msg_too_long');
}

// The Block Kit limits that most often break real apps; Slack rejects such payloads.
function checkBlocks(v: unknown, max: number, error = 'invalid_blocks'): unknown[] {
  const d = decodeJson(v);
  if (!Array.isArray(d)) throw new ApiError('invalid_blocks_format');
  if (d.length > max) throw new ApiError(error, [`[ERROR] no more than ${max} items allowed [json-pointer:/blocks]`]);
  d.forEach((b, i) => {
    const block = (b ?? {}) as Json;
    if (typeof block.type !== 'string') throw new ApiError(error, [`[ERROR] missing required field: type [json-pointer:/blocks/${i}]`]);
    const text = ((block.text ?? {}) as Json).text;
    if (block.type === 'section' && typeof text === 'string' && text.length > 3000) {
      throw new ApiError(error, [`[ERROR] must be less than 3001 characters [json-pointer:/blocks/${i}/text/text]`]);
    }
    if (block.type === 'header' && typeof text === 'string' && text.length > 150) {
      throw new ApiError(error, [`[ERROR] must be less than 151 characters [json-pointer:/blocks/${i}/text/text]`]);
    }
    const id = block.block_id;
    if (typeof id === 'string' && id.length > 255) throw new ApiError(error, [`[ERROR] block_id too long [json-pointer:/blocks/${i}/block_id]`]);
  });
  return d;
}

function mimeType(name: string): string {
  const ext = name.split('.').pop()?.toLowerCase();
  const map: Record<string, string> = {
    csv: 'text/csv',
    txt: 'text/plain',
    json: 'application/json',
    png: 'image/png',
    pdf: 'application/pdf',
  };
  return (ext && map[ext]) || 'application/octet-stream';
}

/**
 * A ts as a fixed-width string that sorts like the time it names (`<seconds>.<micros>`);
 * ts values have 16 significant digits, too many to compare safely as doubles.
 */
function tsKey(ts: string, error = 'invalid_ts'): string {
  const m = /^(\d{1,12})(?:\.(\d{1,6})\d*)?$/.exec(ts.trim());
  if (!m) throw new ApiError(error);
  return `${m[1]!.padStart(12, '0')}.${(m[2] ?? '').padEnd(6, '0')}`;
}

function compareTs(a: string, b: string): number {
  const ka = tsKey(a);
  const kb = tsKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
