/**
 * The two reads the spec does not list (public-facts.md): withdrawal status by merchant
 * reference and the origin accounts' balances, against the sandbox over HTTP, and the forms
 * the sandbox never sends from a stand-in server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import type { WalletRejectedError, WalletValidationError } from '../../src/wallet/errors.js';
import {
  clientFor,
  headerOf,
  loginBody,
  requestsTo,
  sendJson,
  startSandbox,
  stubServer,
  walletError,
  type Sandbox,
  type StubServer,
} from './helpers.js';

const DEST = '0x1111111111111111111111111111111111111111';
const CLIENT = 'alice@client.test';

let sb: Sandbox;
let stub: StubServer | undefined;
beforeEach(async () => {
  sb = await startSandbox({ seed: false, webhook: { confirmAfterMs: 1 } });
});
afterEach(async () => {
  await sb.close();
  await stub?.close();
  stub = undefined;
});

const balanceOf = (rows: Array<{ currency: string; network: string; balance: string }>, c: string, n: string) =>
  rows.find((r) => r.currency === c && r.network === n)?.balance;

describe('withdrawalStatus', () => {
  it('answers Completed for a withdrawal the sandbox executed, with its amount, destination and hash', async () => {
    const { client } = clientFor(sb);
    sb.setBalance(CLIENT, 'USDT', 'BSC', '100');
    await client.withdraw({
      amount: '12.5',
      currency: 'USDT',
      network: 'BSC',
      destinationAddress: DEST,
      clientEmail: CLIENT,
      merchantReference: 'Ref-Case-1',
    });
    const s = await client.withdrawalStatus('Ref-Case-1');
    expect(s).toMatchObject({ status: 'completed', merchantReference: 'Ref-Case-1', amount: '12.5' });
    expect(s.destinationAddress).toBe(DEST);
    expect(s.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    const [req] = requestsTo(sb, '/api/merchantClientWithdrawal/status/');
    expect(req!.method).toBe('GET');
    expect(req!.path).toBe('/api/merchantClientWithdrawal/status/Ref-Case-1');
    expect(headerOf(req!.headers, 'authorization')).toBe(`ApiKey ${SANDBOX_MERCHANT.apiKey}`);
    expect(headerOf(req!.headers, 'accept')).toBe('text/plain; ver=1.0');
  });

  it('answers NotFound for a reference the sandbox never saw (references are case-sensitive)', async () => {
    const { client } = clientFor(sb);
    expect((await client.withdrawalStatus('never-sent')).status).toBe('not_found');
    sb.setBalance(CLIENT, 'USDT', 'BSC', '100');
    await client.withdraw({
      amount: '1',
      currency: 'USDT',
      network: 'BSC',
      destinationAddress: DEST,
      clientEmail: CLIENT,
      merchantReference: 'ABC',
    });
    expect((await client.withdrawalStatus('abc')).status).toBe('not_found');
  });

  it.each([
    [2, 'pending'],
    ['3', 'completed'],
    ['Failed', 'failed'],
    ['notfound', 'not_found'],
    ['PENDING', 'pending'],
  ] as const)('reads withdrawalStatus %j as %s', async (wire, expected) => {
    const { client } = clientFor(sb);
    sb.setWithdrawalStatus('r1', wire);
    expect((await client.withdrawalStatus('r1')).status).toBe(expected);
  });

  it('an unknown status value is a response validation error, never a guess', async () => {
    const { client } = clientFor(sb);
    sb.setWithdrawalStatus('r1', 9);
    const err = await walletError<WalletValidationError>(client.withdrawalStatus('r1'), 'validation');
    expect(err.source).toBe('response');
    expect(err.message).toMatch(/withdrawalStatus/);
  });

  it('an empty reference is refused before sending', async () => {
    const { client } = clientFor(sb);
    await walletError(client.withdrawalStatus('  '), 'validation');
    expect(requestsTo(sb, '/api/merchantClientWithdrawal/status')).toHaveLength(0);
  });

  it('a wrong API key is an auth error (401 problem details); a 400 v1 failure is a rejection', async () => {
    const { client: bad } = clientFor(sb, { apiKey: 'sk_wrong_key_000000000000' });
    await walletError(bad.withdrawalStatus('x'), 'auth');
    const { client } = clientFor(sb);
    sb.injectFault('/api/merchantClientWithdrawal/status/', { kind: 'status', status: 400 });
    const err = await walletError<WalletRejectedError>(client.withdrawalStatus('x'), 'rejected');
    expect(err.serviceMessage).toMatch(/^Bad Request/);
  });

  it('a 5xx is retried (a read), then answered', async () => {
    const { client } = clientFor(sb);
    sb.injectFault('/api/merchantClientWithdrawal/status/', { kind: 'status', status: 503 });
    expect((await client.withdrawalStatus('x')).status).toBe('not_found');
    expect(requestsTo(sb, '/api/merchantClientWithdrawal/status/')).toHaveLength(2);
  });

  it('reads numbers and strings and a data-less NotFound from another server', async () => {
    let answer: unknown;
    stub = await stubServer((req, res) => {
      if (req.url.startsWith('/api/v2/auth/login')) return sendJson(res, 200, loginBody());
      sendJson(res, 200, answer);
    });
    const { client } = clientFor(stub);
    answer =
      '{"status":1,"message":"ok","data":{"amount":"0.123456789012345678","destinationAddress":null,"transactionHash":null,"merchantReference":"m","withdrawalStatus":"4"}}';
    expect(await client.withdrawalStatus('m')).toMatchObject({ status: 'failed', amount: '0.123456789012345678' });
    answer = '{"status":1,"data":{"amount":0.123456789012345678,"withdrawalStatus":2}}';
    expect(await client.withdrawalStatus('m')).toMatchObject({ status: 'pending', amount: '0.123456789012345678' });
    answer = { status: 1, data: null };
    await walletError(client.withdrawalStatus('m'), 'validation');
    answer = { status: 0, message: 'Reference unknown to this merchant', data: null };
    await walletError(client.withdrawalStatus('m'), 'rejected');
  });
});

describe('originBalances', () => {
  it('sums the clients of the merchant per currency and network, with canonical names and exact decimals', async () => {
    const { client } = clientFor(sb);
    sb.setBalance(CLIENT, 'USDT', 'BSC', '1000.5');
    sb.setBalance('bob@client.test', 'USDT', 'BSC', '0.000001');
    sb.setBalance(CLIENT, 'ETH', 'ETH', '0.123456789012345678');
    const rows = await client.originBalances();
    expect(balanceOf(rows, 'USDT', 'BSC')).toBe('1000.500001');
    expect(balanceOf(rows, 'ETH', 'ETH')).toBe('0.123456789012345678');
    const [req] = requestsTo(sb, '/api/v1/walletBalance/originAccounts');
    expect(req!.path).toBe(`/api/v1/walletBalance/originAccounts?publicKey=${SANDBOX_MERCHANT.publicKey}`);
    expect(headerOf(req!.headers, 'authorization')).toBe(`ApiKey ${SANDBOX_MERCHANT.apiKey}`);
  });

  it('reads the currency from `key` as well', async () => {
    const { client } = clientFor(sb);
    sb.setBalance(CLIENT, 'USDC', 'POLYGON', '7');
    sb.balancesUseKeyField(true);
    expect(await client.originBalances()).toEqual([{ currency: 'USDC', network: 'POLYGON', balance: '7' }]);
  });

  it('moves with deposits, withdrawals and fees', async () => {
    const { client } = clientFor(sb);
    sb.setBalance(CLIENT, 'USDT', 'BSC', '100');
    await sb.deposit({ to: CLIENT, amount: '50.25', currency: 'USDT', network: 'BSC' });
    await expect.poll(async () => balanceOf(await client.originBalances(), 'USDT', 'BSC')).toBe('150.25');
    await client.withdraw({
      amount: '20',
      currency: 'USDT',
      network: 'BSC',
      destinationAddress: DEST,
      clientEmail: CLIENT,
      merchantReference: 'w1',
    });
    // 150.25 - 20 - the sandbox's flat USDT fee of 1
    expect(balanceOf(await client.originBalances(), 'USDT', 'BSC')).toBe('129.25');
  });

  it('reads names, numeric strings and string balances from another server; errors map to the error classes', async () => {
    let status = 200;
    let answer: unknown;
    stub = await stubServer((_req, res) => sendJson(res, status, answer));
    const { client } = clientFor(stub, { readRetries: 0 });
    answer =
      '{"status":1,"data":[{"key":"usdt","networkChain":"bsc","balance":"12500.000001"},{"currency":"4","networkChain":8,"balance":0.1},{"currency":99,"networkChain":1,"balance":"3"}]}';
    expect(await client.originBalances()).toEqual([
      { currency: 'USDT', network: 'BSC', balance: '12500.000001' },
      { currency: 'USDT', network: 'TRON', balance: '0.1' },
      { currency: '99', network: 'BSC', balance: '3' },
    ]);
    answer = { status: 1, data: [{ networkChain: 1, balance: '1' }] };
    await walletError(client.originBalances(), 'validation');
    // A success without its list is not "no balances" (which would read as 0 everywhere).
    answer = { status: 1, data: null };
    await walletError(client.originBalances(), 'validation');
    answer = { status: 1 };
    await walletError(client.originBalances(), 'validation');
    answer = { status: 1, data: [] };
    expect(await client.originBalances()).toEqual([]);
    status = 401;
    answer = { type: 'about:blank', title: 'Unauthorized', status: 401 };
    await walletError(client.originBalances(), 'auth');
    status = 400;
    answer = { status: 0, message: 'Invalid public key', data: 'publicKey does not belong to this merchant' };
    await walletError(client.originBalances(), 'rejected');
    status = 503;
    answer = { title: 'down' };
    await walletError(client.originBalances(), 'unavailable');
  });
});
