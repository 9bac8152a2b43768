/**
 * The one HTTP server on PORT: Slack's events endpoint, the wallet webhook, health and
 * readiness. A tiny route table is enough; each handler owns its body parsing so the
 * webhook can read (and verify) the raw bytes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import { StoreFailedError, StoreUnavailableError } from '../store/errors.js';

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
) => void | Promise<void>;

export interface Route {
  method: string;
  /** Literal segments and `:name` parameters, e.g. /webhooks/wallet/:secret */
  path: string;
  handler: Handler;
}

function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      if (!g) return undefined;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return undefined;
      }
    } else if (w !== g) return undefined;
  }
  return params;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export interface HttpServer {
  server: Server;
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startHttpServer(
  routes: Route[],
  opts: { port: number; host: string; logger: Logger },
): Promise<HttpServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    let methodMismatch = false;
    for (const route of routes) {
      const params = match(route.path, path);
      if (!params) continue;
      if (route.method !== req.method) {
        methodMismatch = true;
        continue;
      }
      Promise.resolve()
        .then(() => route.handler(req, res, params))
        .catch((err: unknown) => {
          // Log the route pattern, not the path: the webhook path carries a secret.
          if (err instanceof StoreUnavailableError) {
            // Nothing was saved: the sender should retry later (the wallet service does on a 503).
            opts.logger.warn({ err, route: route.path }, 'request refused: the store cannot write');
            if (!res.headersSent) res.setHeader('retry-after', '30');
            sendJson(res, 503, { error: 'temporarily unable to save; retry later', reason: err.reason });
            return;
          }
          if (err instanceof StoreFailedError) {
            // The store stopped (a replica that lost its database, a disk that cannot be read
            // back): what this request wrote is not durable, so it must not look acknowledged.
            opts.logger.warn({ err, route: route.path }, 'request refused: the store has stopped');
            if (!res.headersSent) res.setHeader('retry-after', '5');
            sendJson(res, 503, { error: 'temporarily unable to save; retry later' });
            return;
          }
          opts.logger.error({ err, route: route.path }, 'request handler failed');
          sendJson(res, 500, { error: 'internal error' });
        });
      return;
    }
    sendJson(res, methodMismatch ? 405 : 404, { error: methodMismatch ? 'method not allowed' : 'not found' });
  });
  // Slack and webhook senders keep connections alive; do not let idle sockets hold shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host;
  return {
    server,
    port,
    url: `http://${shownHost}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
