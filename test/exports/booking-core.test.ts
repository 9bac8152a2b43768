/** The booking join and the accounting lines, pure: fee lines, other-currency fees, deposits, escaping. */
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { allowlistPayee, bookings } from '../../src/transactions/booking.js';
import { csvFile } from '../../src/transactions/csv.js';
import { toCsv } from '../../src/transactions/export.js';
import { ACCOUNTING_FORMATS, accountingRows } from '../../src/transactions/formats.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { transactionRecord } from '../helpers/transaction-record.js';

const AT = new Date(Date.UTC(2026, 10, 3, 7, 5, 9));

function request(p: Partial<WithdrawalRequest> = {}): WithdrawalRequest {
  return {
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
    approvals: [
      { user: 'U0CAROL', at: AT.toISOString(), satisfies: [] },
      { user: 'U0DAVE', at: AT.toISOString(), satisfies: [] },
    ],
    createdAt: AT.toISOString(),
    expiresAt: AT.toISOString(),
    allowlist: { status: 'listed', label: 'Exchange hot wallet', neverPaidBefore: false },
    result: {
      source: 'wallet',
      serviceReference: 'SWT-1',
      amount: '5000',
      amountRequested: '5000',
      fee: '1',
      feeCurrency: 'USDT',
      transactionHash: '0xabc',
    },
    history: [],
    ...p,
  };
}

const withdrawal = transactionRecord({
  type: 'withdrawal',
  amount: '5000',
  currencyName: 'USDT',
  networkName: 'BSC',
  hash: '0xabc',
  toAddress: '0x1111111111111111111111111111111111111111',
  reference: 'mref-1',
  timestamp: AT,
});
const names = (id: string) => ({ U0ALICE: 'Alice', U0CAROL: 'Carol', U0DAVE: 'Dave' })[id] ?? id;
const file = (format: 'xero' | 'quickbooks' | 'cryptio', rows: string[][]) =>
  parseCsv(csvFile(rows, ACCOUNTING_FORMATS[format].amounts)) as string[][];

describe('bookings', () => {
  it('joins a withdrawal with its request by merchant reference; a deposit has no requester or approvers', () => {
    const payeeOf = allowlistPayee([
      { address: '0x1111111111111111111111111111111111111111', network: 'BSC', label: 'Exchange hot wallet' },
    ]);
    const [wd, dep] = bookings([withdrawal, transactionRecord({ reference: 'DEP-1', timestamp: AT, hash: '0xdep' })], {
      requests: [request()],
      payeeOf,
      clientOf: () => 'bea@example.com',
    });
    expect(wd).toMatchObject({
      status: 'confirmed',
      valueDate: '2026-11-03',
      fee: '1',
      feeCurrency: 'USDT',
      debited: '5001',
      client: 'ada@example.com',
      payee: 'Exchange hot wallet',
      requester: 'U0ALICE',
      approvers: ['U0CAROL', 'U0DAVE'],
      merchantReference: 'mref-1',
      serviceReference: 'SWT-1',
    });
    expect(dep).toMatchObject({
      requester: '',
      approvers: [],
      fee: '',
      merchantReference: '',
      serviceReference: 'DEP-1',
      client: 'bea@example.com',
    });
  });

  it('xero and quickbooks: a fee in the same currency is its own line; the lines sum to what was debited', () => {
    const list = bookings([withdrawal], { requests: [request()] });
    const xero = file('xero', accountingRows('xero', list, names).rows);
    expect(xero.slice(1).map((r) => [r[1], r[2], r[4]])).toEqual([
      ['-5000', '0x1111111111111111111111111111111111111111', 'mref-1'],
      ['-1', 'Withdrawal fee', 'mref-1'],
    ]);
    expect(xero[1]![3]).toContain('requested by Alice · approved by Carol, Dave · service reference SWT-1');
    const qb = file('quickbooks', accountingRows('quickbooks', list, names).rows);
    expect(qb.slice(1).map((r) => r[2])).toEqual(['-5000', '-1']);
  });

  it('a fee paid in another currency (gas) is no line of this account, but fills Cryptio fee columns', () => {
    const gas = request({
      result: { ...request().result!, fee: '0.0005', feeCurrency: 'BNB' },
    });
    const list = bookings([withdrawal], { requests: [gas] });
    expect(accountingRows('xero', list).rows).toHaveLength(2);
    const cryptio = file('cryptio', accountingRows('cryptio', list).rows);
    const h = cryptio[0]!;
    expect([cryptio[1]![h.indexOf('feeAsset')], cryptio[1]![h.indexOf('feeVolume')]]).toEqual(['BNB', '0.0005']);
  });

  it('every outside string goes through the cell escaping, formulas included', () => {
    const hostile = request({ note: '=HYPERLINK("http://evil.test")', clientEmail: '@SUM(1)' });
    const list = bookings([withdrawal], { requests: [hostile] });
    const rows = parseCsv(toCsv(list, names)) as string[][];
    const h = rows[0]!;
    expect(rows[1]![h.indexOf('note')]).toBe(`'=HYPERLINK("http://evil.test")`);
    expect(rows[1]![h.indexOf('client')]).toBe(`'@SUM(1)`);
    expect(rows[1]![h.indexOf('fee')]).toBe('1');
    const qb = file('quickbooks', accountingRows('quickbooks', list, names).rows);
    expect(qb[1]![1]).toContain('client @SUM(1) · note: =HYPERLINK');
  });
});

describe('the fee column never leaves a blank without saying why (issue 40)', () => {
  const cells = (list: ReturnType<typeof bookings>) => {
    const rows = parseCsv(toCsv(list, names)) as string[][];
    const h = rows[0]!;
    return rows.slice(1).map((r) => [r[h.indexOf('fee')], r[h.indexOf('feeCurrency')], r[h.indexOf('debited')]]);
  };

  it('the app’s own send: the fee the service answered, and what was debited', () => {
    expect(cells(bookings([withdrawal], { requests: [request()] }))).toEqual([['1', 'USDT', '5001']]);
  });

  it('a fee of zero is written 0, the debited amount what was delivered, and no fee line is booked', () => {
    const free = request({ result: { ...request().result!, fee: '0' } });
    const list = bookings([withdrawal], { requests: [free] });
    expect(cells(list)).toEqual([['0', 'USDT', '5000']]);
    expect(accountingRows('xero', list).rows).toHaveLength(2);
  });

  it('a withdrawal known only from the service’s history, or answered without a fee: not reported, said so', () => {
    const unanswered = request({ result: { ...request().result!, fee: undefined } as never });
    expect(cells(bookings([withdrawal], { requests: [] }))).toEqual([
      ['fee not reported by the service', '', 'fee not reported by the service'],
    ]);
    expect(cells(bookings([withdrawal], { requests: [unanswered] }))).toEqual([
      ['fee not reported by the service', '', 'fee not reported by the service'],
    ]);
  });
});
