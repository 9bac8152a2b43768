/**
 * File uploads, v2 flow: files.getUploadURLExternal hands out an upload URL, the bytes are
 * POSTed to it, files.completeUploadExternal shares them (with a message in the channel).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SLACK_IDS, slackId } from '../slack-ids.js';
import { stripUndefined } from '../../util/strip-undefined.js';
import { ApiError, asArray, requireString, str } from './args.js';
import { applyFailure } from './failures.js';
import { addMessage, resolveChannel } from './messages.js';
import type { Handler, SlackState } from './state.js';
import type { FakeFile, Json, RecordedCall } from './types.js';
import { bearer, parseBody, send } from './wire.js';

export function fileHandlers(s: SlackState): Record<string, Handler> {
  return {
    'files.getUploadURLExternal': (args) => {
      const filename = requireString(args, 'filename', 'invalid_arguments');
      const length = Number(args.length);
      if (!Number.isInteger(length) || length <= 0)
        throw new ApiError('invalid_arguments', ['[ERROR] length must be a positive integer']);
      const id = slackId('F');
      s.uploads.set(id, {
        id,
        filename,
        declaredLength: length,
        ...stripUndefined({ alt_text: str(args.alt_text), snippet_type: str(args.snippet_type) }),
      });
      return { upload_url: `${s.origin}/upload/v1/${id}`, file_id: id };
    },

    /** A file's metadata; `url_private_download` needs the token again (GET /files-pri/...). */
    'files.info': (args) => {
      const id = requireString(args, 'file', 'invalid_arguments');
      const f = s.uploads.get(id)?.completed;
      if (!f) throw new ApiError('file_not_found');
      return {
        file: {
          id: f.id,
          name: f.name,
          title: f.title,
          mimetype: mimeType(f.name),
          filetype: f.name.split('.').pop() ?? '',
          size: f.content.length,
          user: s.uploads.get(id)?.user ?? SLACK_IDS.botUserId,
          url_private: `${s.origin}/files-pri/${f.id}/${encodeURIComponent(f.name)}`,
          url_private_download: `${s.origin}/files-pri/${f.id}/download/${encodeURIComponent(f.name)}`,
        },
      };
    },

    /** Deletes an uploaded file (the app deletes what it uploaded, e.g. an enrolment QR image). */
    'files.delete': (args) => {
      const id = requireString(args, 'file', 'invalid_arguments');
      if (!s.uploads.get(id)?.completed) throw new ApiError('file_not_found');
      s.uploads.delete(id);
      return {};
    },

    'files.completeUploadExternal': (args) => {
      const list = args.files;
      if (!Array.isArray(list) || list.length === 0)
        throw new ApiError('invalid_arguments', ['[ERROR] files is required']);
      const channel = str(args.channel_id) ?? str(args.channels)?.split(',')[0];
      const threadTs = str(args.thread_ts);
      const initialComment = str(args.initial_comment);
      const done: FakeFile[] = [];
      for (const entry of list) {
        const e = (entry ?? {}) as Json;
        const up = s.uploads.get(String(e.id));
        if (!up?.content) throw new ApiError('file_not_found');
        if (up.completed) throw new ApiError('file_already_completed');
        const file: FakeFile = {
          id: up.id,
          name: up.filename,
          title: str(e.title) ?? up.filename,
          content: up.content,
          text: up.content.toString('utf8'),
          declaredLength: up.declaredLength,
          ...stripUndefined({
            channel: channel ? resolveChannel(s, channel) : undefined,
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
          s,
          resolveChannel(s, channel),
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
  };
}

/** POST /upload/v1/<file id>: the bytes of a pending upload (recorded as the pseudo-method `file_upload`). */
export async function handleUpload(
  s: SlackState,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  raw: Buffer,
): Promise<void> {
  const call: RecordedCall = {
    method: 'file_upload',
    args: { file_id: id, bytes: raw.length },
    token: bearer(req),
    at: Date.now(),
  };
  s.calls.push(call);
  if (await applyFailure(s, 'file_upload', res, call)) return;
  const up = s.uploads.get(id);
  if (!up) return send(res, call, 404, 'Not Found');
  const parsed = await parseBody(req, raw);
  // WebClient sends the bytes as a multipart file part; curl-style clients send them raw.
  up.content = parsed.file ?? raw;
  send(res, call, 200, `OK - ${up.content.length}`);
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

/** GET /files-pri/<id>/...: a file's bytes, as Slack serves url_private(_download): only with a valid token. */
export function handlePrivateDownload(s: SlackState, req: IncomingMessage, res: ServerResponse, id: string): void {
  const token = bearer(req);
  const call: RecordedCall = { method: 'file_download', args: { file_id: id }, token, at: Date.now() };
  s.calls.push(call);
  // Slack answers a request without a valid token with its sign-in page, never the file.
  if (!token || (s.opts.tokens && !s.opts.tokens.includes(token))) {
    send(res, call, 302, 'Sign in');
    return;
  }
  const f = s.uploads.get(id)?.completed;
  if (!f) {
    send(res, call, 404, 'Not Found');
    return;
  }
  call.status = 200;
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(200, { 'content-type': mimeType(f.name), 'content-length': String(f.content.length) });
  res.end(f.content);
}
