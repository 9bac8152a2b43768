/**
 * Whatever a wallet service answers (any status, any body, any shape, numbers where text
 * is expected, prototype keys, truncated JSON), the client resolves with a typed value or
 * rejects with a WalletError: never a TypeError or RangeError that would reach a person as
 * "internal error". Against a tiny local HTTP server answering what fast-check picks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalletError } from '../../src/wallet/errors.js';
import { clientFor } from '../wallet/helpers.js';
import { hostileJson, http as httpRuns } from './config.js';

interface Answer {
  status: number;
  body: string;
}

let server: Server;
let url: string;
let next: (path: string) => Answer = () => ({ status: 200, body: '{}' });

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const a = next(req.url ?? '/');
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const login = JSON.stringify({
  data: {
    token: 'fuzz-token-0123456789',
    refreshToken: 'fuzz-refresh-0123456789',
    expiresAtTimestamp: Date.now() + 3_600_000,
    email: 'm@example.com',
  },
  isSuccessful: true,
  httpStatusCode: 200,
});

/** An envelope like the service's with hostile data, or plain garbage. */
const answer: fc.Arbitrary<Answer> = fc.record({
  status: fc.constantFrom(200, 200, 200, 201, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503),
  body: fc.oneof(
    hostileJson.map((data) => JSON.stringify({ data, isSuccessful: true, httpStatusCode: 200 }) ?? 'null'),
    hostileJson.map((v) => JSON.stringify(v) ?? ''),
    fc
      .record({ records: fc.array(hostileJson, { maxLength: 3 }), totalRecords: hostileJson, pageSize: hostileJson })
      .map((data) => JSON.stringify({ data, isSuccessful: true })),
    fc.string(),
    fc.constantFrom(
      '',
      '{',
      '{"data":',
      '[]',
      'null',
      '{"data":{"records":[{"amount":1e400}]}}',
      '{"__proto__":{"isSuccessful":true}}',
    ),
  ),
});

describe('wallet-service answers of any shape', () => {
  it('list, address, login and webhook calls: a value or a WalletError, nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(
        answer,
        fc.boolean(),
        fc.constantFrom('list', 'address', 'webhook', 'login'),
        async (a, answerLogin, op) => {
          next = (path) => (path.includes('/auth/login') && !answerLogin ? { status: 200, body: login } : a);
          const { client } = clientFor({ url }, { timeoutMs: 2_000 });
          const call =
            op === 'list'
              ? client.listTransactions({ page: 1, pageSize: 10 })
              : op === 'address'
                ? client.generateAddress({
                    clientEmail: 'c@example.com',
                    currency: 'USDT',
                    network: 'BSC',
                  } as Parameters<typeof client.generateAddress>[0])
                : op === 'webhook'
                  ? client.setWebhookUrl('https://example.com/hook')
                  : client.login();
          try {
            await call;
          } catch (err) {
            expect(err, String((err as Error)?.stack ?? err)).toBeInstanceOf(WalletError);
          }
        },
      ),
      httpRuns(150),
    );
  }, 120_000);
});
