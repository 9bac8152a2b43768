import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { createLogger, type Logger } from '../../src/log.js';
import { SecretRegistry } from '../../src/secrets.js';
import { createSandbox, SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { createWalletClient, type WalletClient, type WalletClientOptions } from '../../src/wallet/client.js';
import { WalletError, type WalletErrorKind } from '../../src/wallet/errors.js';

export type Sandbox = Awaited<ReturnType<typeof createSandbox>>;

/** Log lines captured in memory. `registry` is separate from the client's, so scrubbing cannot hide a leak. */
export function memoryLogger(level = 'debug'): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ level, destination: stream, secrets: new SecretRegistry() });
  return { logger, text: () => chunks.join('') };
}

export const quietLogger = () => createLogger({ level: 'silent', secrets: new SecretRegistry() });

export async function startSandbox(opts: Parameters<typeof createSandbox>[0] = {}): Promise<Sandbox> {
  return createSandbox({ logger: quietLogger(), ...opts });
}

export function clientFor(
  sb: { url: string },
  overrides: Partial<WalletClientOptions> = {},
): { client: WalletClient; secrets: SecretRegistry } {
  const secrets = overrides.secrets ?? new SecretRegistry();
  const client = createWalletClient({
    baseUrl: sb.url,
    apiKey: SANDBOX_MERCHANT.apiKey,
    publicKey: SANDBOX_MERCHANT.publicKey,
    email: SANDBOX_MERCHANT.email,
    password: SANDBOX_MERCHANT.password,
    logger: quietLogger(),
    timeoutMs: 3_000,
    retryBaseMs: 5,
    retryMaxDelayMs: 20,
    ...overrides,
    secrets,
  });
  return { client, secrets };
}

/** Await a rejection and check it is a WalletError of the given kind. */
export async function walletError<T extends WalletError = WalletError>(
  p: Promise<unknown>,
  kind: WalletErrorKind,
): Promise<T> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected a ${kind} error, the call succeeded`).toBeDefined();
  expect(caught).toBeInstanceOf(WalletError);
  expect((caught as WalletError).kind, (caught as Error).message).toBe(kind);
  return caught as T;
}

export function requestsTo(sb: Sandbox, pathPrefix: string) {
  return sb.stats.requests.filter((r) => r.path.toLowerCase().startsWith(pathPrefix.toLowerCase()));
}

export function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** A stand-in server for answers the sandbox never gives (malformed bodies, other schemes). */
export interface StubServer {
  url: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

export async function stubServer(
  handler: (
    req: { method: string; url: string; body: string; headers: IncomingMessage['headers'] },
    res: ServerResponse,
  ) => void,
): Promise<StubServer> {
  const requests: StubServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const r = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(parts).toString('utf8'),
      };
      requests.push(r);
      handler(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

export const loginBody = (token = 'stub-access-token-1', refreshToken = 'stub-refresh-token-1') => ({
  data: {
    token,
    refreshToken,
    expiresAtTimestamp: Date.now() + 3_600_000,
    email: SANDBOX_MERCHANT.email,
    businessName: 'Stub Ltd',
  },
  roles: ['Merchant'],
  isSuccessful: true,
  message: 'ok',
  httpStatusCode: 200,
});
