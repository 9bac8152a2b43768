/**
 * Answers the sandbox never gives (malformed bodies, other auth schemes, refresh methods,
 * roles beside data, KYB named in a 400) from a small stand-in server on loopback, and the
 * environment overrides of assumptions.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ASSUMPTIONS } from '../../src/wallet/assumptions.js';
import { currency, KYB_ADVICE, network } from '../../src/wallet/enums.js';
import type {
  WalletKybError,
  WalletRejectedError,
  WalletUnknownOutcomeError,
  WalletValidationError,
} from '../../src/wallet/errors.js';
import { clientFor, loginBody, sendJson, stubServer, walletError, type StubServer } from './helpers.js';

const ETH = currency('ETH')!;
const ETH_NET = network('ETH')!;
const withdrawal = {
  amount: '1.25',
  currency: ETH,
  network: ETH_NET,
  destinationAddress: '0x3333333333333333333333333333333333333333',
  clientEmail: 'frank@client.test',
  merchantReference: 'ref-stub',
};

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const page = (records: unknown[]) => ({
  data: { records, pageSize: 30, currentPage: 1, totalPages: 1, totalRecords: records.length },
  isSuccessful: true,
  message: null,
  httpStatusCode: 200,
});

describe('responses that do not fit the schema are typed errors', () => {
  it('a listing with the wrong shape is a response validation error', async () => {
    stub = await stubServer((req, res) => {
      if (req.url.startsWith('/api/v2/auth/login')) return sendJson(res, 200, loginBody());
      sendJson(res, 200, { data: { records: 'nope' }, isSuccessful: true });
    });
    const { client } = clientFor(stub);
    const err = await walletError<WalletValidationError>(client.listTransactions(), 'validation');
    expect(err.source).toBe('response');
    expect(err.message).toMatch(/data\.records/);
  });

  it('a body that is not JSON is a response validation error', async () => {
    stub = await stubServer((req, res) => {
      if (req.url.startsWith('/api/v2/auth/login')) return sendJson(res, 200, loginBody());
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>maintenance</html>');
    });
    const { client } = clientFor(stub);
    const err = await walletError<WalletValidationError>(client.listTransactions(), 'validation');
    expect(err.message).toMatch(/not JSON/);
  });

  it('a withdrawal answered 200 with an unreadable body is unknown_outcome, never "nothing happened"', async () => {
    stub = await stubServer((_req, res) =>
      sendJson(res, 200, { status: 1, message: 'ok', data: { something: 'else' } }),
    );
    const { client } = clientFor(stub);
    const err = await walletError<WalletUnknownOutcomeError>(client.withdraw(withdrawal), 'unknown_outcome');
    expect(err.merchantReference).toBe('ref-stub');
    expect(stub.requests).toHaveLength(1);
  });

  it('a withdrawal answered 200 with status 0 is unknown_outcome', async () => {
    stub = await stubServer((_req, res) => sendJson(res, 200, { status: 0, message: 'Processing error', data: 'x' }));
    const { client } = clientFor(stub);
    const err = await walletError(client.withdraw(withdrawal), 'unknown_outcome');
    expect(err.message).toContain('Processing error');
  });

  it('records keep unknown fields, accept numeric-string amounts and unknown currency names', async () => {
    stub = await stubServer((req, res) => {
      if (req.url.startsWith('/api/v2/auth/login')) return sendJson(res, 200, loginBody());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        '{"data":{"records":[{"transactionStatus":"SUCCESSFUL","transactionType":"Deposit","amount":"0.000000000000000001",' +
          '"currency":"SHIB","network":"ETHEREUM","transactionTimeStamp":1700000000000,"extraField":{"x":1.10}}],' +
          '"pageSize":30,"currentPage":1,"totalPages":1,"totalRecords":1},"isSuccessful":true,"message":null,"httpStatusCode":200}',
      );
    });
    const { client } = clientFor(stub);
    const p = await client.listTransactions();
    const r = p.records[0]!;
    expect(r.amount).toBe('0.000000000000000001');
    expect(r.currency).toBeUndefined();
    expect(r.currencyName).toBe('SHIB');
    expect(r.network?.name).toBe('ETH');
    expect(r.timestamp?.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(String((r.raw.extraField as Record<string, unknown>).x)).toBe('1.10');
  });

  it('a v1 failure envelope {status:0,message,data} yields the service message', async () => {
    stub = await stubServer((_req, res) =>
      sendJson(res, 400, { status: 0, message: 'Insufficient balance', data: 'balance 1, needed 2' }),
    );
    const { client } = clientFor(stub);
    const err = await walletError<WalletRejectedError>(client.withdraw(withdrawal), 'rejected');
    expect(err.serviceMessage).toBe('Insufficient balance');
    expect(err.message).toBe('Withdrawal rejected by the wallet service: Insufficient balance. Nothing was changed.');
  });

  it('an empty webhook answer is accepted; a status 0 answer is a rejection', async () => {
    let answer: 'empty' | 'fail' = 'empty';
    stub = await stubServer((_req, res) => {
      if (answer === 'empty') {
        res.writeHead(200);
        res.end();
      } else sendJson(res, 200, { status: 0, message: 'URL not reachable', data: '' });
    });
    const { client } = clientFor(stub);
    await client.setWebhookUrl('https://hooks.example.test/a');
    answer = 'fail';
    const err = await walletError<WalletRejectedError>(
      client.setWebhookUrl('https://hooks.example.test/a'),
      'rejected',
    );
    expect(err.serviceMessage).toBe('URL not reachable');
  });
});

describe('configurable assumptions', () => {
  it('v2AuthScheme changes the word in the Authorization header of v2 calls', async () => {
    stub = await stubServer((req, res) => {
      if (req.url.startsWith('/api/v2/auth/login')) return sendJson(res, 200, loginBody('tok-abcdef-1'));
      sendJson(res, 200, page([]));
    });
    const { client } = clientFor(stub, { v2AuthScheme: 'Token' });
    await client.listTransactions();
    expect(stub.requests[1]!.headers.authorization).toBe('Token tok-abcdef-1');
  });

  it.each(['PUT', 'GET'] as const)('refreshMethod %s is used for the refresh', async (method) => {
    let issued = 0;
    stub = await stubServer((req, res) => {
      if (req.url.startsWith('/api/v2/auth/login'))
        return sendJson(res, 200, loginBody('tok-first-0001', 'ref-first-0001'));
      if (req.url.startsWith('/api/v2/auth/refreshToken'))
        return sendJson(res, 200, loginBody(`tok-new-${++issued}-xx`, 'ref-2-0000'));
      if (req.headers.authorization === 'Bearer tok-first-0001')
        return sendJson(res, 401, { status: 401, title: 'Unauthorized' });
      sendJson(res, 200, page([]));
    });
    const { client } = clientFor(stub, { refreshMethod: method });
    await client.listTransactions();
    const refresh = stub.requests.find((r) => r.url.startsWith('/api/v2/auth/refreshToken'))!;
    expect(refresh.method).toBe(method);
    if (method === 'GET') {
      const q = new URL(refresh.url, 'http://x').searchParams;
      expect(q.get('refreshToken')).toBe('ref-first-0001');
      expect(q.get('token')).toBe('tok-first-0001');
    } else {
      expect(JSON.parse(refresh.body)).toEqual({ refreshToken: 'ref-first-0001', token: 'tok-first-0001' });
    }
    expect(issued).toBe(1);
  });

  it('defaults the open choices as docs/wallet-service-choices.md says', () => {
    expect(DEFAULT_ASSUMPTIONS).toEqual({ v2AuthScheme: 'Bearer', refreshMethod: 'POST', timestampUnit: 'ms' });
  });
});

describe('login variants', () => {
  it('roles beside data are read; a non-merchant role is an auth error', async () => {
    const body = loginBody();
    body.roles = ['Admin'];
    stub = await stubServer((_req, res) => sendJson(res, 200, body));
    const { client } = clientFor(stub);
    const err = await walletError(client.login(), 'auth');
    expect(err.message).toMatch(/not a merchant account/);
  });

  it('a 400 whose message names a KYB state is a KYB error', async () => {
    stub = await stubServer((_req, res) =>
      sendJson(res, 400, {
        data: null,
        isSuccessful: false,
        message: 'Merchant KYB is in progress',
        httpStatusCode: 400,
      }),
    );
    const { client } = clientFor(stub);
    const err = await walletError<WalletKybError>(client.login(), 'kyb');
    expect(err.kybStatus).toBe('InProgress');
    expect(err.advice).toBe(KYB_ADVICE.InProgress);
  });

  it('a token in an unreadable login answer is registered before it can be quoted', async () => {
    stub = await stubServer((_req, res) =>
      sendJson(res, 200, { data: { token: 'leaky-token-value', expiresAtTimestamp: 'soon' } }),
    );
    const { client, secrets } = clientFor(stub);
    await walletError(client.login(), 'validation');
    expect(secrets.scrub('leaky-token-value')).toBe('[REDACTED]');
  });
});
