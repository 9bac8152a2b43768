/**
 * What one person does on the page, sent to the app as Slack sends it: slash commands, clicks,
 * modal submissions and closes, opening the Home tab, and the sandbox's simulated deposit.
 * Each function gets what it needs in `ActionDeps`; what to show follows decide.ts.
 */
import type { Logger } from '../../log.js';
import {
  event,
  messageAction,
  slashCommand,
  viewAction,
  viewClosed,
  viewSubmission,
  type Actor,
  type ClickedAction,
  type Json,
  type SignedBody,
  type SlackReply,
} from '../requests.js';
import type { FakeSlack } from '../slack-api.js';
import { ackNotice, judgeSubmission, postsInChannel, sandboxRefusal, splitCommand, unknownCommand } from './decide.js';
import {
  BadRequest,
  type ActionBody,
  type CloseBody,
  type UploadBody,
  type CommandBody,
  type DepositBody,
  type HomeBody,
  type SubmitBody,
} from './schemas.js';
import type { CommandList, ViewErrors } from './state.js';

export interface ActionDeps {
  api: FakeSlack;
  /** Signs a request and posts it to the app's /slack/events. */
  send: (b: SignedBody) => Promise<SlackReply>;
  actor: (userId: string) => Actor;
  channelName: (channelId: string) => string;
  commands: CommandList;
  viewErrors: ViewErrors;
  log: Logger;
  /** The embedded sandbox, for the "simulate a deposit" button. */
  sandboxUrl: string | undefined;
}

export async function runCommand(d: ActionDeps, b: CommandBody): Promise<Json> {
  const { command, text } = splitCommand(b.text);
  const unknown = unknownCommand(command, d.commands);
  if (unknown !== undefined) {
    d.api.showEphemeral(b.channel, b.user, { text: unknown }, 'workspace');
    return { ok: false };
  }
  const responseUrl = d.api.responseUrl({ channel: b.channel, user: b.user });
  const reply = await d.send(
    slashCommand({
      actor: d.actor(b.user),
      command,
      text,
      channelId: b.channel,
      channelName: d.channelName(b.channel),
      responseUrl,
      triggerId: d.api.issueTrigger(b.user),
    }),
  );
  if (postsInChannel(reply)) {
    await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(reply.json),
    });
  } else {
    const notice = ackNotice(command, reply);
    if (notice) d.api.showEphemeral(b.channel, b.user, notice.content, notice.via);
  }
  return { ok: reply.status === 200 };
}

/** The message a click was on, and the response_url the app may answer it through. */
function clickedMessage(
  api: FakeSlack,
  b: Extract<ActionBody, { source: 'message' | 'ephemeral' }>,
): { message: { ts: string; text?: string; blocks?: unknown[]; thread_ts?: string } | undefined; responseUrl: string } {
  if (b.source === 'message') {
    return {
      message: api.channel(b.channel).find((m) => m.ts === b.ts),
      responseUrl: api.responseUrl({ channel: b.channel, user: b.user, messageTs: b.ts }),
    };
  }
  const e = api.visibleEphemerals(b.user).find((x) => x.ts === b.ts && x.channel === b.channel);
  return {
    message: e ? { ts: e.ts, text: e.text, blocks: e.blocks } : undefined,
    responseUrl: api.responseUrl({
      channel: b.channel,
      user: b.user,
      ...(e?.responseUrl ? { original: { responseUrl: e.responseUrl, ts: e.ts } } : {}),
    }),
  };
}

export async function runAction(d: ActionDeps, b: ActionBody): Promise<Json> {
  const { api } = d;
  const actor = d.actor(b.user);
  const action = b.action as ClickedAction;
  const triggerId = api.issueTrigger(b.user);
  let reply: SlackReply;
  if (b.source === 'message' || b.source === 'ephemeral') {
    const { message, responseUrl } = clickedMessage(api, b);
    if (!message) throw new BadRequest('that message is gone');
    reply = await d.send(
      messageAction({
        actor,
        action,
        channelId: b.channel,
        channelName: d.channelName(b.channel),
        message,
        ephemeral: b.source === 'ephemeral',
        responseUrl,
        triggerId,
      }),
    );
  } else if (b.source === 'view') {
    const view = api.view(b.viewId);
    if (!view) throw new BadRequest('that form is closed');
    reply = await d.send(viewAction({ actor, action, view: view as unknown as Json, values: b.values, triggerId }));
  } else {
    const home = api.homeTab(b.user);
    if (!home) throw new BadRequest('open the Home tab first');
    reply = await d.send(viewAction({ actor, action, view: home as unknown as Json, values: {}, triggerId }));
  }
  if (reply.status !== 200) d.log.warn({ status: reply.status }, 'the app refused an interaction');
  return { ok: reply.status === 200 };
}

export async function submitView(d: ActionDeps, b: SubmitBody): Promise<Json> {
  const view = d.api.view(b.viewId);
  if (!view) throw new BadRequest('that form is closed');
  const reply = await d.send(
    viewSubmission({
      actor: d.actor(b.user),
      view: view as unknown as Json,
      values: b.values,
      triggerId: d.api.issueTrigger(b.user),
    }),
  );
  const outcome = judgeSubmission(reply);
  if (outcome.kind === 'unanswered') {
    d.viewErrors.set(view.id, outcome.errors);
    return { ok: false };
  }
  if (outcome.kind === 'errors') {
    d.viewErrors.set(view.id, outcome.errors);
    d.api.applyViewResponse(b.user, view.id, outcome.ack);
    return { ok: false, errors: outcome.errors };
  }
  d.viewErrors.delete(view.id);
  try {
    d.api.applyViewResponse(b.user, view.id, outcome.ack);
  } catch (err) {
    d.log.warn({ err }, 'the app answered a submission with a view Slack would refuse');
    d.viewErrors.set(view.id, { _: 'The app answered with an invalid view.' });
  }
  return { ok: true };
}

/** Cancel on a modal: only its owner can close it; the app hears of it if the view asked. */
/** A file a person chose in a modal (file_input): its id, which the submission carries as Slack's does. */
export async function uploadFile(d: ActionDeps, b: UploadBody): Promise<Json> {
  return { ok: true, id: d.api.userUpload(b.user, b.name, b.content) };
}

export async function closeView(d: ActionDeps, b: CloseBody): Promise<Json> {
  const v = d.api.view(b.viewId);
  if (!v || !d.api.openViews(b.user).some((x) => x.id === v.id)) return { ok: true };
  d.api.closeView(v.id);
  d.viewErrors.delete(v.id);
  if (v.notify_on_close === true) await d.send(viewClosed({ actor: d.actor(b.user), view: v as unknown as Json }));
  return { ok: true };
}

export async function openHome(d: ActionDeps, b: HomeBody): Promise<Json> {
  const reply = await d.send(
    event({ type: 'app_home_opened', user: b.user, channel: d.api.dmChannel(b.user), tab: 'home' }),
  );
  return { ok: reply.status === 200 };
}

export async function deposit(d: ActionDeps, b: DepositBody): Promise<Json> {
  if (!d.sandboxUrl) throw new BadRequest('deposits can be simulated only with the embedded sandbox');
  const res = await fetch(`${d.sandboxUrl}/sandbox/deposits`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(b),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => ({}))) as Json;
  if (!res.ok) throw new BadRequest(sandboxRefusal(res.status, body));
  return { ok: true };
}
