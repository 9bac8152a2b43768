/**
 * What Slack sends to an app's request URL: bodies built field for field like Slack's,
 * signed per https://api.slack.com/authentication/verifying-requests-from-slack
 * (v0, HMAC-SHA256 over `v0:<timestamp>:<raw body>`), with knobs to send bad or stale
 * signatures. The `payload` of each builder is also what Socket Mode carries in an envelope.
 */
import { createHmac } from 'node:crypto';
import { SLACK_IDS, messageTs, triggerId } from './slack-ids.js';
import { readBody } from './http.js';

export type Json = Record<string, unknown>;

export const FORM = 'application/x-www-form-urlencoded';
export const JSON_TYPE = 'application/json';

export interface SlackRequestBody {
  /** The raw body as sent on the wire (what is signed). */
  body: string;
  contentType: typeof FORM | typeof JSON_TYPE;
  /** The object the body encodes; for Socket Mode, the envelope's `payload`. */
  payload: Json;
}

// Unused by Bolt v5 but present in every real request (the deprecated verification token).
const VERIFICATION_TOKEN = 'fakeVerificationToken0001';
/** Where respond() would go when a test forgot to pass a fake response_url: a port nothing listens on. */
const UNSET_RESPONSE_URL = 'http://127.0.0.1:1/response/not-set-pass-fake.responseUrl()';

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A timestamp Bolt must reject: Slack's window is five minutes, this is six by default. */
export function staleTimestamp(minutesAgo = 6): number {
  return nowSeconds() - minutesAgo * 60;
}

export function slackSignature(signingSecret: string, timestamp: number | string, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

export function signatureHeaders(
  signingSecret: string,
  rawBody: string,
  timestamp: number = nowSeconds(),
): Record<string, string> {
  return {
    'x-slack-signature': slackSignature(signingSecret, timestamp, rawBody),
    'x-slack-request-timestamp': String(timestamp),
  };
}

/** A well-formed signature that does not match (right shape, wrong HMAC). */
export const BAD_SIGNATURE = `v0=${'0'.repeat(64)}`;

// ---------- slash commands ----------

export interface SlashCommandOptions {
  command?: string;
  text?: string;
  userId?: string;
  userName?: string;
  channelId?: string;
  channelName?: string;
  teamId?: string;
  teamDomain?: string;
  apiAppId?: string;
  /** Pass `fake.responseUrl()` so respond() lands on the fake. */
  responseUrl?: string;
  triggerId?: string;
  enterpriseId?: string;
}

export function slashCommand(opts: SlashCommandOptions = {}): SlackRequestBody {
  // Field order as Slack sends it; only the values matter to Bolt, the order to the signature of a recorded body.
  const fields: Array<[string, string]> = [
    ['token', VERIFICATION_TOKEN],
    ['team_id', opts.teamId ?? SLACK_IDS.teamId],
    ['team_domain', opts.teamDomain ?? SLACK_IDS.teamDomain],
  ];
  if (opts.enterpriseId) fields.push(['enterprise_id', opts.enterpriseId], ['enterprise_name', 'Treasury Enterprise']);
  fields.push(
    ['channel_id', opts.channelId ?? SLACK_IDS.channelId],
    ['channel_name', opts.channelName ?? SLACK_IDS.channelName],
    ['user_id', opts.userId ?? SLACK_IDS.userId],
    ['user_name', opts.userName ?? SLACK_IDS.userName],
    ['command', opts.command ?? '/ping'],
    ['text', opts.text ?? ''],
    ['api_app_id', opts.apiAppId ?? SLACK_IDS.appId],
    ['is_enterprise_install', 'false'],
    ['response_url', opts.responseUrl ?? UNSET_RESPONSE_URL],
    ['trigger_id', opts.triggerId ?? triggerId()],
  );
  const payload = Object.fromEntries(fields);
  return { body: new URLSearchParams(fields).toString(), contentType: FORM, payload };
}

// ---------- interactivity ----------

export interface ActorOptions {
  userId?: string;
  userName?: string;
  teamId?: string;
  teamDomain?: string;
  triggerId?: string;
  apiAppId?: string;
}

function user(o: ActorOptions): Json {
  const name = o.userName ?? SLACK_IDS.userName;
  return { id: o.userId ?? SLACK_IDS.userId, username: name, name, team_id: o.teamId ?? SLACK_IDS.teamId };
}

function team(o: ActorOptions): Json {
  return { id: o.teamId ?? SLACK_IDS.teamId, domain: o.teamDomain ?? SLACK_IDS.teamDomain };
}

function interactive(payload: Json): SlackRequestBody {
  return { body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), contentType: FORM, payload };
}

