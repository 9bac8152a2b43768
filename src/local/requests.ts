/**
 * What the local workspace sends to the app's request URL, built and signed as Slack does
 * (https://api.slack.com/authentication/verifying-requests-from-slack: v0 HMAC-SHA256 over
 * `v0:<timestamp>:<raw body>`): slash commands as forms, interactions as `payload=` forms,
 * events as JSON. The app cannot tell the workspace from Slack.
 */
import { createHmac } from 'node:crypto';
import { SLACK_IDS, messageTs } from './slack-ids.js';

export type Json = Record<string, unknown>;

export interface SignedBody {
  body: string;
  contentType: 'application/x-www-form-urlencoded' | 'application/json';
}

export interface SlackReply {
  status: number;
  /** The ack body, parsed when it is JSON (slash command text, response_action, ...). */
  json: Json | undefined;
  text: string;
}

const FORM = 'application/x-www-form-urlencoded' as const;
// Present in every real request although Bolt ignores it (the deprecated verification token).
const VERIFICATION_TOKEN = 'local-workspace';

export function signature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export interface Actor {
  id: string;
  name: string;
}

const user = (a: Actor): Json => ({ id: a.id, username: a.name, name: a.name, team_id: SLACK_IDS.teamId });
const team = (): Json => ({ id: SLACK_IDS.teamId, domain: SLACK_IDS.teamDomain });

export function slashCommand(o: {
  actor: Actor;
  command: string;
  text: string;
  channelId: string;
  channelName: string;
  responseUrl: string;
  triggerId: string;
}): SignedBody {
  const fields: Array<[string, string]> = [
    ['token', VERIFICATION_TOKEN],
    ['team_id', SLACK_IDS.teamId],
    ['team_domain', SLACK_IDS.teamDomain],
    ['channel_id', o.channelId],
    ['channel_name', o.channelName],
    ['user_id', o.actor.id],
    ['user_name', o.actor.name],
    ['command', o.command],
    ['text', o.text],
    ['api_app_id', SLACK_IDS.appId],
    ['is_enterprise_install', 'false'],
    ['response_url', o.responseUrl],
    ['trigger_id', o.triggerId],
  ];
  return { body: new URLSearchParams(fields).toString(), contentType: FORM };
}

const interactive = (payload: Json): SignedBody => ({
  body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
  contentType: FORM,
});

export interface ClickedAction {
  action_id: string;
  block_id: string;
  type: string;
  value?: string;
  text?: string;
  selected_option?: unknown;
}

function actionJson(a: ClickedAction): Json {
  const out: Json = { action_id: a.action_id, block_id: a.block_id, type: a.type, action_ts: messageTs() };
  if (a.type === 'button') out.text = { type: 'plain_text', text: a.text ?? a.action_id, emoji: true };
  if (a.value !== undefined) out.value = a.value;
  if (a.selected_option !== undefined) out.selected_option = a.selected_option;
  return out;
}

/** A click on a message (channel or ephemeral) button. */
export function messageAction(o: {
  actor: Actor;
  action: ClickedAction;
  channelId: string;
  channelName: string;
  message: { ts: string; text?: string; blocks?: unknown[]; thread_ts?: string };
  ephemeral: boolean;
  responseUrl: string;
  triggerId: string;
}): SignedBody {
  const m = o.message;
  return interactive({
    type: 'block_actions',
    user: user(o.actor),
    api_app_id: SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    container: {
      type: 'message',
      message_ts: m.ts,
      channel_id: o.channelId,
      is_ephemeral: o.ephemeral,
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    },
    trigger_id: o.triggerId,
    team: team(),
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: o.channelId, name: o.channelName },
    message: {
      type: 'message',
      user: SLACK_IDS.botUserId,
      ts: m.ts,
      bot_id: SLACK_IDS.botId,
      app_id: SLACK_IDS.appId,
      text: m.text ?? '',
      team: SLACK_IDS.teamId,
      blocks: m.blocks ?? [],
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    },
    state: { values: {} },
    response_url: o.responseUrl,
    actions: [actionJson(o.action)],
  });
}

/** A click inside a modal or the App Home. */
export function viewAction(o: {
  actor: Actor;
  action: ClickedAction;
  view: Json;
  values: Json;
  triggerId: string;
}): SignedBody {
  return interactive({
    type: 'block_actions',
    user: user(o.actor),
    api_app_id: SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    container: { type: 'view', view_id: o.view.id },
    trigger_id: o.triggerId,
    team: team(),
    enterprise: null,
    is_enterprise_install: false,
    view: { ...o.view, state: { values: o.values } },
    state: { values: o.values },
    actions: [actionJson(o.action)],
  });
}

export function viewSubmission(o: { actor: Actor; view: Json; values: Json; triggerId: string }): SignedBody {
  return interactive({
    type: 'view_submission',
    team: team(),
    user: user(o.actor),
    api_app_id: SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    trigger_id: o.triggerId,
    view: { ...o.view, state: { values: o.values } },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  });
}

/** A modal closed with Cancel, sent only when the view asked for it (notify_on_close). */
export function viewClosed(o: { actor: Actor; view: Json }): SignedBody {
  return interactive({
    type: 'view_closed',
    team: team(),
    user: user(o.actor),
    api_app_id: SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    view: o.view,
    is_cleared: false,
    is_enterprise_install: false,
    enterprise: null,
  });
}

export function event(inner: Json): SignedBody {
  const payload = {
    token: VERIFICATION_TOKEN,
    team_id: SLACK_IDS.teamId,
    context_team_id: SLACK_IDS.teamId,
    context_enterprise_id: null,
    api_app_id: SLACK_IDS.appId,
    event: { event_ts: messageTs(), ...inner },
    type: 'event_callback',
    event_id: `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: SLACK_IDS.teamId,
        user_id: SLACK_IDS.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
  return { body: JSON.stringify(payload), contentType: 'application/json' };
}

/** POST to the app's /slack/events as Slack does, with a fresh timestamp and signature. */
export async function sendSigned(url: string, secret: string, b: SignedBody): Promise<SlackReply> {
  const ts = Math.floor(Date.now() / 1000);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': b.contentType,
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': signature(secret, ts, b.body),
    },
    body: b.body,
    // Slack waits three seconds for an ack; a little more here so a slow laptop still shows the answer.
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: Json | undefined;
  try {
    const v: unknown = text ? JSON.parse(text) : undefined;
    if (v && typeof v === 'object' && !Array.isArray(v)) json = v as Json;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}
