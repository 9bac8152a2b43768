/**
 * Contract tests: every operation of the wallet client against the sandbox, over real HTTP,
 * checking the exact wire details of the spec and docs/wallet-service-choices.md.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { currency, network } from '../../src/wallet/enums.js';
import type { WalletRejectedError, WalletValidationError } from '../../src/wallet/errors.js';
import { clientFor, headerOf, requestsTo, startSandbox, walletError, type Sandbox } from './helpers.js';

const USDT = currency('USDT')!;
const ETH = currency('ETH')!;
const BSC = network('BSC')!;
const ETH_NET = network('ETH')!;
const DEST = '0x1111111111111111111111111111111111111111';

let sb: Sandbox;
beforeEach(async () => {
  sb = await startSandbox({ seed: false });
});
afterEach(async () => {
  await sb.close();
});

describe('generateAddress', () => {
  it('POSTs the spec body with the ApiKey header and returns the same address for the same inputs', async () => {
    const { client } = clientFor(sb);
    const a = await client.generateAddress({ clientEmail: 'alice@client.test', currency: USDT, network: BSC });
    expect(a.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(a.status).toBe('generated');
    expect(a.statusCode).toBe(1);
    expect(a.merchantClientId).toMatch(/^[0-9a-f-]{36}$/);
    const again = await client.generateAddress({ clientEmail: 'alice@client.test', currency: 'usdt', network: 1 });
    expect(again.address).toBe(a.address);

    const [req] = requestsTo(sb, '/api/v1/walletaddress/generate');
    expect(req!.method).toBe('POST');
    expect(headerOf(req!.headers, 'authorization')).toBe(`ApiKey ${SANDBOX_MERCHANT.apiKey}`);
    expect(headerOf(req!.headers, 'content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(req!.body)).toEqual({
      clientEmailAddress: 'alice@client.test',
      currency: '4',
      networkChain: 'BSC',
      publicKey: SANDBOX_MERCHANT.publicKey,
    });
  });

  it('reports pending and failed generations with their status', async () => {
    const { client } = clientFor(sb);
    const pending = await client.generateAddress({
      clientEmail: 'bob+pending@client.test',
      currency: USDT,
      network: BSC,
    });
    expect(pending.status).toBe('pending');
    expect(pending.address).toBe('');
    const failed = await client.generateAddress({
      clientEmail: 'bob+failfail@client.test',
      currency: USDT,
      network: BSC,
    });
    expect(failed.status).toBe('failed');
    expect(failed.message).toBeTruthy();
  });

  it('refuses bad input before sending anything', async () => {
    const { client } = clientFor(sb);
    await walletError(
      client.generateAddress({ clientEmail: 'not-an-email', currency: USDT, network: BSC }),
      'validation',
    );
    await walletError(
      client.generateAddress({ clientEmail: 'a@b.test', currency: 'DOGE', network: BSC }),
      'validation',
    );
    await walletError(
      client.generateAddress({ clientEmail: 'a@b.test', currency: USDT, network: 'SOLANA' }),
      'validation',
    );
    expect(requestsTo(sb, '/api/v1/walletaddress/generate')).toHaveLength(0);
  });

  it('a wrong API key is an auth error', async () => {
    const { client } = clientFor(sb, { apiKey: 'sk_wrong_key_000000' });
    const err = await walletError(
      client.generateAddress({ clientEmail: 'a@b.test', currency: USDT, network: BSC }),
      'auth',
    );
    expect(err.message).not.toContain('sk_wrong_key_000000');
    expect(err.mayHaveChanged).toBe(false);
  });

  it('a wrong public key surfaces the service 400 message', async () => {
    const { client } = clientFor(sb, { publicKey: 'pk_somebody_else' });
    const err = await walletError<WalletRejectedError>(
      client.generateAddress({ clientEmail: 'a@b.test', currency: USDT, network: BSC }),
      'rejected',
    );
    expect(err.status).toBe(400);
    expect(err.serviceMessage).toMatch(/public key/i);
  });
});

describe('withdraw', () => {
  async function fundedClient(amount = '10') {
    const { client } = clientFor(sb);
    await client.generateAddress({ clientEmail: 'carol@client.test', currency: ETH, network: ETH_NET });
    sb.setBalance('carol@client.test', 'ETH', 'ETH', amount);
    return client;
  }

  it('sends the exact wire form and returns the result with exact decimals', async () => {
    const client = await fundedClient();
    const amount = '0.123456789012345678';
    const result = await client.withdraw({
      amount,
      currency: ETH,
      network: ETH_NET,
      destinationAddress: DEST,
      clientEmail: 'carol@client.test',
      merchantReference: 'ref-exact-1',
    });
    expect(result.amount).toBe(amount);
    expect(result.currency.name).toBe('ETH');
    expect(result.network.name).toBe('ETH');
    expect(result.merchantReference).toBe('ref-exact-1');
    expect(result.serviceReference).toBeTruthy();
    expect(result.destinationAddress.toLowerCase()).toBe(DEST);
    expect(result.fee).toMatch(/^\d+(\.\d+)?$/);

    const reqs = requestsTo(sb, '/api/merchantClientWithdrawal');
    expect(reqs).toHaveLength(1);
    const req = reqs[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toContain('api-version=1');
    expect(headerOf(req.headers, 'authorization')).toBe(`ApiKey ${SANDBOX_MERCHANT.apiKey}`);
    expect(headerOf(req.headers, 'content-type')).toBe('application/json-patch+json; ver=1.0');
    expect(headerOf(req.headers, 'accept')).toBe('text/plain; ver=1.0');
    // The amount is a JSON number with every digit: JSON.parse would round it, the text must not.
    expect(req.body).toContain(`"amount":${amount}`);
    expect(req.body).toContain('"currency":"8"');
    expect(req.body).toContain('"networkChain":"2"');
    expect(req.body).toContain(`"merchantClientEmailAddress":"carol@client.test"`);
    expect(req.body).toContain(`"publicKey":"${SANDBOX_MERCHANT.publicKey}"`);
    expect(sb.stats.withdrawals).toBe(1);
    expect(sb.transactions().some((t) => t.reference === 'ref-exact-1' && t.amount === amount)).toBe(true);
  });

  it('surfaces the service 400 message (balance too low, reused reference)', async () => {
    const client = await fundedClient('1');
    const base = { currency: ETH, network: ETH_NET, destinationAddress: DEST, clientEmail: 'carol@client.test' };
    const tooMuch = await walletError<WalletRejectedError>(
      client.withdraw({ ...base, amount: '5', merchantReference: 'ref-big' }),
      'rejected',
    );
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.serviceMessage.length).toBeGreaterThan(0);
    expect(tooMuch.message).toContain(tooMuch.serviceMessage);
    expect(tooMuch.mayHaveChanged).toBe(false);

    await client.withdraw({ ...base, amount: '0.1', merchantReference: 'ref-once' });
    const reused = await walletError<WalletRejectedError>(
      client.withdraw({ ...base, amount: '0.1', merchantReference: 'ref-once' }),
      'rejected',
    );
    expect(reused.serviceMessage).toMatch(/reference/i);
  });

  it('the 400 body {status:0,message,data} is read as the service sends it', async () => {
    const { client } = clientFor(sb);
    // Never generated an address: the sandbox refuses the unknown client.
    const err = await walletError<WalletRejectedError>(
      client.withdraw({
        amount: '1',
        currency: USDT,
        network: BSC,
        destinationAddress: DEST,
        clientEmail: 'stranger@client.test',
        merchantReference: 'ref-stranger',
      }),
      'rejected',
    );
    expect(err.status).toBe(400);
    expect(err.serviceMessage).toBeTruthy();
    expect(err.message).toContain(err.serviceMessage);
    expect(err.message).toMatch(/Nothing was changed/);
  });

  it('refuses malformed input before sending anything', async () => {
    const client = await fundedClient();
    const base = {
      amount: '1',
      currency: ETH,
      network: ETH_NET,
      destinationAddress: DEST,
      clientEmail: 'carol@client.test',
      merchantReference: 'ref-bad',
    };
    for (const amount of ['0', '-1', '1e3', 'abc', '01.5', '1.', ' 1', '1,000']) {
      const err = await walletError<WalletValidationError>(client.withdraw({ ...base, amount }), 'validation');
      expect(err.source).toBe('input');
      expect(err.message).toMatch(/Nothing was sent/);
    }
    await walletError(client.withdraw({ ...base, currency: USDT, network: BSC, amount: '1.1234567' }), 'validation');
    await walletError(client.withdraw({ ...base, destinationAddress: '0x1234' }), 'validation');
    await walletError(
      client.withdraw({ ...base, destinationAddress: 'TJYeasTPa6gpEEfYrBuTy2e1SrnKS1h5rP' }),
      'validation',
    );
    await walletError(client.withdraw({ ...base, clientEmail: 'nope' }), 'validation');
    await walletError(client.withdraw({ ...base, merchantReference: ' ' }), 'validation');
    await walletError(client.withdraw({ ...base, currency: 'NOPE' }), 'validation');
    expect(requestsTo(sb, '/api/merchantClientWithdrawal')).toHaveLength(0);
  });

  it('a wrong API key is an auth error and is not resent', async () => {
    await fundedClient();
    const { client } = clientFor(sb, { apiKey: 'sk_wrong_key_000000' });
    await walletError(
      client.withdraw({
        amount: '1',
        currency: ETH,
        network: ETH_NET,
        destinationAddress: DEST,
        clientEmail: 'carol@client.test',
        merchantReference: 'ref-401',
      }),
      'auth',
    );
    expect(requestsTo(sb, '/api/merchantClientWithdrawal')).toHaveLength(1);
  });
});

describe('listTransactions', () => {
  const forty = () => Array.from({ length: 40 }, (_, i) => ({ amount: `${i + 1}.5` }));

  it('follows the spec pagination examples: 40 records, PageSize 30 -> 30 + 10; PageSize 50 -> one page', async () => {
    sb.resetTransactions(forty());
    const { client } = clientFor(sb);
    const p1 = await client.listTransactions({ pageSize: 30 });
    expect(p1).toMatchObject({ totalRecords: 40, totalPages: 2, currentPage: 1, pageSize: 30 });
    expect(p1.records).toHaveLength(30);
    const p2 = await client.listTransactions({ pageSize: 30, page: 2 });
    expect(p2).toMatchObject({ totalRecords: 40, totalPages: 2, currentPage: 2 });
    expect(p2.records).toHaveLength(10);
    const all = await client.listTransactions({ pageSize: 50 });
    expect(all).toMatchObject({ totalRecords: 40, totalPages: 1, pageSize: 50 });
    expect(all.records).toHaveLength(40);
    const byDefault = await client.listTransactions();
    expect(byDefault.records).toHaveLength(30);
    expect(byDefault.totalPages).toBe(2);
    // No overlap between the pages, and newest first.
    const hashes = new Set([...p1.records, ...p2.records].map((r) => r.hash));
    expect(hashes.size).toBe(40);
    const times = all.records.map((r) => r.timestamp!.getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('sends PascalCase filters with enums as codes and the v2 Bearer token', async () => {
    sb.resetTransactions(forty());
    const { client } = clientFor(sb);
    const from = new Date(Date.now() - 3_600_000);
    const to = new Date();
    await client.listTransactions({
      currency: ETH,
      network: 'ethereum',
      status: 'failed',
      type: 'withdrawal',
      hash: '0xabc',
      address: DEST,
      from,
      to,
      page: 2,
      pageSize: 5,
    });
    const [req] = requestsTo(sb, '/api/v2/analytics/transaction-record');
    expect(req!.method).toBe('GET');
    const q = new URL(req!.path, 'http://x').searchParams;
    expect(Object.fromEntries(q)).toEqual({
      Currency: '8',
      NetworkChain: '2',
      Status: '2',
      TransactionType: '2',
      TransactionHash: '0xabc',
      WalletAddress: DEST,
      Page: '2',
      PageSize: '5',
      StartTimeStamp: String(from.getTime()),
      EndTimeStamp: String(to.getTime()),
    });
    expect(headerOf(req!.headers, 'authorization')).toMatch(/^Bearer \S+$/);
  });

  it('filters for real and returns records with exact amounts, names, dates and raw fields', async () => {
    sb.resetTransactions([
      {
        amount: '0.123456789012345678',
        currency: 'ETH',
        network: 'ETH',
        transactionType: 'Withdrawal',
        transactionStatus: 'FAILED',
      },
      { amount: '7', currency: 'USDT', network: 'BSC', transactionType: 'Deposit', transactionStatus: 'SUCCESSFUL' },
      { amount: '8', currency: 'USDT', network: 'BSC', transactionType: 'Withdrawal', transactionStatus: 'SUCCESSFUL' },
    ]);
    const { client } = clientFor(sb);
    const page = await client.listTransactions({ currency: 'ETH', status: 'failed' });
    expect(page.totalRecords).toBe(1);
    const r = page.records[0]!;
    expect(r.amount).toBe('0.123456789012345678');
    expect(r).toMatchObject({ status: 'failed', type: 'withdrawal', currencyName: 'ETH', networkName: 'ETH' });
    expect(r.currency?.code).toBe(8);
    expect(r.network?.code).toBe(2);
    expect(r.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.hashUrl).toMatch(/^https?:\/\//);
    expect(r.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+$/);
    expect(r.timestamp).toBeInstanceOf(Date);
    expect(Math.abs(r.timestamp!.getTime() - Date.parse(`${r.createdAt}Z`))).toBeLessThan(1000);
    expect(Object.keys(r.raw)).toEqual(
      expect.arrayContaining(['transactionStatus', 'transactionHashUrl', 'reference']),
    );

    const deposits = await client.listTransactions({ type: 'deposit' });
    expect(deposits.records.map((x) => x.amount)).toEqual(['7']);
  });

  it('reads seconds timestamps when configured for them', async () => {
    await sb.close();
    sb = await startSandbox({ seed: false, timestampUnit: 's' });
    sb.resetTransactions([{ amount: '1' }, { amount: '2', transactionTimeStamp: Date.now() - 86_400_000 * 3 }]);
    const { client } = clientFor(sb, { timestampUnit: 's' });
    const recent = await client.listTransactions({ from: new Date(Date.now() - 86_400_000) });
    expect(recent.records.map((r) => r.amount)).toEqual(['1']);
    const [req] = requestsTo(sb, '/api/v2/analytics/transaction-record');
    const start = Number(new URL(req!.path, 'http://x').searchParams.get('StartTimeStamp'));
    expect(start).toBeLessThan(1e11); // seconds, not milliseconds
    expect(Math.abs(recent.records[0]!.timestamp!.getTime() - Date.now())).toBeLessThan(3_600_000);
  });

  it('a 400 from the service surfaces its message; a page size above its maximum is clamped, and said; bad filters are refused locally', async () => {
    const { client } = clientFor(sb);
    sb.injectFault('/api/v2/analytics/transaction-record', { kind: 'status', status: 400 });
    const err = await walletError<WalletRejectedError>(client.listTransactions({ pageSize: 10 }), 'rejected');
    expect(err.status).toBe(400);
    expect(err.serviceMessage).toBeTruthy();
    // The sandbox's maximum is 50 (the size the spec documents as accepted): the answer says so.
    expect((await client.listTransactions({ pageSize: 1000 })).pageSize).toBe(50);
    await walletError(client.listTransactions({ page: 0 }), 'validation');
    await walletError(client.listTransactions({ currency: 'NOPE' }), 'validation');
    await walletError(client.listTransactions({ from: new Date('garbage') }), 'validation');
  });
});

describe('setWebhookUrl', () => {
  it('PUTs {webHookUrl, publicKey} with the ApiKey header and registers the URL', async () => {
    const { client } = clientFor(sb);
    await client.setWebhookUrl('https://treasury.example.test/webhooks/wallet/s3cr3t-path');
    expect(sb.webhook.url()).toBe('https://treasury.example.test/webhooks/wallet/s3cr3t-path');
    const [req] = requestsTo(sb, '/api/v1/merchant/remittancewebhook');
    expect(req!.method).toBe('PUT');
    expect(headerOf(req!.headers, 'authorization')).toBe(`ApiKey ${SANDBOX_MERCHANT.apiKey}`);
    expect(headerOf(req!.headers, 'content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(req!.body)).toEqual({
      webHookUrl: 'https://treasury.example.test/webhooks/wallet/s3cr3t-path',
      publicKey: SANDBOX_MERCHANT.publicKey,
    });
    await client.setWebhookUrl('http://127.0.0.1:9/replaced');
    expect(sb.webhook.url()).toBe('http://127.0.0.1:9/replaced');
  });

  it('refuses a URL that is not absolute http(s)', async () => {
    const { client } = clientFor(sb);
    await walletError(client.setWebhookUrl('/relative'), 'validation');
    await walletError(client.setWebhookUrl('ftp://x.test/a'), 'validation');
    expect(requestsTo(sb, '/api/v1/merchant/remittancewebhook')).toHaveLength(0);
  });
});
