import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type TransactionRecord } from '../../src/sandbox/index.js';
import { apiKey, bearer, call, login } from './helpers.js';

/**
 * These tests read the sandbox's wire format itself (the spec's canonical forms), so its variety
 * (src/sandbox/variety.ts: alternative forms at random) is off here; test/sandbox/variety.test.ts
 * checks the alternatives, and every client test runs against them.
 */
const CANONICAL = { variety: 'off' } as const;

let sb: Sandbox;
let token: string;
const NOW = Date.parse('2025-06-01T12:00:00.000Z');

const list = (query = '') =>
  call(sb, 'GET', `/api/v2/analytics/transaction-record${query}`, { headers: bearer(token) });

beforeEach(async () => {
  sb = await createSandbox({ ...CANONICAL, seed: false, now: () => NOW });
  ({ token } = await login(sb));
});
afterEach(async () => {
  await sb.close();
});

describe("the spec's pagination examples", () => {
  beforeEach(() => sb.resetTransactions(Array.from({ length: 40 }, () => ({}))));

  it('40 records, default PageSize 30: 2 pages of 30 and 10', async () => {
    const p1 = await list();
    expect(p1.status).toBe(200);
    expect(p1.json).toMatchObject({ isSuccessful: true, message: null, httpStatusCode: 200 });
    expect(p1.json.data).toMatchObject({ pageSize: 30, currentPage: 1, totalPages: 2, totalRecords: 40 });
    expect(p1.json.data.records).toHaveLength(30);
    const p2 = await list('?Page=2');
    expect(p2.json.data).toMatchObject({ pageSize: 30, currentPage: 2, totalPages: 2, totalRecords: 40 });
    expect(p2.json.data.records).toHaveLength(10);
    const refs = [...p1.json.data.records, ...p2.json.data.records].map((r: { reference: string }) => r.reference);
    expect(new Set(refs).size).toBe(40);
  });

  it('PageSize 50: one page of 40', async () => {
    const res = await list('?PageSize=50');
    expect(res.json.data).toMatchObject({ pageSize: 50, currentPage: 1, totalPages: 1, totalRecords: 40 });
    expect(res.json.data.records).toHaveLength(40);
  });

  it('lower-case page/pageSize are accepted', async () => {
    const res = await list('?page=3&pageSize=15');
    expect(res.json.data).toMatchObject({ pageSize: 15, currentPage: 3, totalPages: 3, totalRecords: 40 });
    expect(res.json.data.records).toHaveLength(10);
  });

  it('a PageSize above the maximum (50 by default) is clamped to it, and the answer says the size used', async () => {
    sb.resetTransactions(Array.from({ length: 140 }, () => ({})));
    const p1 = await list('?PageSize=100');
    expect(p1.status).toBe(200);
    expect(p1.json.data).toMatchObject({ pageSize: 50, currentPage: 1, totalPages: 3, totalRecords: 140 });
    expect(p1.json.data.records).toHaveLength(50);
    const p3 = await list('?Page=3&PageSize=100');
    expect(p3.json.data).toMatchObject({ pageSize: 50, currentPage: 3, totalPages: 3 });
    expect(p3.json.data.records).toHaveLength(40);
  });

  it('the maximum is configurable', async () => {
    const capped = await createSandbox({ ...CANONICAL, seed: false, now: () => NOW, maxPageSize: 20 });
    try {
      capped.resetTransactions(Array.from({ length: 40 }, () => ({})));
      const { token: t2 } = await login(capped);
      const res = await call(capped, 'GET', '/api/v2/analytics/transaction-record?PageSize=30', {
        headers: bearer(t2),
      });
      expect(res.json.data).toMatchObject({ pageSize: 20, totalPages: 2, totalRecords: 40 });
    } finally {
      await capped.close();
    }
  });

  it('bad Page or PageSize values -> 400 v2 envelope', async () => {
    for (const q of ['?PageSize=0', '?Page=0', '?Page=abc', '?PageSize=2.5']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.json, q).toMatchObject({ isSuccessful: false, httpStatusCode: 400, message: expect.any(String) });
    }
  });

  it('a page past the end is empty', async () => {
    const res = await list('?Page=5');
    expect(res.json.data).toMatchObject({ currentPage: 5, totalPages: 2, totalRecords: 40, records: [] });
  });
});

it('no records: totalPages 0, records []', async () => {
  sb.resetTransactions();
  const res = await list();
  expect(res.json.data).toEqual({ records: [], pageSize: 30, currentPage: 1, totalPages: 0, totalRecords: 0 });
});

