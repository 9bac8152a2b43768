/**
 * The public types of the Slack Web API stand-in (see index.ts): what it records, the model of
 * what a person sees (messages, ephemerals, files, views, response_url posts), its options and
 * the FakeSlack handle tests and the local workspace drive it through.
 */
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
  /**
   * A file a person uploaded (a modal's file_input): its id, for files.info; its bytes are served
   * at its url_private_download to a request with a valid token only.
   */
  userUpload(user: string, name: string, content: string | Buffer): string;
  /** Forget every call, message, file, view, response and pending failure; keeps users, groups and socket. */
  reset(): void;
  close(): Promise<void>;
}
