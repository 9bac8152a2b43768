import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import {
  M,
  WITHDRAW_HEADERS,
  call,
  expectProblem401,
  generate,
  withdrawRaw,
  withdrawalBody,
  login,
  bearer,
} from './helpers.js';

/**
 * These tests read the sandbox's wire format itself (the spec's canonical forms), so its variety
 * (src/sandbox/variety.ts: alternative forms at random) is off here; test/sandbox/variety.test.ts
 * checks the alternatives, and every client test runs against them.
 */
const CANONICAL = { variety: 'off' } as const;

let sb: Sandbox;
const CLIENT = 'payer@client.test';
const DEST = `0x${'ab'.repeat(20)}`;
let ref = 0;
const nextRef = () => `ref-${++ref}-${Date.now()}`;

const body = (over: Record<string, unknown> = {}) => ({
  amount: '__AMOUNT__',
  currency: '4',
  destinationAddress: DEST,
  merchantClientEmailAddress: CLIENT,
  networkChain: '1',
  merchantReference: nextRef(),
  publicKey: M.publicKey,
  ...over,
});

beforeEach(async () => {
  sb = await createSandbox({ ...CANONICAL, seed: false, webhook: { confirmAfterMs: 10, retryBaseMs: 5 } });
  await generate(sb, CLIENT, '4', 'BSC');
  sb.setBalance(CLIENT, 'USDT', 'BSC', '1000');
});
afterEach(async () => {
  await sb.close();
});

describe('withdrawal success', () => {
  it('answers 200 with exact amounts, debits amount + fee, records the transaction', async () => {
    const b = body({ merchantReference: 'order-7781', paymentDescription: 'supplier payout' });
    const res = await withdrawRaw(sb, withdrawalBody(b, '123.456789'));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 1, message: expect.any(String) });
    expect(res.json.data).toEqual({
      destinationAddress: DEST,
      paymentCurrency: 4,
      networkChain: 1,
      withdrawnAmount: 123.456789,
      transactionCharge: 1,
      withdrawnAmountRequested: 123.456789,
      paymentDescription: 'supplier payout',
      merchantTransactionReference: 'order-7781',
      switchWalletTransactionReference: expect.any(String),
      transactionChargeCurrency: 4,
    });
    // Amounts are JSON numbers with their exact digits.
    expect(res.text).toContain('"withdrawnAmount":123.456789');
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe('875.543211');
    const [tx] = sb.transactions();
    expect(tx).toMatchObject({
      transactionType: 'Withdrawal',
      transactionStatus: 'SUCCESSFUL',
      reference: 'order-7781',
      amount: '123.456789',
      toAddress: DEST,
      currency: 'USDT',
      network: 'BSC',
    });
    expect(sb.stats.withdrawals).toBe(1);
    expect(sb.stats.withdrawalsCommitted).toBe(1);

    const { token } = await login(sb);
    const list = await call(sb, 'GET', '/api/v2/analytics/transaction-record?TransactionType=2', {
      headers: bearer(token),
    });
    expect(list.json.data.records).toHaveLength(1);
    expect(list.json.data.records[0].reference).toBe('order-7781');
  });

  it('keeps all 18 decimals of an ETH amount', async () => {
    await generate(sb, CLIENT, 'ETH', 'ETH');
    sb.setBalance(CLIENT, 'ETH', 'ETH', '1');
    const res = await withdrawRaw(
      sb,
      withdrawalBody(body({ currency: '8', networkChain: '2' }), '0.123456789012345678'),
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('"withdrawnAmount":0.123456789012345678');
    expect(sb.balance(CLIENT, 'ETH', 'ETH')).toBe('0.876043210987654322');
    expect(sb.stats.requests.at(-1)!.body).toContain('0.123456789012345678');
  });

  it('accepts names for currency and network, header parameters in any spacing and case, and no api-version', async () => {
    const res = await withdrawRaw(
      sb,
      withdrawalBody(body({ currency: 'usdt', networkChain: 'BSC' }), '1'),
      { ...WITHDRAW_HEADERS, 'content-type': 'Application/JSON-Patch+JSON;VER="1.0"' },
      '/api/merchantClientWithdrawal',
    );
    expect(res.status).toBe(200);
  });

  it('answers text/plain when asked for it, JSON otherwise', async () => {
    const a = await withdrawRaw(sb, withdrawalBody(body(), '1'));
    expect(a.headers.get('content-type')).toMatch(/^text\/plain/);
    const b = await withdrawRaw(sb, withdrawalBody(body(), '1'), { ...WITHDRAW_HEADERS, accept: 'application/json' });
    expect(b.status).toBe(200);
    expect(b.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('balance exactly equal to amount + fee is enough', async () => {
    const res = await withdrawRaw(sb, withdrawalBody(body(), '999'));
    expect(res.status).toBe(200);
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe('0');
  });
});

describe('withdrawal rejections', () => {
  const expect400 = async (raw: string, pattern: RegExp) => {
    const res = await withdrawRaw(sb, raw);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: 0, message: expect.any(String), data: expect.any(String) });
    expect(`${res.json.message} ${res.json.data}`).toMatch(pattern);
    return res;
  };

  it('unknown currency or network', async () => {
    await expect400(withdrawalBody(body({ currency: '99' }), '1'), /currency/i);
    await expect400(withdrawalBody(body({ networkChain: 'SOLANA' }), '1'), /network/i);
  });

  it('a destination that is malformed for the network', async () => {
    await expect400(withdrawalBody(body({ destinationAddress: '0x1234' }), '1'), /destination/i);
    await expect400(
      withdrawalBody(body({ destinationAddress: 'TJnv3f6puZ95hU6NVXxWdyvk6CnmekYTjx' }), '1'),
      /destination/i,
    );
  });

  it('amount <= 0, too many decimals, or not a JSON number', async () => {
    await expect400(withdrawalBody(body(), '0'), /amount/i);
    await expect400(withdrawalBody(body(), '-5'), /amount/i);
    await expect400(withdrawalBody(body(), '1.1234567'), /decimal/i); // USDT has 6
    await expect400(withdrawalBody(body(), '"10"'), /number/i);
  });

  it('a client that never generated an address', async () => {
    await expect400(withdrawalBody(body({ merchantClientEmailAddress: 'stranger@client.test' }), '1'), /client/i);
  });

  it('balance too low for amount + fee', async () => {
    const res = await expect400(withdrawalBody(body(), '999.5'), /balance/i);
    expect(res.json.message).toMatch(/insufficient/i);
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe('1000');
    // The balance is per network: USDT on TRON is empty.
    await generate(sb, CLIENT, '4', 'TRON');
    await expect400(
      withdrawalBody(body({ networkChain: '8', destinationAddress: 'TJnv3f6puZ95hU6NVXxWdyvk6CnmekYTjx' }), '1'),
      /balance/i,
    );
  });

  it('a reused merchantReference', async () => {
    const b = body({ merchantReference: 'same-ref' });
    expect((await withdrawRaw(sb, withdrawalBody(b, '1'))).status).toBe(200);
    await expect400(withdrawalBody(b, '1'), /reference/i);
    expect(sb.transactions()).toHaveLength(1);
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe('998');
  });

  it.each([
    'amount',
    'currency',
    'destinationAddress',
    'merchantClientEmailAddress',
    'networkChain',
    'merchantReference',
    'publicKey',
  ])('missing %s', async (field) => {
    const b: Record<string, unknown> = { ...body(), amount: 1 };
    delete b[field];
    await expect400(JSON.stringify(b), new RegExp(field));
  });

  it('a foreign publicKey, malformed JSON', async () => {
    await expect400(withdrawalBody(body({ publicKey: 'pk_other' }), '1'), /public ?key/i);
    await expect400('{"amount": 1,', /JSON/);
    expect(sb.stats.withdrawalsCommitted).toBe(0);
  });

  it('needs Authorization: ApiKey', async () => {
    const raw = withdrawalBody(body(), '1');
    const { authorization: _, ...noAuth } = WITHDRAW_HEADERS;
    expectProblem401(await withdrawRaw(sb, raw, noAuth));
    expectProblem401(await withdrawRaw(sb, raw, { ...WITHDRAW_HEADERS, authorization: 'ApiKey sk_wrong' }));
    const { token } = await login(sb);
    expectProblem401(await withdrawRaw(sb, raw, { ...WITHDRAW_HEADERS, authorization: `Bearer ${token}` }));
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe('1000');
  });

  it('a wrong media type -> 415; a bad ver or api-version -> refused; an Accept that excludes text -> 406', async () => {
    const raw = withdrawalBody(body(), '1');
    for (const ct of [
      'application/json',
      'application/json-patch+json',
      'application/json-patch+json; ver=2.0',
      'text/plain; ver=1.0',
    ]) {
      const res = await withdrawRaw(sb, raw, { ...WITHDRAW_HEADERS, 'content-type': ct });
      expect(res.status, ct).toBe(415);
      expect(res.json.status).toBe(0);
    }
    expect((await withdrawRaw(sb, raw, WITHDRAW_HEADERS, '/api/merchantClientWithdrawal?api-version=2')).status).toBe(
      400,
    );
    expect((await withdrawRaw(sb, raw, { ...WITHDRAW_HEADERS, accept: 'text/html' })).status).toBe(406);
    expect(sb.stats.withdrawalsCommitted).toBe(0);
    expect(sb.stats.withdrawals).toBe(6);
  });
});

