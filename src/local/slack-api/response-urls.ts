/**
 * response_urls: issuing them, what a POST to one does (a new ephemeral or in_channel message,
 * or replacing / deleting the message the interaction came from, five uses at most), and the
 * ephemerals a person sees, wherever they came from.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SLACK_IDS, messageTs, slackId } from '../slack-ids.js';
import { stripUndefined } from '../../util/strip-undefined.js';
import { ApiError, asArray, bool, checkBlocks, compareTs, decodeJson, str, STRUCTURED_FIELDS } from './args.js';
import { applyFailure } from './failures.js';
import { addMessage, deleteMessage, findMessage } from './messages.js';
import type { ResponseUrlState, SlackState } from './state.js';
import type {
  Json,
  RecordedCall,
  ResponseMessage,
  ResponsePost,
  ResponseUrlOptions,
  VisibleEphemeral,
} from './types.js';
import { parseBody, send } from './wire.js';

export function issueResponseUrl(s: SlackState, o: ResponseUrlOptions): string {
  const id = `${slackId('R', 8)}-${Math.random().toString(36).slice(2, 10)}`;
  const url = `${s.origin}/response/${id}`;
  s.responseUrls.set(id, { id, url, opts: o, uses: 0, messages: [], stamps: [] });
  return url;
}

/** What the user currently sees from one response_url (after replace/delete). */
export function responseMessages(s: SlackState, urlOrId: string): ResponseMessage[] {
  const id = urlOrId.includes('/') ? (urlOrId.split('/').pop() ?? '') : urlOrId;
  const state = s.responseUrls.get(id);
  if (!state) throw new Error(`fake-slack: no response_url ${urlOrId} was issued`);
  return [...state.messages];
}

/** Every ephemeral `user` can see (chat.postEphemeral, ack bodies, response_urls), oldest first. */
export function visibleEphemerals(s: SlackState, user: string): VisibleEphemeral[] {
  const out: VisibleEphemeral[] = s.ephemerals
    .filter((e) => e.user === user)
    .map((e) =>
      stripUndefined({
        channel: e.channel,
        user,
        ts: e.message_ts,
        text: e.text,
        blocks: e.blocks,
        attachments: e.attachments,
        via: e.via,
      }),
    );
  for (const r of s.responseUrls.values()) {
    if (r.opts.user !== user || !r.opts.channel) continue;
    r.messages.forEach((m, i) => {
      if (m.response_type !== 'ephemeral') return;
      out.push(
        stripUndefined({
          channel: r.opts.channel!,
          user,
          ts: r.stamps[i]!,
          text: m.text,
          blocks: m.blocks,
          attachments: m.attachments,
          responseUrl: r.url,
          via: 'response_url',
        }),
      );
    });
  }
  return out.sort((a, b) => compareTs(a.ts, b.ts));
}

/** POST /response/<id> (recorded as the pseudo-method `response_url`). */
export async function handleResponseUrl(
  s: SlackState,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  raw: Buffer,
): Promise<void> {
  const state = s.responseUrls.get(id);
  const parsed = await parseBody(req, raw);
  const body = parsed.fields;
  for (const key of Object.keys(body)) if (STRUCTURED_FIELDS.has(key)) body[key] = decodeJson(body[key]);
  const call: RecordedCall = {
    method: 'response_url',
    args: { ...body, response_url_id: id },
    token: undefined,
    at: Date.now(),
  };
  s.calls.push(call);
  const post: ResponsePost = { id, url: `${s.origin}/response/${id}`, body, at: call.at, status: 0 };
  s.responses.push(post);
  const answer = (status: number, payload: unknown): void => {
    post.status = status;
    send(res, call, status, payload);
  };
  if (await applyFailure(s, 'response_url', res, call)) {
    post.status = call.status ?? 0;
    return;
  }
  if (!state) return answer(404, { ok: false, error: 'expired_url' });
  if (state.uses >= (s.opts.responseUrlMaxUses ?? 5)) return answer(404, { ok: false, error: 'used_url' });
  state.uses += 1;
  try {
    applyResponse(s, state, body);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return answer(200, { ok: false, error: err.error });
  }
  answer(200, { ok: true });
}

function applyResponse(s: SlackState, state: ResponseUrlState, body: Json): void {
  const { channel, messageTs: originalTs, original } = state.opts;
  // A button on an ephemeral: replace or delete that ephemeral, where it came from.
  const from = original ? s.responseUrls.get(original.responseUrl.split('/').pop() ?? '') : undefined;
  const at = from && original ? from.stamps.indexOf(original.ts) : -1;
  if (from && at >= 0 && (bool(body.delete_original) || bool(body.replace_original))) {
    if (bool(body.delete_original)) {
      from.messages.splice(at, 1);
      from.stamps.splice(at, 1);
      return;
    }
    const blocks = body.blocks !== undefined ? checkBlocks(body.blocks, 50) : undefined;
    const text = str(body.text);
    if (!text && !blocks?.length) throw new ApiError('no_text');
    from.messages[at] = stripUndefined({
      response_type: 'ephemeral' as const,
      text,
      blocks,
      thread_ts: str(body.thread_ts),
    });
    return;
  }
  if (bool(body.delete_original)) {
    if (originalTs && channel) {
      if (!deleteMessage(s, channel, originalTs)) throw new ApiError('message_not_found');
    } else {
      state.messages.pop();
    }
    return;
  }
  const blocks = body.blocks !== undefined ? checkBlocks(body.blocks, 50) : undefined;
  const attachments = body.attachments !== undefined ? asArray(body.attachments) : undefined;
  const text = str(body.text);
  if (!text && !blocks?.length && !attachments?.length) throw new ApiError('no_text');
  const responseType = body.response_type === 'in_channel' ? 'in_channel' : 'ephemeral';
  const message: ResponseMessage = stripUndefined({
    response_type: responseType,
    text,
    blocks,
    attachments,
    thread_ts: str(body.thread_ts),
  });
  if (bool(body.replace_original)) {
    if (originalTs && channel) {
      const original = findMessage(s, channel, originalTs);
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
  if (responseType === 'in_channel' && channel)
    addMessage(s, channel, stripUndefined({ text, blocks, attachments, thread_ts: message.thread_ts }), 'response_url');
}
