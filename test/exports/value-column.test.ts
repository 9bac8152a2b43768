/** The plain CSV's value_usd / value_usd_at (issue 24): pure, from bookings and a price snapshot. */
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { bookings } from '../../src/transactions/booking.js';
import { toCsv } from '../../src/transactions/export.js';
import { ACCOUNTING_FORMATS, accountingRows } from '../../src/transactions/formats.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { transactionRecord } from '../helpers/transaction-record.js';

const AT = new Date(Date.UTC(2026, 2, 3, 7, 5, 9));
const NOW = Date.UTC(2026, 10, 26, 1, 0, 0);
const PRICE_AT = new Date(NOW - 30_000).toISOString();
const prices: PriceSnapshot = {
  now: NOW,
  maxAgeMs: 300_000,
  quotes: {
    ETH: { price: '3000', at: PRICE_AT, source: 'test' },
    USDT: { price: '1.0001', at: PRICE_AT, source: 'test' },
  },
};

const deposit = transactionRecord({
  amount: '0.5',
  currencyName: 'ETH',
  networkName: 'ETH',
  hash: '0xd',
  timestamp: AT,
});
const ours = transactionRecord({
  type: 'withdrawal',
  amount: '5000',
  currencyName: 'USDT',
  hash: '0xw',
  reference: 'mref-1',
  timestamp: AT,
});
const request = {
  id: 'w1',
  merchantReference: 'mref-1',
  requester: 'U0ALICE',
  amount: '5000',
  currency: 'USDT',
  network: 'BSC',
  destination: '0x1111111111111111111111111111111111111111',
  clientEmail: 'ada@example.com',
  note: 'payout',
  state: 'completed',
  tier: { index: 1, max: '10000', approvals: 2, mustInclude: [] },
  approvals: [],
  createdAt: AT.toISOString(),
  expiresAt: AT.toISOString(),
  history: [],
  valuation: { kind: 'known', usd: '4999.50', price: '0.9999', at: '2026-03-03T07:00:00.000Z', source: 'test' },
  sendValuation: { kind: 'known', usd: '5000.00', price: '1', at: '2026-03-03T07:04:00.000Z', source: 'test' },
} as unknown as WithdrawalRequest;

const rowsOf = (csv: string) => {
  const rows = parseCsv(csv) as string[][];
  const h = rows[0]!;
  return rows.slice(1).map((r) => ({ value: r[h.indexOf('value_usd')], at: r[h.indexOf('value_usd_at')] }));
};

describe('the plain CSV values each record in USD, with the price time', () => {
  it("a withdrawal the app made carries the value recorded when it was sent; a deposit today's cached price, its time said", () => {
    const list = bookings([ours, deposit], { requests: [request] });
    expect(rowsOf(toCsv(list, undefined, prices))).toEqual([
      { value: '5000.00', at: '2026-03-03T07:04:00.000Z' },
      { value: '1500.00', at: PRICE_AT },
    ]);
  });

  it('at the price of that moment, never the higher price policy judged it at (a peg, a window high)', () => {
    const judged = {
      ...request,
      sendValuation: {
        kind: 'known',
        usd: '5000.00',
        price: '1',
        at: '2026-03-03T07:04:00.000Z',
        source: 'test',
        market: { usd: '4992.00', price: '0.9984' },
        judged: { basis: 'peg' },
      },
    } as WithdrawalRequest;
    const list = bookings([ours], { requests: [judged] });
    expect(rowsOf(toCsv(list, undefined, prices))).toEqual([{ value: '4992.00', at: '2026-03-03T07:04:00.000Z' }]);
  });

  it("one rounding for the books: today's price and a date's price both round half-up (not up, as a limit does)", () => {
    // 10.001 × 1.0001 = 10.0020001: a limit's value rounds it up to 10.01; the books write 10.00.
    const small = transactionRecord({ amount: '10.001', currencyName: 'USDT', hash: '0xs', timestamp: AT });
    const list = bookings([small], { requests: [] });
    expect(rowsOf(toCsv(list, undefined, prices))).toEqual([{ value: '10.00', at: PRICE_AT }]);
    const days = new Map([
      ['USDT 2026-03-03', { kind: 'known' as const, usd: '1.0001', at: '2026-03-03T00:00:00.000Z', source: 'test' }],
    ]);
    expect(rowsOf(toCsv(list, undefined, prices, days))).toEqual([{ value: '10.00', at: '2026-03-03T00:00:00.000Z' }]);
    // Half-up, not down: 10.005 × 1 is 10.01 on both paths.
    const half = transactionRecord({ amount: '10.005', currencyName: 'USDT', hash: '0xh', timestamp: AT });
    const one: PriceSnapshot = { ...prices, quotes: { USDT: { price: '1', at: PRICE_AT, source: 'test' } } };
    expect(rowsOf(toCsv(bookings([half], { requests: [] }), undefined, one))).toEqual([
      { value: '10.01', at: PRICE_AT },
    ]);
  });

  it('no fresh price: both cells empty, never 0', () => {
    const stale: PriceSnapshot = { ...prices, now: NOW + 3_600_000 };
    const list = bookings([deposit], { requests: [] });
    expect(rowsOf(toCsv(list, undefined, stale))).toEqual([{ value: '', at: '' }]);
    expect(rowsOf(toCsv(list))).toEqual([{ value: '', at: '' }]);
  });

  it("Cryptio's unit rate and value columns stay empty: it values at the movement's date, the cache only knows today's", () => {
    const list = bookings([deposit], { requests: [] });
    const rows = accountingRows('cryptio', list).rows;
    const h = ACCOUNTING_FORMATS.cryptio.header;
    for (const c of ['incomingUnitRate', 'incomingTransactionValue']) expect(rows[1]![h.indexOf(c)]).toBe('');
  });
});