export interface ActionOptions {
  actionId: string;
  blockId?: string;
  value?: string;
  /** Element type: button (default), static_select, ... */
  type?: string;
  /** Button label. */
  text?: string;
  /** For selects: the chosen option. */
  selectedOption?: { text: string; value: string };
}

export interface BlockActionOptions extends ActorOptions {
  /** One action, or several (Slack sends one per click, but the field is an array). */
  action?: ActionOptions;
  actions?: ActionOptions[];
  channelId?: string;
  channelName?: string;
  /** The message the button is on; ts and blocks are what the app posted. */
  message?: { ts: string; text?: string; blocks?: unknown[]; thread_ts?: string; user?: string; bot_id?: string };
  /** For actions inside a modal instead of a message. */
  view?: Json;
  /** state.values of input blocks on the message or view. */
  stateValues?: Json;
  /** Pass `fake.responseUrl({ channel, messageTs })` so respond() lands on the fake. */
  responseUrl?: string;
}

export function blockAction(opts: BlockActionOptions): SlackRequestBody {
  const list = opts.actions ?? (opts.action ? [opts.action] : []);
  if (list.length === 0) throw new Error('blockAction needs action or actions');
  const channelId = opts.channelId ?? SLACK_IDS.channelId;
  const actionTs = messageTs();
  const actions = list.map((a) => {
    const type = a.type ?? 'button';
    const out: Json = {
      action_id: a.actionId,
      block_id:
        a.blockId ??
        findBlockId(opts.message?.blocks ?? (opts.view?.blocks as unknown[] | undefined), a.actionId) ??
        'block',
      type,
      action_ts: actionTs,
    };
    if (type === 'button') {
      out.text = { type: 'plain_text', text: a.text ?? a.actionId, emoji: true };
      if (a.value !== undefined) out.value = a.value;
    } else if (a.selectedOption) {
      out.selected_option = {
        text: { type: 'plain_text', text: a.selectedOption.text, emoji: true },
        value: a.selectedOption.value,
      };
    } else if (a.value !== undefined) {
      out.value = a.value;
    }
    return out;
  });

  const payload: Json = {
    type: 'block_actions',
    user: user(opts),
    api_app_id: opts.apiAppId ?? SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    container: {},
    trigger_id: opts.triggerId ?? triggerId(),
    team: team(opts),
    enterprise: null,
    is_enterprise_install: false,
    state: { values: opts.stateValues ?? {} },
    actions,
  };
  if (opts.view) {
    payload.container = { type: 'view', view_id: opts.view.id };
    payload.view = opts.view;
  } else {
    const m = opts.message;
    if (!m) throw new Error('blockAction needs the message the action is on (or a view)');
    payload.container = {
      type: 'message',
      message_ts: m.ts,
      channel_id: channelId,
      is_ephemeral: false,
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    };
    payload.channel = { id: channelId, name: opts.channelName ?? SLACK_IDS.channelName };
    payload.message = {
      type: 'message',
      user: m.user ?? SLACK_IDS.botUserId,
      ts: m.ts,
      bot_id: m.bot_id ?? SLACK_IDS.botId,
      app_id: SLACK_IDS.appId,
      text: m.text ?? '',
      team: opts.teamId ?? SLACK_IDS.teamId,
      blocks: m.blocks ?? [],
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    };
    payload.response_url = opts.responseUrl ?? UNSET_RESPONSE_URL;
  }
  return interactive(payload);
}

function findBlockId(blocks: unknown[] | undefined, actionId: string): string | undefined {
  for (const b of blocks ?? []) {
    const block = b as Json;
    const elements = [
      ...((block.elements as unknown[]) ?? []),
      ...(block.accessory ? [block.accessory] : []),
      ...(block.element ? [block.element] : []),
    ];
    if (elements.some((e) => (e as Json).action_id === actionId) && typeof block.block_id === 'string')
      return block.block_id;
  }
  return undefined;
}

export interface ViewSubmissionOptions extends ActorOptions {
  callbackId: string;
  privateMetadata?: string;
  /** `{ [block_id]: { [action_id]: { type, value | selected_option | ... } } }` */
  values?: Json;
  viewId?: string;
  hash?: string;
  blocks?: unknown[];
  title?: string;
  externalId?: string;
  /** When the modal has response_url_enabled inputs: `[{ block_id, action_id, channel_id, response_url }]`. */
  responseUrls?: Json[];
}