it('most recent first, whatever the insertion order', async () => {
  sb.resetTransactions([
    { reference: 'old', transactionTimeStamp: NOW - 3000 },
    { reference: 'newest', transactionTimeStamp: NOW },
    { reference: 'middle', transactionTimeStamp: NOW - 1000 },
  ]);
  const res = await list();
  expect(res.json.data.records.map((r: { reference: string }) => r.reference)).toEqual(['newest', 'middle', 'old']);
});

describe('record format', () => {
  it('has every field of the spec with the right types', async () => {
    sb.resetTransactions([
      {
        amount: '1234.567890123456789',
        currency: 'ETH',
        network: 'ETH',
        transactionTimeStamp: Date.parse('2025-05-30T08:09:10.123Z'),
      },
    ]);
    const res = await list();
    const [r] = res.json.data.records;
    expect(Object.keys(r).sort()).toEqual(
      [
        'amount',
        'createdAt',
        'currency',
        'fromAddress',
        'fromAddressUrl',
        'network',
        'reference',
        'toAddress',
        'toAddressUrl',
        'transactionHash',
        'transactionHashUrl',
        'transactionStatus',
        'transactionTimeStamp',
        'transactionType',
      ].sort(),
    );
    expect(r.transactionStatus).toBe('SUCCESSFUL');
    expect(r.transactionType).toBe('Deposit');
    expect(r.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.transactionHashUrl).toBe(`https://sepolia.etherscan.io/tx/${r.transactionHash}`);
    expect(r.toAddressUrl).toBe(`https://sepolia.etherscan.io/address/${r.toAddress}`);
    expect(r.fromAddressUrl).toBe(`https://sepolia.etherscan.io/address/${r.fromAddress}`);
    expect(r.currency).toBe('ETH');
    expect(r.network).toBe('ETH');
    expect(r.transactionTimeStamp).toBe(Date.parse('2025-05-30T08:09:10.123Z'));
    expect(r.createdAt).toBe('2025-05-30T08:09:10.123');
    expect(r.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+$/);
    // amount: a JSON number with every digit
    expect(res.text).toContain('"amount":1234.567890123456789');
  });

  it('uses testnet explorers per network, and chain-native hash formats', async () => {
    sb.resetTransactions([
      { network: 'BSC', currency: 'USDT' },
      { network: 'TRON', currency: 'USDT' },
      { network: 'POLYGON', currency: 'USDC' },
      { network: 'BSC', currency: 'BTC' },
    ]);
    const records = (await list()).json.data.records as Array<Record<string, string>>;
    const by = (n: string, c: string) => records.find((r) => r.network === n && r.currency === c)!;
    expect(by('BSC', 'USDT').transactionHashUrl).toMatch(/^https:\/\/testnet\.bscscan\.com\/tx\/0x[0-9a-f]{64}$/);
    expect(by('TRON', 'USDT').transactionHashUrl).toMatch(
      /^https:\/\/nile\.tronscan\.org\/#\/transaction\/[0-9a-f]{64}$/,
    );
    expect(by('TRON', 'USDT').toAddress).toMatch(/^T/);
    expect(by('POLYGON', 'USDC').transactionHashUrl).toMatch(/^https:\/\/amoy\.polygonscan\.com\/tx\//);
    expect(by('BSC', 'BTC').toAddressUrl).toMatch(/^https:\/\/testnet\.bscscan\.com\/address\/0x[0-9a-f]{40}$/);
  });

  it("timestampUnit 's' converts records and filters to seconds", async () => {
    await sb.close();
    sb = await createSandbox({ ...CANONICAL, seed: false, now: () => NOW, timestampUnit: 's' });
    ({ token } = await login(sb));
    sb.resetTransactions([
      { reference: 'a', transactionTimeStamp: NOW - 10_500 },
      { reference: 'b', transactionTimeStamp: NOW },
    ]);
    const all = await list();
    expect(all.json.data.records.map((r: { transactionTimeStamp: number }) => r.transactionTimeStamp)).toEqual([
      NOW / 1000,
      Math.floor((NOW - 10_500) / 1000),
    ]);
    const filtered = await list(`?StartTimeStamp=${NOW / 1000 - 5}`);
    expect(filtered.json.data.records.map((r: { reference: string }) => r.reference)).toEqual(['b']);
  });
});

describe('filters', () => {
  const A = `0x${'a1'.repeat(20)}`;
  const B = `0x${'b2'.repeat(20)}`;
  const records: Partial<TransactionRecord>[] = [
    {
      reference: 'r1',
      currency: 'USDT',
      network: 'BSC',
      transactionType: 'Deposit',
      transactionStatus: 'SUCCESSFUL',
      toAddress: A,
      transactionTimeStamp: NOW - 1000,
    },
    {
      reference: 'r2',
      currency: 'USDT',
      network: 'TRON',
      transactionType: 'Withdrawal',
      transactionStatus: 'SUCCESSFUL',
      transactionTimeStamp: NOW - 2000,
    },
    {
      reference: 'r3',
      currency: 'ETH',
      network: 'ETH',
      transactionType: 'Deposit',
      transactionStatus: 'FAILED',
      fromAddress: A,
      transactionTimeStamp: NOW - 3000,
    },
    {
      reference: 'r4',
      currency: 'USDT',
      network: 'BSC',
      transactionType: 'Withdrawal',
      transactionStatus: 'FAILED',
      fromAddress: B,
      transactionTimeStamp: NOW - 4000,
      transactionHash: `0x${'cd'.repeat(32)}`,
    },
    {
      reference: 'r5',
      currency: 'BNB',
      network: 'BSC',
      transactionType: 'Deposit',
      transactionStatus: 'SUCCESSFUL',
      transactionTimeStamp: NOW - 5000,
    },
  ];
  beforeEach(() => sb.resetTransactions(records));
  const refs = async (q: string) => {
    const res = await list(q);
    expect(res.status, q).toBe(200);
    return res.json.data.records.map((r: { reference: string }) => r.reference);
  };

  it.each([
    ['?Currency=4', ['r1', 'r2', 'r4']],
    ['?Currency=USDT', ['r1', 'r2', 'r4']],
    ['?NetworkChain=1', ['r1', 'r4', 'r5']],
    ['?NetworkChain=TRON', ['r2']],
    ['?Status=1', ['r1', 'r2', 'r5']],
    ['?Status=2', ['r3', 'r4']],
    ['?TransactionType=1', ['r1', 'r3', 'r5']],
    ['?TransactionType=2', ['r2', 'r4']],
    [`?TransactionHash=0x${'CD'.repeat(32)}`, ['r4']],
    [`?WalletAddress=${A}`, ['r1', 'r3']],
    [`?WalletAddress=${A.toUpperCase().replace('0X', '0x')}`, ['r1', 'r3']],
    [`?StartTimeStamp=${NOW - 3000}`, ['r1', 'r2', 'r3']],
    [`?EndTimeStamp=${NOW - 3000}`, ['r3', 'r4', 'r5']],
    [`?StartTimeStamp=${NOW - 4000}&EndTimeStamp=${NOW - 2000}`, ['r2', 'r3', 'r4']],
    ['?Currency=4&NetworkChain=1&Status=2&TransactionType=2', ['r4']],
    ['?currency=4&networkchain=1', ['r1', 'r4']],
    ['?Currency=4&PageSize=2&Page=2', ['r4']],
  ])('%s', async (q, expected) => {
    expect(await refs(q)).toEqual(expected);
  });

  it('totals follow the filters', async () => {
    const res = await list('?Currency=4&PageSize=2');
    expect(res.json.data).toMatchObject({ totalRecords: 3, totalPages: 2, pageSize: 2 });
  });

  it('bad filter values -> 400 v2 envelope', async () => {
    for (const q of [
      '?Currency=DOGE',
      '?NetworkChain=SOLANA',
      '?Status=7', // 0-3 are the SDK's Pending, Successful, Failed, Initiated
      '?TransactionType=9',
      '?StartTimeStamp=yesterday',
    ]) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.json).toMatchObject({ isSuccessful: false, httpStatusCode: 400 });
    }
  });
});

it("lists only the caller's own transactions", async () => {
  sb.resetTransactions([{ reference: 'mine' }, { reference: 'theirs', merchantEmail: 'other@merchant.test' }]);
  sb.addMerchant({
    email: 'other@merchant.test',
    password: 'other-password',
    apiKey: 'sk_other_123456',
    publicKey: 'pk_other_123456',
  });
  expect((await list()).json.data.records.map((r: { reference: string }) => r.reference)).toEqual(['mine']);
  const theirs = await call(sb, 'GET', '/api/v2/analytics/transaction-record', { headers: apiKey('sk_other_123456') });
  expect(theirs.json.data.records.map((r: { reference: string }) => r.reference)).toEqual(['theirs']);
});
