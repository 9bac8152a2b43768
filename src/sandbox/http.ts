/**
 * The sandbox's HTTP layer on node:http: body reading with a size cap, request recording,
 * fault injection, routing, and serialization of replies (stringifyJson keeps exact
 * amounts). Handlers never write to the socket themselves, which is what lets a
 * drop-after-commit fault run a handler to completion and then lose its answer.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { foreignRequest, type SamePageWords } from '../http/same-page.js';
import type { Logger } from '../log.js';
import { serializeError } from '../log.js';
import { stringifyJson } from '../wallet/json.js';
import { problem, statusTitle, v1Fail, v2Fail, controlError, type EnvelopeKind, type Reply } from './envelopes.js';
import type { FaultQueue } from './faults.js';
import { BodyTooLarge, readBody } from '../http/body.js';

export interface SandboxRequest {
  method: string;
  /** The request target as sent: path and query. */
  target: string;
  /** Normalized path: lower case, no trailing slash (routes match case-insensitively, as ASP.NET does). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Counter = 'logins' | 'refreshes' | 'withdrawals';

export interface Route {
  methods: readonly string[];
  path: string;
  envelope: EnvelopeKind;
  counter?: Counter;
  /** The path is a prefix: `<path>/<anything>` (a path parameter, read from `target`). */
  prefix?: boolean;
  handle(req: SandboxRequest): Reply | Promise<Reply>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface HttpDeps {
  routes: readonly Route[];
  faults: FaultQueue;
  log: Logger;
  maxBodyBytes: number;
  onRequest(rec: RecordedRequest, route: Route | undefined): void;
}

export interface HttpServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The sandbox's own test endpoints (`/sandbox/*`, today's and any added later) make up deposits
 * and notifications the app then verifies: only a tool on this machine may call them, never a
 * web page (a `text/plain` post from any site, or a DNS-rebinding host name). The same guard as
 * the local workspace's page (src/http/same-page.ts).
 */
const TEST_ENDPOINTS = '/sandbox/';
const TEST_ENDPOINT_WORDS: SamePageWords = {
  wrongHost: "the sandbox's test endpoints answer only on localhost or an IP address",
  foreignOrigin: "the sandbox's test endpoints answer only to tools on this machine, not to other web pages",
};

/** A loopback address as a socket reports it: 127.0.0.0/8, ::1, or IPv4-mapped 127.x. */
export function loopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase();
  return a === '::1' || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/** Whether the sandbox listens on loopback only (`localhost` or a loopback address), as by default. */
const loopbackListener = (host: string) => host.toLowerCase() === 'localhost' || loopbackAddress(host);

const NOT_LOCAL = "the sandbox's test endpoints answer only to this machine";

/**
 * Why a request to a test endpoint is refused, or undefined. On loopback (the default) the
 * caller must be this machine too. A sandbox deliberately exposed (`exposed`: SANDBOX_HOST set to
 * a non-loopback address, for a colleague or a container network) is meant to be called from
 * elsewhere: there the Host/Origin/JSON guard alone keeps web pages out.
 */
export function testEndpointRefusal(
  req: Pick<IncomingMessage, 'headers'> & { socket: { remoteAddress?: string | undefined } },
  method: string,
  exposed: boolean,
): string | undefined {
  if (!exposed && !loopbackAddress(req.socket.remoteAddress)) return NOT_LOCAL;
  return foreignRequest(req, method !== 'GET' && method !== 'HEAD', TEST_ENDPOINT_WORDS);
}

const normalizePath = (p: string) => {
  const lower = p.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
};

/** A failure in the envelope the caller of that endpoint expects. */
export function failureFor(kind: EnvelopeKind | undefined, status: number, message: string, instance: string): Reply {
  if (status === 401 || kind === undefined || status >= 500) return problem(status, message, instance);
  if (kind === 'v1') return v1Fail(message, message, status);
  if (kind === 'v2') return v2Fail(status, message);
  return controlError(status, message);
}

