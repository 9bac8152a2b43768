/**
 * The workspace's HTTP routes, mounted on the app's own server: the page's files, what one
 * person sees (state, live events, uploaded files), the emoji table (emoji.ts) and what they do (JSON posts). Every read
 * and every post passes the request guard (src/http/same-page.ts) first; the page's files need no guard,
 * they hold nothing of anyone.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { sendJson, type Route } from '../../http/server.js';
import type { Logger } from '../../log.js';
import type { Json } from '../requests.js';
import { installedEmojiTable } from './emoji.js';
import {
  closeView,
  deposit,
  openHome,
  runAction,
  runCommand,
  submitView,
  uploadFile,
  type ActionDeps,
} from './actions.js';
import { fileHeaders } from './decide.js';
import { foreignRequest } from '../../http/same-page.js';
import type { LiveUpdates } from './live.js';
import { pageRoutes } from './page.js';
import {
  actionBody,
  BadRequest,
  closeBody,
  commandBody,
  depositBody,
  homeBody,
  parse,
  submitBody,
  uploadBody,
  userId,
} from './schemas.js';
import { stateFor, type Sight } from './view.js';
import { BodyTooLarge, readBody } from '../../http/body.js';

const MAX_BODY = 256 * 1024;
/** A payout file of up to 1 MB, as JSON text (escapes included). */
const MAX_UPLOAD_BODY = 2_500_000;

async function readJson(req: IncomingMessage, max = MAX_BODY): Promise<unknown> {
  const body = await readBody(req, max).catch((err: unknown) => {
    throw err instanceof BodyTooLarge ? new BadRequest('the request is too large') : err;
  });
  try {
    return JSON.parse(body.toString('utf8') || '{}');
  } catch {
    throw new BadRequest('the request is not JSON');
  }
}

/** A JSON post from the page: guarded, parsed with its schema, run; a refusal says why. */
const post =
  <T>(log: Logger, schema: z.ZodType<T>, run: (b: T) => Promise<Json>, max = MAX_BODY) =>
  async (req: IncomingMessage, res: ServerResponse) => {
    const foreign = foreignRequest(req, true);
    if (foreign) return sendJson(res, 403, { ok: false, error: foreign });
    try {
      sendJson(res, 200, await run(parse(schema, await readJson(req, max))));
    } catch (err) {
      if (err instanceof BadRequest) return sendJson(res, 400, { ok: false, error: err.message });
      log.warn({ err }, 'a workspace action failed');
      sendJson(res, 502, { ok: false, error: 'the app did not answer; see the log' });
    }
  };

/** A read by the page: guarded like the posts (minus the JSON body), then answered. */
const read =
  (answer: (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => void) =>
  (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => {
    const foreign = foreignRequest(req, false);
    if (foreign) return sendJson(res, 403, { ok: false, error: foreign });
    answer(req, res, params);
  };

export interface RouteDeps {
  sight: Sight;
  live: LiveUpdates;
  actions: ActionDeps;
  log: Logger;
}

export function workspaceRoutes(d: RouteDeps): Route[] {
  const { actions: a, log } = d;
  return [
    ...pageRoutes(),
    // Slack's emoji short codes for the page; like its files, it holds nothing of anyone.
    { method: 'GET', path: '/local/emoji.json', handler: (_req, res) => sendJson(res, 200, installedEmojiTable()) },
    {
      method: 'GET',
      path: '/local/state',
      handler: read((req, res) => {
        const u = new URL(req.url ?? '/', 'http://local').searchParams.get('user') ?? '';
        const r = userId.safeParse(u);
        if (!r.success) return sendJson(res, 400, { ok: false, error: 'user: a Slack user id such as U0ALICE' });
        sendJson(res, 200, stateFor(d.sight, r.data));
      }),
    },
    { method: 'GET', path: '/local/events', handler: read((req, res) => d.live.open(req, res)) },
    {
      method: 'GET',
      path: '/local/files/:id',
      handler: read((_req, res, params) => {
        const f = a.api.file(params.id ?? '');
        if (!f) return sendJson(res, 404, { ok: false, error: 'no such file' });
        res.writeHead(200, fileHeaders(f.name, f.content.length));
        res.end(f.content);
      }),
    },
    { method: 'POST', path: '/local/command', handler: post(log, commandBody, (b) => runCommand(a, b)) },
    { method: 'POST', path: '/local/action', handler: post(log, actionBody, (b) => runAction(a, b)) },
    { method: 'POST', path: '/local/submit', handler: post(log, submitBody, (b) => submitView(a, b)) },
    { method: 'POST', path: '/local/close', handler: post(log, closeBody, (b) => closeView(a, b)) },
    {
      method: 'POST',
      path: '/local/upload',
      handler: post(log, uploadBody, (b) => uploadFile(a, b), MAX_UPLOAD_BODY),
    },
    { method: 'POST', path: '/local/home', handler: post(log, homeBody, (b) => openHome(a, b)) },
    { method: 'POST', path: '/local/deposit', handler: post(log, depositBody, (b) => deposit(a, b)) },
  ];
}
