/**
 * Whatever a wallet service answers to the two reads the spec does not list (withdrawal status,
 * origin balances), the client resolves with a typed value or rejects with a WalletError: never
 * a TypeError, and never a status it made up. Against a tiny local HTTP server answering what
 * fast-check picks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalletError } from '../../src/wallet/errors.js';
import { clientFor } from '../wallet/helpers.js';
import { hostileJson, http as httpRuns } from './config.js';

let server: Server;
let url: string;
let answer = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const row = fc.record(
  { currency: hostileJson, key: hostileJson, networkChain: hostileJson, balance: hostileJson },
  { requiredKeys: [] },
);
const statusData = fc.record(
  {
    amount: hostileJson,
    destinationAddress: hostileJson,
    transactionHash: hostileJson,
    merchantReference: hostileJson,
    withdrawalStatus: fc.oneof(hostileJson, fc.constantFrom(1, 2, 3, 4, '1', 'Pending', 'completed')),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.array(row, { maxLength: 3 }).map((data) => JSON.stringify({ status: 1, data })),
  fc.tuple(fc.constantFrom(1, 0, '1'), statusData).map(([s, data]) => JSON.stringify({ status: s, data })),
  hostileJson.map((v) => JSON.stringify(v) ?? ''),
  fc.string(),
  fc.constantFrom('', '{', '[]', 'null', '{"status":1,"data":[{"currency":4,"networkChain":1,"balance":1e400}]}'),
);

describe('status and balance answers of any shape', () => {
  it('a value or a WalletError, nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(200, 200, 200, 400, 401, 404, 500, 503),
        body,
        fc.boolean(),
        async (status, text, balances) => {
          answer = { status, body: text };
          const { client } = clientFor({ url }, { timeoutMs: 2_000, readRetries: 0 });
          try {
            const v = balances ? await client.originBalances() : await client.withdrawalStatus('ref-1');
            if (balances)
              for (const r of v as Awaited<ReturnType<typeof client.originBalances>>)
                expect(typeof r.balance === 'string' && typeof r.currency === 'string').toBe(true);
            else
              expect(['not_found', 'pending', 'completed', 'failed']).toContain(
                (v as Awaited<ReturnType<typeof client.withdrawalStatus>>).status,
              );
          } catch (err) {
            expect(err, String((err as Error)?.stack ?? err)).toBeInstanceOf(WalletError);
          }
        },
      ),
      httpRuns(150),
    );
  }, 120_000);
});
