/**
 * Records the accountant can book, end to end: a withdrawal of 5,000 USDT asked with
 * `/withdraw`, approved by two approvers on its card, sent to the sandbox (which charges a
 * 1 USDT fee on top), then `/tx export` in every format. Each file reconciles with the card
 * ("Debited 5,001.00 USDT · delivered 5,000.00 · fee 1.00") and carries the booking facts.
 * A deposit to the same client has no requester and no approvers.
 *
 * The files of the last run are written to test/exports/fixtures/ when WRITE_EXPORT_FIXTURES=1.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS } from '../../src/alerts/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { CHANNELS, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { CLIENT, HOT_WALLET, NAMES, NOTE, startWithNames, withdrawWithFee } from './withdrawal-with-fee.js';

let t: TestApp;
let request: WithdrawalRequest;
beforeAll(async () => {
  t = await startWithNames();
  request = await withdrawWithFee(t);
  await t.app.sandbox!.deposit({ to: CLIENT, amount: '250', currency: 'USDT', network: 'BSC' });
  // Its notification confirmed by the history first: the CSV's fee of it comes from that notification.
  await until(
    'the deposit alert confirmed',
    () =>
      t.app.deps.store.find(
        ALERT_COLLECTIONS.alerts,
        (a) => a.amount === '250' && a.verification.state === 'confirmed',
      )[0],
    20_000,
  );
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

async function exportFile(args: string) {
  const before = new Set(t.fake.files().map((f) => f.id));
  const { responseUrl } = await t.command('/tx', `export ${args}`, USERS.viewer);
  const replies = await t.repliesUntil(responseUrl, (r) => /Export finished|:warning:/.test(String(r.text)), 15_000);
  const file = t.fake.files().find((f) => !before.has(f.id))!;
  const text = file.content.toString('utf8');
  if (process.env.WRITE_EXPORT_FIXTURES === '1' && args.startsWith('format='))
    writeFileSync(join(import.meta.dirname, 'fixtures', `withdrawal-with-fee-${args.replace(/\W+/g, '-')}.csv`), text);
  return { last: String(replies.at(-1)!.text), file, text, rows: parseCsv(text) as string[][] };
}

const sum = (xs: string[]) => xs.reduce((a, x) => a.plus(x), new Decimal(0)).toFixed();

describe('the card and the exports tell the same story', () => {
  it('the card says what was debited, delivered and charged', async () => {
    const card = await until('the settled card', () =>
      t.fake
        .channel(CHANNELS.approvals)
        .map((m) => visibleText(m))
        .find((x) => x.includes(request.merchantReference.slice(0, 8)) && x.includes('Debited')),
    );
    expect(card).toContain('Debited 5,001.00 USDT · delivered 5,000.00 USDT · fee 1.00 USDT');
  });

  it('xero: the delivered amount and the fee on their own lines, summing to what was debited', async () => {
    const { rows, file } = await exportFile('format=xero');
    expect(file.name).toMatch(/^transactions-xero-all-\d{8}-\d{6}Z(-\d+)?\.csv$/);
    const ours = rows.filter((r) => r[4] === request.merchantReference);
    expect(ours.map((r) => r[1])).toEqual(['-5000', '-1']);
    expect(sum(ours.map((r) => r[1]!))).toBe('-5001');
    const [main, fee] = ours;
    expect(main![2]).toBe('Exchange hot wallet');
    expect(main![3]).toContain(`USDT withdrawal on BSC to ${HOT_WALLET}`);
    expect(main![3]).toContain(`client ${CLIENT}`);
    expect(main![3]).toContain(`note: ${NOTE}`);
    expect(main![3]).toContain(`requested by ${NAMES.alice}`);
    expect(main![3]).toContain(`approved by ${NAMES.carol}, ${NAMES.dave}`);
    expect(main![3]).toContain(`service reference ${request.result!.serviceReference}`);
    expect(fee![2]).toBe('Withdrawal fee');
    expect(fee![3]).toContain('USDT withdrawal fee on BSC');
    // The deposit: one line, no requester, no approvers.
    const dep = rows.find((r) => r[1] === '250')!;
    expect(dep[3]).not.toMatch(/requested by|approved by/);
  });

  it('quickbooks: the same two lines, the references in the description', async () => {
    const { rows } = await exportFile('format=quickbooks');
    const ours = rows.filter((r) => r[1]!.includes(request.merchantReference));
    expect(ours.map((r) => r[2])).toEqual(['-5000', '-1']);
    expect(ours[0]![1]).toContain(`merchant reference ${request.merchantReference}`);
    expect(ours[0]![1]).toContain(`approved by ${NAMES.carol}, ${NAMES.dave}`);
    expect(ours[1]![1]).toMatch(/^USDT withdrawal fee on BSC/);
  });

  it('cryptio: one withdraw line with its fee columns filled', async () => {
    const { rows } = await exportFile('format=cryptio');
    const h = rows[0]!;
    const wd = rows.find((r) => r[h.indexOf('orderType')] === 'withdraw')!;
    expect(wd[h.indexOf('outgoingAsset')]).toBe('USDT');
    expect(wd[h.indexOf('outgoingVolume')]).toBe('5000');
    expect(wd[h.indexOf('feeAsset')]).toBe('USDT');
    expect(wd[h.indexOf('feeVolume')]).toBe('1');
    expect(wd[h.indexOf('otherParties')]).toBe('Exchange hot wallet');
    expect(wd[h.indexOf('note')]).toContain(`merchant reference ${request.merchantReference}`);
    const dep = rows.find((r) => r[h.indexOf('orderType')] === 'deposit')!;
    expect(dep[h.indexOf('feeAsset')]).toBe('');
    expect(dep[h.indexOf('feeVolume')]).toBe('');
  });

  it('csv: fee, value date, client, note, people and both references; confirmed, never successful', async () => {
    const { rows, text } = await exportFile('format=csv');
    const h = rows[0]!;
    const col = (r: string[], name: string) => r[h.indexOf(name)];
    const wd = rows.find((r) => col(r, 'type') === 'withdrawal')!;
    expect(col(wd, 'status')).toBe('confirmed');
    expect(col(wd, 'amount')).toBe('5000');
    expect(col(wd, 'fee')).toBe('1');
    expect(col(wd, 'feeCurrency')).toBe('USDT');
    expect(col(wd, 'debited')).toBe('5001');
    expect(col(wd, 'valueDate')).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(col(wd, 'client')).toBe(CLIENT);
    expect(col(wd, 'payee')).toBe('Exchange hot wallet');
    // Outside text through the cell escaping: the note's "=7" stays inside the cell, not a formula.
    expect(col(wd, 'note')).toBe(NOTE);
    expect(col(wd, 'requester')).toBe(NAMES.alice);
    expect(col(wd, 'approvers')).toBe(`${NAMES.carol}, ${NAMES.dave}`);
    expect(col(wd, 'merchantReference')).toBe(request.merchantReference);
    expect(col(wd, 'serviceReference')).toBe(request.result!.serviceReference);
    const dep = rows.find((r) => col(r, 'type') === 'deposit')!;
    expect([col(dep, 'requester'), col(dep, 'approvers'), col(dep, 'merchantReference'), col(dep, 'debited')]).toEqual([
      '',
      '',
      '',
      '',
    ]);
    // Never a blank fee that reads as "none" (issue 40): the history gives none, but the deposit's
    // notification (confirmed by the history) carried a charge of 0, and that is its fee.
    expect([col(dep, 'fee'), col(dep, 'feeCurrency')]).toEqual(['0', 'USDT']);
    expect(col(dep, 'serviceReference')).not.toBe('');
    expect(text).not.toMatch(/successful/i);
  });

  it("client= exports the client's records, found through their wallet; the name carries the filter", async () => {
    const { rows, file } = await exportFile(`format=xero client=${CLIENT}`);
    expect(file.name).toMatch(/^transactions-xero-client-ada\.okafor@example\.com-\d{8}-\d{6}Z(-\d+)?\.csv$/);
    expect(rows.slice(1).map((r) => r[1])).toEqual(['-5000', '-1', '250']);
    const none = await exportFile('format=xero client=nobody@nowhere.test');
    expect(none.rows).toHaveLength(1);
    expect(none.last).toContain('No address of nobody@nowhere.test is known to the app yet');
  });

  it('two exports of the same filters never share a file name', async () => {
    const a = await exportFile('currency=USDT');
    const b = await exportFile('currency=USDT');
    expect(a.file.name).not.toBe(b.file.name);
    expect(a.file.name).toMatch(/^transactions-currency-USDT-\d{8}-\d{6}Z(-\d+)?\.csv$/);
  });
});
