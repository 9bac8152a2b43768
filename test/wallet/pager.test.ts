/**
 * The one pager (src/wallet/pager.ts) against the sandbox over HTTP: it follows the page size
 * the service says it used and its totals, and a read that cannot finish says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incompleteNote, readAllTransactions } from '../../src/wallet/pager.js';
import { clientFor, loginBody, requestsTo, sendJson, startSandbox, stubServer, type Sandbox } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: false, maxPageSize: 50 });
});
afterAll(async () => {
  await sb?.close();
});

const AT = Date.UTC(2026, 5, 1);
const seed = (n: number) =>
  sb.resetTransactions(
    Array.from({ length: n }, (_, i) => ({
      amount: `${i}.25`,
      reference: `r${i}`,
      transactionTimeStamp: AT - i * 1000,
    })),
  );
const sizesAsked = (from: number) =>
  requestsTo(sb, '/api/v2/analytics/transaction-record')
    .slice(from)
    .map((r) => new URL(r.path, 'http://x').searchParams.get('PageSize'));

describe('readAllTransactions against the sandbox', () => {
  it('a client configured for 100 against a sandbox capped at 50 still reads all 140, then asks for 50', async () => {
    seed(140);
    const { client } = clientFor(sb, { pageSize: 100 });
    const before = requestsTo(sb, '/api/v2/analytics/transaction-record').length;
    const read = await readAllTransactions(client, {});
    expect(read.complete).toBe(true);
    expect(read.records.map((r) => r.reference)).toEqual(Array.from({ length: 140 }, (_, i) => `r${i}`));
    expect(read.pageSize).toBe(50);
    expect(read.pagesRead).toBe(3);
    expect(sizesAsked(before)).toEqual(['100', '50', '50']);
    expect(incompleteNote(read)).toBeUndefined();
    client.close?.();
  });

  it('the default page size is 50; an exact multiple ends on the service totals, without an extra empty page', async () => {
    seed(100);
    const { client } = clientFor(sb);
    expect(client.pageSize).toBe(50);
    const before = requestsTo(sb, '/api/v2/analytics/transaction-record').length;
    const read = await readAllTransactions(client, {});
    expect(read).toMatchObject({ complete: true, totalRecords: 100, pagesRead: 2 });
    expect(sizesAsked(before)).toEqual(['50', '50']);
    client.close?.();
  });

  it('no records: one page, complete', async () => {
    seed(0);
    const { client } = clientFor(sb);
    const read = await readAllTransactions(client, {});
    expect(read).toMatchObject({ complete: true, totalRecords: 0, pagesRead: 1, records: [] });
    client.close?.();
  });

  it('a page that keeps failing ends the read as incomplete, saying how much is missing', async () => {
    seed(1450);
    const { client } = clientFor(sb, { readRetries: 1 });
    sb.injectFault('/api/v2/analytics/transaction-record?Page=25', { kind: 'status', status: 503 }, 5);
    try {
      const read = await readAllTransactions(client, {});
      expect(read).toMatchObject({ complete: false, stoppedBy: 'error', failedPage: 25, totalRecords: 1450 });
      expect(read.records).toHaveLength(1200);
      expect(incompleteNote(read)).toMatch(/^incomplete: 1,200 of 1,450 records \(page 25 could not be read: /);
    } finally {
      sb.clearFaults();
      client.close?.();
    }
  });

  it('a record limit ends the read as incomplete too', async () => {
    seed(140);
    const { client } = clientFor(sb);
    const read = await readAllTransactions(client, {}, { maxRecords: 60 });
    expect(read).toMatchObject({ complete: false, stoppedBy: 'limit', totalRecords: 140 });
    expect(read.records).toHaveLength(100);
    expect(incompleteNote(read)).toBe('incomplete: 100 of 140 records (the read stops at this many)');
    client.close?.();
  });

  it('a failure of the first page is thrown: nothing was read', async () => {
    seed(10);
    const { client } = clientFor(sb, { readRetries: 0 });
    sb.injectFault('/api/v2/analytics/transaction-record', { kind: 'status', status: 503 }, 1);
    await expect(readAllTransactions(client, {})).rejects.toThrow(/Transaction listing failed/);
    client.close?.();
  });
});

describe('readAllTransactions against services the sandbox does not imitate', () => {
  it('a service that ignores Page (always page 1) is stopped, and the read says it is incomplete', async () => {
    const records = Array.from({ length: 3 }, (_, i) => ({
      transactionStatus: 'SUCCESSFUL',
      transactionType: 'Deposit',
      amount: i + 1,
      currency: 'USDT',
      network: 'BSC',
      reference: `x${i}`,
    }));
    const stub = await stubServer((req, res) => {
      if (req.url.startsWith('/api/v2/auth/login')) return sendJson(res, 200, loginBody());
      sendJson(res, 200, {
        data: { records, pageSize: 3, currentPage: 1, totalPages: 3, totalRecords: 9 },
        isSuccessful: true,
        message: null,
        httpStatusCode: 200,
      });
    });
    const { client } = clientFor(stub);
    try {
      const read = await readAllTransactions(client, {});
      expect(read).toMatchObject({ complete: false, stoppedBy: 'inconsistent', pagesRead: 2 });
      expect(read.records).toHaveLength(3);
      expect(incompleteNote(read)).toBe(
        'incomplete: 3 of 9 records (the wallet service stopped sending records before its own total)',
      );
    } finally {
      client.close?.();
      await stub.close();
    }
  });

  it('a list that moves while it is read (a new record on top) gives each record once', async () => {
    const rec = (i: number) => ({
      transactionStatus: 'SUCCESSFUL',
      transactionType: 'Deposit',
      amount: `${i}`,
      currency: 'USDT',
      network: 'BSC',
      reference: `m${i}`,
    });
    // Page 1 is read before a new record arrives; page 2 after, so r2 shows again on top of it.
    const stub = await stubServer((req, res) => {
      if (req.url.startsWith('/api/v2/auth/login')) return sendJson(res, 200, loginBody());
      const page = Number(new URL(req.url, 'http://x').searchParams.get('Page'));
      const list = page === 1 ? [rec(1), rec(2)] : [rec(2), rec(3)];
      sendJson(res, 200, {
        data: { records: list, pageSize: 2, currentPage: page, totalPages: 2, totalRecords: page === 1 ? 3 : 4 },
        isSuccessful: true,
        message: null,
        httpStatusCode: 200,
      });
    });
    const { client } = clientFor(stub);
    try {
      const read = await readAllTransactions(client, {});
      expect(read.records.map((r) => r.reference)).toEqual(['m1', 'm2', 'm3']);
    } finally {
      client.close?.();
      await stub.close();
    }
  });
});
