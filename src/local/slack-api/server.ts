/**
 * The HTTP server: routes /api/<method>, upload URLs and response_urls; records every Web API
 * call, applies failure rules and auth the way Slack does (HTTP 200 `ok: false` for API
 * errors), and tells onChange listeners after anything but a read.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, decodeJson, str, STRUCTURED_FIELDS } from './args.js';
import { applyFailure } from './failures.js';
import { handlePrivateDownload, handleUpload } from './files.js';
import { handleResponseUrl } from './response-urls.js';
import { changed, type Handler, type SlackState } from './state.js';
import type { Json, RecordedCall } from './types.js';
import { bearer, parseBody, send, type ParsedBody } from './wire.js';

const READ_METHODS = new Set([
  'auth.test',
  'api.test',
  'conversations.history',
  'conversations.replies',
  'users.info',
  'users.list',
  'usergroups.users.list',
  'chat.getPermalink',
]);

async function handleApi(
  s: SlackState,
  handlers: Record<string, Handler>,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  raw: Buffer,
  query: URLSearchParams,
): Promise<void> {
  let parsed: ParsedBody;
  try {
    parsed = await parseBody(req, raw);
  } catch {
    s.calls.push({
      method,
      args: { raw: raw.toString('utf8').slice(0, 500) },
      token: bearer(req),
      at: Date.now(),
      status: 200,
      response: { ok: false, error: 'invalid_json' },
    });
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
  s.calls.push(call);

  if (await applyFailure(s, method, res, call)) return;

  const handler = handlers[method];
  if (!handler) return send(res, call, 200, { ok: false, error: 'unknown_method', req_method: method });
  if (!token) return send(res, call, 200, { ok: false, error: 'not_authed' });
  if (s.opts.tokens && !s.opts.tokens.includes(token))
    return send(res, call, 200, { ok: false, error: 'invalid_auth' });
  const appToken = token.startsWith('xapp-');
  if (appToken !== (method === 'apps.connections.open'))
    return send(res, call, 200, { ok: false, error: 'not_allowed_token_type' });
  try {
    send(res, call, 200, { ok: true, ...handler(args, token) });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const body: Json = { ok: false, error: err.error };
    if (err.messages.length) body.response_metadata = { messages: err.messages };
    send(res, call, 200, body);
  }
}

/** Listen on opts.host/opts.port (default 127.0.0.1, a free port) and set `s.origin`. */
export async function startServer(s: SlackState, handlers: Record<string, Handler>): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://fake');
      const route = (async () => {
        const api = url.pathname.match(/^\/api\/([A-Za-z0-9_.]+)$/);
        if (api) return handleApi(s, handlers, req, res, api[1]!, raw, url.searchParams);
        const upload = req.method === 'POST' ? url.pathname.match(/^\/upload\/v1\/([A-Z0-9]+)$/) : null;
        if (upload) return handleUpload(s, req, res, upload[1]!, raw);
        const download = req.method === 'GET' ? url.pathname.match(/^\/files-pri\/([A-Z0-9]+)\//) : null;
        if (download) return handlePrivateDownload(s, req, res, download[1]!);
        const response = req.method === 'POST' ? url.pathname.match(/^\/response\/([A-Za-z0-9-]+)$/) : null;
        if (response) return handleResponseUrl(s, req, res, response[1]!, raw);
        return send(res, undefined, 404, 'Not Found');
      })();
      route
        .then(() => {
          // Reads change nothing a person sees; everything else may have.
          const method = /^\/api\/(.+)$/.exec(url.pathname)?.[1];
          if (!method || !READ_METHODS.has(method)) changed(s);
        })
        .catch((err: unknown) =>
          send(res, undefined, 500, { ok: false, error: 'fake_slack_crashed', detail: String(err) }),
        );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(s.opts.port ?? 0, s.opts.host ?? '127.0.0.1', () => resolve());
  });
  s.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return server;
}