export function viewSubmission(opts: ViewSubmissionOptions): SlackRequestBody {
  const viewId = opts.viewId ?? 'V0FAKEVIEW1';
  const payload: Json = {
    type: 'view_submission',
    team: team(opts),
    user: user(opts),
    api_app_id: opts.apiAppId ?? SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    trigger_id: opts.triggerId ?? triggerId(),
    view: {
      id: viewId,
      team_id: opts.teamId ?? SLACK_IDS.teamId,
      type: 'modal',
      blocks: opts.blocks ?? [],
      private_metadata: opts.privateMetadata ?? '',
      callback_id: opts.callbackId,
      state: { values: opts.values ?? {} },
      hash: opts.hash ?? `${nowSeconds()}.fakeHash`,
      title: { type: 'plain_text', text: opts.title ?? 'Modal', emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      close: { type: 'plain_text', text: 'Cancel', emoji: true },
      submit: { type: 'plain_text', text: 'Submit', emoji: true },
      previous_view_id: null,
      root_view_id: viewId,
      app_id: opts.apiAppId ?? SLACK_IDS.appId,
      external_id: opts.externalId ?? '',
      app_installed_team_id: opts.teamId ?? SLACK_IDS.teamId,
      bot_id: SLACK_IDS.botId,
    },
    response_urls: opts.responseUrls ?? [],
    is_enterprise_install: false,
    enterprise: null,
  };
  return interactive(payload);
}

// ---------- Events API ----------

export interface EventCallbackOptions {
  /** The inner event, e.g. `{ type: 'app_home_opened', user, tab: 'home' }`. */
  event: Json;
  teamId?: string;
  apiAppId?: string;
  eventId?: string;
}

export function eventCallback(opts: EventCallbackOptions): SlackRequestBody {
  const teamId = opts.teamId ?? SLACK_IDS.teamId;
  const payload: Json = {
    token: VERIFICATION_TOKEN,
    team_id: teamId,
    context_team_id: teamId,
    context_enterprise_id: null,
    api_app_id: opts.apiAppId ?? SLACK_IDS.appId,
    event: { event_ts: messageTs(), ...opts.event },
    type: 'event_callback',
    event_id: opts.eventId ?? `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    event_time: nowSeconds(),
    authorizations: [
      {
        enterprise_id: null,
        team_id: teamId,
        user_id: SLACK_IDS.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
  return { body: JSON.stringify(payload), contentType: JSON_TYPE, payload };
}

// ---------- sending ----------

export interface SendOptions {
  contentType?: string;
  /** Seconds; default now. Use staleTimestamp() for a replayed request. */
  timestamp?: number;
  /** Sent verbatim instead of the computed one (e.g. BAD_SIGNATURE). */
  signature?: string;
  /** Slack's retry headers (x-slack-retry-num / x-slack-retry-reason). */
  retryNum?: number;
  retryReason?: string;
  headers?: Record<string, string>;
}

export interface BoltResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
  /** body parsed as JSON when it is JSON, else undefined. */
  json: unknown;
}

/**
 * POSTs to Bolt the way Slack does. `baseUrl` may be the server origin (then
 * `/slack/events` is appended) or a full endpoint URL.
 */
export async function sendToBolt(
  baseUrl: string,
  signingSecret: string,
  body: string | SlackRequestBody,
  opts: SendOptions = {},
): Promise<BoltResponse> {
  const raw = typeof body === 'string' ? body : body.body;
  const contentType = opts.contentType ?? (typeof body === 'string' ? FORM : body.contentType);
  const url = new URL(baseUrl);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/slack/events';
  const timestamp = opts.timestamp ?? nowSeconds();
  const headers: Record<string, string> = {
    'content-type': contentType,
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': opts.signature ?? slackSignature(signingSecret, timestamp, raw),
    ...(opts.retryNum !== undefined
      ? { 'x-slack-retry-num': String(opts.retryNum), 'x-slack-retry-reason': opts.retryReason ?? 'http_timeout' }
      : {}),
    ...opts.headers,
  };
  const res = await fetch(url, { method: 'POST', headers, body: raw });
  const { text, json } = await readBody(res);
  return { status: res.status, body: text, headers: Object.fromEntries(res.headers.entries()), json };
}
