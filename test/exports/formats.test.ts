/** The accounting formats' pure core: exact amounts, dates per tool, what is left out. */
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { bookings } from '../../src/transactions/booking.js';
import { csvFile } from '../../src/transactions/csv.js';
import {
  accountingNotes,
  accountingRows,
  ddmmyyyy,
  exactAmount,
  mmddyyyy,
  utcSeconds,
} from '../../src/transactions/formats.js';
import type { TransactionRecord } from '../../src/wallet/schemas.js';
import { transactionRecord } from '../helpers/transaction-record.js';

const book = (records: TransactionRecord[]) => bookings(records, { requests: [] });

function rec(p: Partial<TransactionRecord>): TransactionRecord {
  return transactionRecord({ currencyName: 'ETH', networkName: 'ETH', ...p });
}

describe('accounting formats', () => {
  it('write amounts exactly, in plain notation, never through a float', () => {
    expect(exactAmount('1e-18')).toBe('0.000000000000000001');
    expect(exactAmount('12345678901234567890.123456789012345678')).toBe('12345678901234567890.123456789012345678');
    expect(exactAmount('0.1')).toBe('0.1');
    expect(exactAmount('abc')).toBeUndefined();
    const { rows } = accountingRows(
      'quickbooks',
      book([
        rec({
          type: 'withdrawal',
          amount: '9007199254740993.000000000000000001',
          timestamp: new Date(Date.UTC(2026, 0, 2)),
        }),
      ]),
    );
    expect(rows[1]![2]).toBe('-9007199254740993.000000000000000001');
  });

  it('date each tool its own way, in UTC', () => {
    const d = new Date(Date.UTC(2026, 1, 3, 23, 59, 58));
    expect(ddmmyyyy(d)).toBe('03/02/2026');
    expect(mmddyyyy(d)).toBe('02/03/2026');
    expect(utcSeconds(d)).toBe('2026-02-03 23:59:58');
  });

  it('use createdAt (UTC) when the service gave no timestamp, and leave out what did not move money or has no date', () => {
    const out = accountingRows(
      'xero',
      book([
        rec({ createdAt: '2026-03-04T01:02:03' }),
        rec({ status: 'failed', timestamp: new Date() }),
        rec({ type: 'unknown', timestamp: new Date() }),
        rec({ amount: 'NaN?', timestamp: new Date() }),
        rec({}),
      ]),
    );
    expect(out.rows.slice(1).map((r) => r[0])).toEqual(['04/03/2026']);
    expect(out).toMatchObject({ exported: 1, left: 4, currencies: ['ETH'] });
  });
});

describe('csvFile', () => {
  it('quotes text that a spreadsheet would run as a formula, and leaves amounts that are plain numbers alone', () => {
    const rows = parseCsv(
      csvFile(
        [
          ['Amount', 'Note'],
          ['-0.1', '-0.1'],
          ['=1+1', '=1+1'],
          ['+5', '@x'],
          ['1e-7', '\r=2'],
          ['-1.5E+3', 'plain'],
        ],
        ['Amount'],
      ),
    ) as string[][];
    expect(rows).toEqual([
      ['Amount', 'Note'],
      ['-0.1', "'-0.1"],
      ["'=1+1", "'=1+1"],
      ['+5', "'@x"],
      // Guarded, and the carriage return is a space: a cell is one line of text.
      ['1e-7', "' =2"],
      ['-1.5E+3', 'plain'],
    ]);
  });
});

describe('what an accounting file cannot hold', () => {
  it('cryptio leaves out a record without a hash and counts it apart; the other tools keep it', () => {
    const records = book([
      rec({ hash: '0xa', timestamp: new Date() }),
      rec({ hash: null, timestamp: new Date() }),
      rec({ hash: ' ', timestamp: new Date() }),
    ]);
    expect(accountingRows('cryptio', records)).toMatchObject({ exported: 1, left: 0, noHash: 2 });
    expect(accountingRows('xero', records)).toMatchObject({ exported: 3, left: 0, noHash: 0 });
    expect(accountingNotes('cryptio', { left: 0, noHash: 2, currencies: ['ETH'] })).toBe(
      '\n2 records were left out: without a transaction hash, which Cryptio needs on every line.',
    );
  });

  it('says to split a Xero or QuickBooks file of more than 1,000 lines, and only then', () => {
    const at = (exported: number, f: 'xero' | 'quickbooks' | 'cryptio') =>
      accountingNotes(f, { left: 0, currencies: ['ETH'], exported });
    expect(at(1000, 'xero')).toBe('');
    expect(at(1001, 'xero')).toBe(
      '\nXero imports at most 1,000 lines at a time: split this file (for example with `from=` and `to=`).',
    );
    expect(at(1001, 'quickbooks')).toContain('QuickBooks Online imports at most 1,000 lines at a time');
    expect(at(5000, 'cryptio')).toBe('');
  });
});