describe('withdrawal faults', () => {
  it('drop-after-commit: the money moves, the answer is lost', async () => {
    sb.injectFault('/api/merchantClientWithdrawal', { kind: 'drop-after-commit' });
    await expect(withdrawRaw(sb, withdrawalBody(body({ merchantReference: 'lost-answer' }), '10'))).rejects.toThrow();
    expect(sb.stats.withdrawals).toBe(1);
    expect(sb.stats.withdrawalsCommitted).toBe(1);
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe('989');
    expect(sb.transactions().map((t) => t.reference)).toEqual(['lost-answer']);
    // Only once: the next request is answered normally, and the reference is now taken.
    const again = await withdrawRaw(sb, withdrawalBody(body({ merchantReference: 'lost-answer' }), '10'));
    expect(again.status).toBe(400);
  });

  it('drop-before-commit: nothing happens', async () => {
    sb.injectFault('/api/merchantClientWithdrawal', { kind: 'drop-before-commit' });
    await expect(withdrawRaw(sb, withdrawalBody(body({ merchantReference: 'never-seen' }), '10'))).rejects.toThrow();
    expect(sb.stats.withdrawals).toBe(1);
    expect(sb.stats.withdrawalsCommitted).toBe(0);
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe('1000');
    expect(sb.transactions()).toEqual([]);
    expect((await withdrawRaw(sb, withdrawalBody(body({ merchantReference: 'never-seen' }), '10'))).status).toBe(200);
  });
});
