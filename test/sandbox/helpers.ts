/** Shared helpers for the sandbox tests: real HTTP only (fetch, or node:http where fetch cannot, e.g. GET with a body). */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { parseJson } from '../../src/wallet/json.js';
import { SANDBOX_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { readBody } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

export const M = SANDBOX_MERCHANT;

export interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function call(
  sb: Sandbox,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown; raw?: string } = {},
): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(sb.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const { text, json } = await readBody(res);
  return { status: res.status, headers: res.headers, text, json };
}

export const apiKey = (key = M.apiKey) => ({ authorization: `ApiKey ${key}` });
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function login(
  sb: Sandbox,
  email = M.email,
  password = M.password,
): Promise<{ token: string; refreshToken: string; expiresAtTimestamp: number }> {
  const res = await call(sb, 'POST', '/api/v2/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.json.data;
}

export async function generate(
  sb: Sandbox,
  clientEmailAddress: string,
  currency: string | number,
  networkChain: string | number,
  key = M.apiKey,
  publicKey = M.publicKey,
): Promise<Res> {
  return call(sb, 'POST', '/api/v1/walletaddress/generate', {
    headers: apiKey(key),
    body: { clientEmailAddress, currency, networkChain, publicKey },
  });
}

export const WITHDRAW_PATH = '/api/merchantClientWithdrawal?api-version=1';
export const WITHDRAW_HEADERS = {
  authorization: `ApiKey ${M.apiKey}`,
  'content-type': 'application/json-patch+json; ver=1.0',
  accept: 'text/plain; ver=1.0',
};

/** Withdrawal with the body written as raw text, so amounts can carry any digits. */
export async function withdrawRaw(
  sb: Sandbox,
  rawBody: string,
  headers: Record<string, string> = WITHDRAW_HEADERS,
  path = WITHDRAW_PATH,
): Promise<Res> {
  return call(sb, 'POST', path, { headers, raw: rawBody });
}

export function withdrawalBody(fields: Record<string, unknown>, amountText?: string): string {
  const json = JSON.stringify(fields);
  return amountText === undefined ? json : json.replace('"__AMOUNT__"', amountText);
}

/** node:http request (fetch refuses a body on GET). */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls until `check` returns a truthy value (no timing assertion: only a generous upper bound). */
export function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  return until(what, check, timeoutMs, 5);
}

export interface Receiver {
  url: string;
  received: Array<{ headers: IncomingHttpHeaders; body: string; json: any; probe?: unknown }>;
  /** Statuses to answer with, in order; then 200. */
  script: number[];
  close(): Promise<void>;
}

/** A webhook receiver on a random loopback port. */
export async function startReceiver(script: number[] = [], probe?: () => unknown): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const state = { script: [...script] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      // probe() runs the moment a notification arrives: what the sandbox looked like then.
      received.push({ headers: req.headers, body, json: parseJson(body), probe: probe?.() });
      res.statusCode = state.script.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/wallet`,
    received,
    get script() {
      return state.script;
    },
    set script(v: number[]) {
      state.script = [...v];
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function registerWebhook(sb: Sandbox, url: string): Promise<Res> {
  return call(sb, 'PUT', '/api/v1/merchant/remittancewebhook', {
    headers: apiKey(),
    body: { webHookUrl: url, publicKey: M.publicKey },
  });
}

export function expectProblem401(res: Res): void {
  if (res.status !== 401) throw new Error(`expected 401, got ${res.status}: ${res.text}`);
  const p = res.json as Record<string, unknown>;
  for (const k of ['type', 'title', 'status', 'detail', 'instance'])
    if (!(k in p)) throw new Error(`problem details lacks ${k}: ${res.text}`);
  if (p.status !== 401) throw new Error(`problem status ${String(p.status)}`);
}
