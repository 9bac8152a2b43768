/**
 * The passkey pages' routes on the app's own HTTP server (under PUBLIC_URL):
 *   GET  /passkeys/enrol/:token           the enrolment page
 *   POST /passkeys/enrol/:token/options   registration options (JSON)
 *   POST /passkeys/enrol/:token           the registration (JSON)
 *   GET  /confirm/:token                  what is being approved, and the button
 *   POST /confirm/:token/options          the bound challenge's request options (JSON)
 *   POST /confirm/:token                  the assertion (JSON)
 *   GET  /passkeys/static/<file>          the page scripts and @simplewebauthn/browser's bundle
 * Tokens are checked for shape before any look-up; bodies are size-limited and zod-checked.
 * Routes and logs never carry a token (the server logs the route pattern).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from '../../http/body.js';
import type { Route } from '../../http/server.js';
import type { Logger } from '../../log.js';
import type { Valuation } from '../../prices/types.js';
import type { WithdrawalRequest } from '../../withdrawals/types.js';
import type { PasskeyConfirmation } from '../confirm.js';
import type { PasskeyEnrolment } from '../enrol.js';
import { TOKEN_PATTERN } from '../shared.js';
import { CONFIRM_WORDS, ENROL_WORDS } from '../words.js';
import { batchConfirmPage, confirmPage, enrolPage, messagePage, PAGE_CSP } from './pages.js';
import { authenticationBody, passkeyName, registrationBody } from './schemas.js';

const MAX_BODY = 64 * 1024;

export interface PasskeyRouteOptions {
  enrolment: PasskeyEnrolment;
  confirmation: PasskeyConfirmation;
  valueForRules(r: WithdrawalRequest): Valuation | undefined;
  /** A person's name as the workspace shows it (their Slack id when it cannot be read). */
  nameOf(user: string): Promise<string>;
  logger: Logger;
}

const HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    ...HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
  });
  res.end(html);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The JSON body, or undefined once an error was answered. */
async function jsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    json(res, 415, { ok: false, message: 'The page must send JSON.' });
    return undefined;
  }
  try {
    return JSON.parse((await readBody(req, MAX_BODY)).toString('utf8')) as unknown;
  } catch (err) {
    json(res, err instanceof BodyTooLarge ? 413 : 400, { ok: false, message: CONFIRM_WORDS.malformed });
    return undefined;
  }
}

/** The page files: ours from ./static, and the library's browser bundle from node_modules. */
function staticFiles(): Map<string, { type: string; body: Buffer }> {
  const here = new URL('./static/', import.meta.url);
  const js = 'text/javascript; charset=utf-8';
  const require = createRequire(import.meta.url);
  // The package exports only its entry; its bundle sits beside it in the package folder.
  const pkg = dirname(dirname(require.resolve('@simplewebauthn/browser')));
  return new Map([
    ['webauthn.js', { type: js, body: readFileSync(join(pkg, 'dist/bundle/index.umd.min.js')) }],
    ['common.js', { type: js, body: readFileSync(new URL('common.js', here)) }],
    ['enrol.js', { type: js, body: readFileSync(new URL('enrol.js', here)) }],
    ['confirm.js', { type: js, body: readFileSync(new URL('confirm.js', here)) }],
    ['passkeys.css', { type: 'text/css; charset=utf-8', body: readFileSync(new URL('passkeys.css', here)) }],
  ]);
}