export async function startHttpServer(deps: HttpDeps, host: string, port: number): Promise<HttpServer> {
  const routes = deps.routes.map((r) => ({ ...r, path: normalizePath(r.path) }));
  const sleepers = new Set<{ timer: NodeJS.Timeout; resolve: (open: boolean) => void }>();
  let closing = false;
  const exposed = !loopbackListener(host);

  const sleep = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          sleepers.delete(entry);
          resolve(true);
        }, ms),
        resolve,
      };
      sleepers.add(entry);
    });

  const send = (res: ServerResponse, reply: Reply) => {
    const text = reply.text ?? (reply.body === undefined ? '' : stringifyJson(reply.body));
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...reply.headers };
    headers['content-length'] = String(Buffer.byteLength(text));
    res.writeHead(reply.status, headers);
    res.end(text);
  };

  const drop = (socket: Socket) => socket.destroy();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const url = new URL(target, 'http://sandbox.invalid');
    const path = normalizePath(url.pathname);
    const method = (req.method ?? 'GET').toUpperCase();
    const samePath = routes.filter((r) => r.path === path || (r.prefix && path.startsWith(`${r.path}/`)));
    const route = samePath.find((r) => r.methods.includes(method));

    let body: string;
    try {
      body = (await readBody(req, deps.maxBodyBytes)).toString('utf8');
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        // Stop reading a body we will not use; the client learns why before the socket closes.
        res.setHeader('connection', 'close');
        send(res, failureFor(route?.envelope, 413, `Request body exceeds ${deps.maxBodyBytes} bytes`, url.pathname));
        req.resume();
        return;
      }
      drop(req.socket);
      return;
    }

    deps.onRequest({ method, path: target, headers: { ...req.headers }, body }, route);

    if (path.startsWith(TEST_ENDPOINTS)) {
      const foreign = testEndpointRefusal(req, method, exposed);
      if (foreign) {
        deps.log.warn(
          { method, path: url.pathname, reason: foreign },
          'sandbox test endpoint refused a foreign request',
        );
        send(res, controlError(403, foreign));
        return;
      }
    }

    const fault = deps.faults.take(target);
    if (fault?.kind === 'drop-before-commit') {
      deps.log.debug({ method, path: url.pathname }, 'fault: dropping connection before processing');
      drop(req.socket);
      return;
    }
    if (fault?.kind === 'status') {
      deps.log.debug({ method, path: url.pathname, status: fault.status }, 'fault: injected status');
      send(
        res,
        failureFor(
          route?.envelope,
          fault.status,
          `${statusTitle(fault.status)} (injected by the sandbox)`,
          url.pathname,
        ),
      );
      return;
    }
    if (fault?.kind === 'delay') {
      const open = await sleep(fault.ms);
      if (!open || closing) {
        drop(req.socket);
        return;
      }
    }

    let reply: Reply;
    if (!route) {
      reply = samePath.length
        ? problem(405, `Method ${method} is not allowed on ${url.pathname}`, url.pathname, {
            allow: samePath.flatMap((r) => r.methods).join(', '),
          })
        : problem(404, `No endpoint at ${url.pathname}`, url.pathname);
    } else {
      try {
        reply = await route.handle({ method, target, path, query: url.searchParams, headers: req.headers, body });
      } catch (err) {
        deps.log.error({ err: serializeError(err), method, path: url.pathname }, 'sandbox handler failed');
        reply = problem(500, 'The sandbox failed to process the request', url.pathname);
      }
    }

    if (fault?.kind === 'drop-after-commit') {
      deps.log.debug(
        { method, path: url.pathname, status: reply.status },
        'fault: dropping connection after processing',
      );
      drop(req.socket);
      return;
    }
    deps.log.debug({ method, path: url.pathname, status: reply.status }, 'sandbox request');
    send(res, reply);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      deps.log.error({ err: serializeError(err) }, 'sandbox request failed');
      if (!res.headersSent) {
        try {
          send(res, problem(500, 'The sandbox failed to process the request', '/'));
        } catch {
          drop(req.socket);
        }
      }
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;

  return {
    port: actualPort,
    close: async () => {
      closing = true;
      for (const s of sleepers) {
        clearTimeout(s.timer);
        s.resolve(false);
      }
      sleepers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
