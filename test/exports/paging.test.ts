/**
 * `/tx export` reads every page by the service's own totals (src/wallet/pager.ts), against a
 * sandbox that clamps PageSize to 50; and an export whose read cannot finish says so in its
 * message, its file's name, title and comment, instead of looking complete.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ sandbox: { maxPageSize: 50 } });
});
afterAll(async () => {
  await t?.stop();
});

const AT = Date.UTC(2026, 10, 20, 12);

function seed(n: number): void {
  t.app.sandbox!.resetTransactions(
    Array.from({ length: n }, (_, i) => ({
      amount: `${i}.5`,
      reference: `ref-${i}`,
      transactionHash: `0x${i.toString(16).padStart(64, '0')}`,
      transactionTimeStamp: AT - i * 60_000,
    })),
  );
}

async function exportAll(args = '') {
  const before = new Set(t.fake.files().map((f) => f.id));
  const { res, responseUrl } = await t.command('/tx', `export ${args}`.trim(), USERS.viewer);
  expect(res.status).toBe(200);
  const replies = await t.repliesUntil(responseUrl, (r) => /Export finished|:warning:/.test(String(r.text)), 25_000);
  const file = t.fake.files().find((f) => !before.has(f.id));
  return {
    last: String(replies.at(-1)!.text),
    file,
    rows: file ? (parseCsv(file.content.toString('utf8')) as string[][]) : [],
  };
}

const listRequests = () =>
  t.app.sandbox!.stats.requests.filter((r) => r.path.toLowerCase().startsWith('/api/v2/analytics/transaction-record'));

describe('/tx export pages by the service totals', () => {
  it('140 records against a sandbox capped at 50: all 140, in three pages of the size the service used', async () => {
    seed(140);
    const asked = listRequests().length;
    const { last, file, rows } = await exportAll();
    expect(rows).toHaveLength(141); // header + 140
    const ref = rows[0]!.indexOf('serviceReference');
    expect(new Set(rows.slice(1).map((r) => r[ref])).size).toBe(140);
    expect(rows[1]![ref]).toBe('ref-0');
    expect(rows.at(-1)![ref]).toBe('ref-139');
    expect(last).toMatch(
      /^:white_check_mark: Export finished: 140 records in `transactions-all-\d{8}-\d{6}Z(-\d+)?\.csv`/,
    );
    expect(file!.name).not.toContain('incomplete');
    // The export's own reads (the app's background jobs read the list too, with filters).
    const pages = listRequests()
      .slice(asked)
      .filter((r) => /^\/api\/v2\/analytics\/transaction-record\?Page=\d+&PageSize=\d+$/.test(r.path));
    expect(pages).toHaveLength(3);
    expect(pages.map((r) => new URL(r.path, 'http://x').searchParams.get('Page'))).toEqual(['1', '2', '3']);
    for (const r of pages) expect(new URL(r.path, 'http://x').searchParams.get('PageSize')).toBe('50');
  });

  it('a sandbox that fails on page 3: the file holds what was read, and everything says it is incomplete', async () => {
    seed(140);
    // Page 3 fails every time (the read is retried, then given up).
    t.app.sandbox!.injectFault('/api/v2/analytics/transaction-record?Page=3', { kind: 'status', status: 503 }, 10);
    try {
      const { last, file, rows } = await exportAll();
      expect(rows).toHaveLength(101);
      expect(last).toContain(':warning: Export finished, *incomplete*: 100 records');
      expect(last).toContain('incomplete: 100 of 140 records (page 3 could not be read');
      expect(file!.name).toMatch(/^transactions-all-\d{8}-\d{6}Z-incomplete(-\d+)?\.csv$/);
      expect(file!.title).toContain('incomplete: 100 of 140 records');
      expect(file!.initial_comment).toContain('This file is incomplete: 100 of 140 records');
      expect(file!.initial_comment).toContain('run the export again');
    } finally {
      t.app.sandbox!.clearFaults();
    }
  });

  it('an accounting export that cannot finish says so too', async () => {
    seed(140);
    t.app.sandbox!.injectFault('/api/v2/analytics/transaction-record?Page=2', { kind: 'status', status: 503 }, 10);
    try {
      const { last, file } = await exportAll('format=xero');
      expect(last).toContain('incomplete: 50 of 140 records');
      expect(file!.name).toMatch(/^transactions-xero-all-\d{8}-\d{6}Z-incomplete(-\d+)?\.csv$/);
    } finally {
      t.app.sandbox!.clearFaults();
    }
  });
});

describe('the digest reads by the same pager', () => {
  it('a list that fails on page 2 makes a digest that says it is incomplete, and how much it read', async () => {
    const now = Date.now();
    t.app.sandbox!.resetTransactions(
      Array.from({ length: 70 }, (_, i) => ({
        amount: '1',
        reference: `digest-${i}`,
        transactionHash: `0x${(i + 5000).toString(16).padStart(64, '0')}`,
        transactionTimeStamp: now - (i + 1) * 60_000,
      })),
    );
    t.app.sandbox!.injectFault('/api/v2/analytics/transaction-record?Page=2', { kind: 'status', status: 503 }, 10);
    try {
      const { res, responseUrl } = await t.command('/treasury', 'digest 1', USERS.viewer);
      expect(res.status).toBe(200);
      const [reply] = await t.repliesUntil(responseUrl, (r) => /Treasury digest/.test(JSON.stringify(r)), 25_000);
      const text = JSON.stringify(reply);
      expect(text).toContain('incomplete: 50 of 70 records (page 2 could not be read');
      expect(text).toContain('has everything');
    } finally {
      t.app.sandbox!.clearFaults();
    }
  });
});

describe('WALLET_PAGE_SIZE reaches every multi-page read of the running app', () => {
  it('an app started with WALLET_PAGE_SIZE=30 asks for pages of 30', async () => {
    const small = await startTestApp({ sandbox: { maxPageSize: 50 }, env: { WALLET_PAGE_SIZE: '30' } });
    try {
      small.app.sandbox!.resetTransactions(
        Array.from({ length: 70 }, (_, i) => ({
          amount: '1',
          reference: `small-${i}`,
          transactionHash: `0x${(i + 1000).toString(16).padStart(64, '0')}`,
          transactionTimeStamp: AT - i * 60_000,
        })),
      );
      const asked = small.app.sandbox!.stats.requests.length;
      const { res, responseUrl } = await small.command('/tx', 'export', USERS.viewer);
      expect(res.status).toBe(200);
      await small.repliesUntil(responseUrl, (r) => /Export finished/.test(String(r.text)), 25_000);
      const pages = small.app
        .sandbox!.stats.requests.slice(asked)
        .filter((r) => /^\/api\/v2\/analytics\/transaction-record\?Page=\d+&PageSize=\d+$/.test(r.path));
      expect(pages.map((r) => new URL(r.path, 'http://x').searchParams.get('PageSize'))).toEqual(['30', '30', '30']);
    } finally {
      await small.stop();
    }
  });
});