export function passkeyRoutes(o: PasskeyRouteOptions): Route[] {
  const files = staticFiles();
  const token = (params: Record<string, string>): string | undefined => {
    const t = params.token ?? '';
    return TOKEN_PATTERN.test(t) ? t : undefined;
  };
  const statusOf = (reason: string) => (reason === 'unknown_link' ? 404 : reason === 'malformed' ? 400 : 410);

  const routes: Route[] = [...files.entries()].map(([name, f]) => ({
    method: 'GET',
    path: `/passkeys/static/${name}`,
    handler: (_req, res) => {
      res.writeHead(200, { ...HEADERS, 'content-type': f.type, 'content-length': f.body.length });
      res.end(f.body);
    },
  }));

  routes.push(
    {
      method: 'GET',
      path: '/passkeys/enrol/:token',
      handler: async (_req, res, params) => {
        const t = token(params);
        const owner = t ? o.enrolment.linkOwner(t) : undefined;
        if (!t || !owner) return sendHtml(res, 404, messagePage('Set up a passkey', ENROL_WORDS.unknown_link));
        if (!owner.ok) return sendHtml(res, 410, messagePage('Set up a passkey', owner.message));
        sendHtml(res, 200, enrolPage({ token: t, who: await o.nameOf(owner.user), expiresAt: owner.expiresAt }));
      },
    },
    {
      method: 'POST',
      path: '/passkeys/enrol/:token/options',
      handler: async (req, res, params) => {
        // The page sends an empty object: nothing to read, but the socket is drained for keep-alive.
        req.resume();
        const t = token(params);
        const owner = t ? o.enrolment.linkOwner(t) : undefined;
        if (!t || !owner) return json(res, 404, { ok: false, message: ENROL_WORDS.unknown_link });
        if (!owner.ok) return json(res, 410, { ok: false, message: owner.message });
        const got = await o.enrolment.options(t, await o.nameOf(owner.user));
        json(
          res,
          got.ok ? 200 : 410,
          got.ok ? { ok: true, options: got.options } : { ok: false, message: got.message },
        );
      },
    },
    {
      method: 'POST',
      path: '/passkeys/enrol/:token',
      handler: async (req, res, params) => {
        const t = token(params);
        const raw = await jsonBody(req, res);
        if (raw === undefined) return;
        if (!t) return json(res, 404, { ok: false, message: ENROL_WORDS.unknown_link });
        const body = registrationBody.safeParse(raw);
        if (!body.success) return json(res, 400, { ok: false, message: ENROL_WORDS.malformed });
        const name = passkeyName.safeParse(body.data.name);
        if (!name.success)
          return json(res, 400, { ok: false, message: `That name cannot be used: ${name.error.issues[0]!.message}.` });
        const done = await o.enrolment.register(t, body.data.response, name.data);
        if (!done.ok) {
          const status =
            done.reason === 'name_taken' || done.reason === 'credential_taken'
              ? 409
              : done.reason === 'unknown_link'
                ? 404
                : 400;
          return json(res, status, { ok: false, message: done.message });
        }
        json(res, 200, {
          ok: true,
          message: `Your passkey “${done.name}” is set up. You can close this page; approvals that need it will ask for it.`,
        });
      },
    },
    {
      method: 'GET',
      path: '/confirm/:token',
      handler: async (_req, res, params) => {
        const t = token(params);
        const v = t ? o.confirmation.view(t) : undefined;
        if (!t || !v) return sendHtml(res, 404, messagePage('Confirm your approval', CONFIRM_WORDS.unknown_link));
        if (!v.ok) return sendHtml(res, statusOf(v.reason), messagePage('Confirm your approval', v.message));
        const subject = v.request ?? v.batch;
        const [requesterName, approverName] = await Promise.all([
          o.nameOf(subject.requester),
          o.nameOf(v.challenge.approver),
        ]);
        const common = { token: t, requesterName, approverName, expiresAt: v.challenge.expiresAt };
        sendHtml(
          res,
          200,
          v.request
            ? confirmPage({ ...common, request: v.request, valuation: o.valueForRules(v.request) })
            : batchConfirmPage({ ...common, batch: v.batch }),
        );
      },
    },
    {
      method: 'POST',
      path: '/confirm/:token/options',
      handler: async (req, res, params) => {
        req.resume();
        const t = token(params);
        if (!t) return json(res, 404, { ok: false, message: CONFIRM_WORDS.unknown_link });
        const got = await o.confirmation.options(t);
        json(
          res,
          got.ok ? 200 : 410,
          got.ok ? { ok: true, options: got.options } : { ok: false, message: got.message },
        );
      },
    },
    {
      method: 'POST',
      path: '/confirm/:token',
      handler: async (req, res, params) => {
        const t = token(params);
        const raw = await jsonBody(req, res);
        if (raw === undefined) return;
        if (!t) return json(res, 404, { ok: false, message: CONFIRM_WORDS.unknown_link });
        const body = authenticationBody.safeParse(raw);
        if (!body.success) return json(res, 400, { ok: false, message: CONFIRM_WORDS.malformed });
        const done = await o.confirmation.confirm(t, body.data.response);
        if (!done.ok)
          return json(res, statusOf(done.reason) === 410 ? 403 : statusOf(done.reason), {
            ok: false,
            reason: done.reason,
            message: done.message,
          });
        const outcome = done.outcome;
        json(res, 200, {
          ok: outcome.ok,
          message: outcome.ok
            ? 'Your approval is recorded, confirmed with your passkey. You can close this page.'
            : `Your passkey was accepted, but the approval was not recorded: ${outcome.message}`,
        });
      },
    },
  );
  return routes;
}
