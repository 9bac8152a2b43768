/** The pure digest builder and its words: balances and their change, approvals, largest movements. */
import { describe, expect, it } from 'vitest';
import { buildDigest } from '../../src/digest/build.js';
import { renderDigest } from '../../src/slack/digest-message.js';
import type { TransactionRecord } from '../../src/wallet/schemas.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { visibleText } from '../helpers/treasury-app.js';
import { transactionRecord } from '../helpers/transaction-record.js';

const NOW = Date.parse('2026-11-23T08:00:00Z');
const HOUR = 3_600_000;

function request(p: Partial<WithdrawalRequest>): WithdrawalRequest {
  return {
    id: 'wr_1',
    merchantReference: 'ref-1',
    requester: 'U1',
    amount: '10',
    currency: 'USDT',
    network: 'BSC',
    destination: '0x1111111111111111111111111111111111111111',
    clientEmail: 'c@x.test',
    note: '',
    state: 'pending',
    tier: { index: 0, max: null, approvals: 1, mustInclude: [] },
    approvals: [],
    createdAt: new Date(NOW - 5 * HOUR).toISOString(),
    expiresAt: new Date(NOW - 3 * HOUR).toISOString(),
    allowlist: { status: 'off', neverPaidBefore: false },
    history: [],
    ...p,
  };
}

const base = { now: NOW, days: 1, records: [], truncated: false, withdrawals: [] as WithdrawalRequest[] };

describe('buildDigest', () => {
  it('shows each balance and its exact change since the previous snapshot, "—" where there is none', () => {
    const d = buildDigest({
      ...base,
      balances: [
        { currency: 'USDT', network: 'BSC', balance: '1000.10' },
        { currency: 'USDT', network: 'TRON', balance: '5' },
        { currency: 'BTC', network: 'BTC', balance: '0.3' },
      ],
      previous: {
        day: '2026-11-22',
        at: NOW - 24 * HOUR,
        lines: [
          { currency: 'USDT', network: 'BSC', balance: '1250.2' },
          { currency: 'BTC', network: 'BTC', balance: '0.1' },
        ],
      },
    });
    expect(d.balances!.lines).toEqual([
      { currency: 'BTC', network: 'BTC', balance: '0.3', change: '0.2' },
      { currency: 'USDT', network: 'BSC', balance: '1000.10', change: '-250.1' },
      { currency: 'USDT', network: 'TRON', balance: '5', change: null },
    ]);
    const text = visibleText(renderDigest(d));
    expect(text).toContain('*Balances* (change since 2026-11-22 08:00 UTC)');
    expect(text).toContain('0.3 BTC on BTC · +0.2 BTC');
    expect(text).toContain('1,000.10 USDT on BSC · −250.10 USDT');
    expect(text).toContain('5.00 USDT on TRON · —');
  });

  it('says when there is no earlier snapshot, and when balances are unavailable', () => {
    const first = buildDigest({ ...base, balances: [{ currency: 'ETH', network: 'ETH', balance: '2' }] });
    expect(visibleText(renderDigest(first))).toContain(
      '*Balances* (change since the previous digest: none yet)\n2 ETH on ETH · —',
    );
    expect(visibleText(renderDigest(buildDigest(base)))).toContain('*Balances*: unavailable right now.');
  });

  it('counts approvals pending, expired within the period only, and unknown outcomes', () => {
    const d = buildDigest({
      ...base,
      withdrawals: [
        request({ id: 'a', state: 'pending' }),
        request({
          id: 'b',
          state: 'expired',
          history: [{ at: new Date(NOW - 2 * HOUR).toISOString(), state: 'expired', by: 'system' }],
        }),
        request({
          id: 'c',
          state: 'expired',
          history: [{ at: new Date(NOW - 30 * HOUR).toISOString(), state: 'expired', by: 'system' }],
        }),
        request({ id: 'd', state: 'unknown' }),
        request({ id: 'e', state: 'completed' }),
      ],
    });
    expect(d.approvals).toEqual({ pending: 1, expired: 1, unknown: 1 });
    expect(visibleText(renderDigest(d))).toContain(
      '*Waiting for approval*: 1 · *Expired unapproved in the period*: 1 · :warning: *1 withdrawal with an unknown outcome*',
    );
  });

  it('counts only confirmed transactions as confirmed; a status the app does not recognise is shown apart', () => {
    const d = buildDigest({
      ...base,
      records: [
        tx({ amount: '100' }),
        tx({ amount: '5000', status: 'unknown' }),
        tx({ amount: '7000', status: 'unknown', type: 'withdrawal' }),
        tx({ amount: '3', status: 'failed' }),
      ],
    });
    expect(d.lines).toEqual([
      {
        currency: 'USDT',
        deposits: { count: 1, total: '100' },
        withdrawals: { count: 0, total: '0' },
        failed: 1,
        unrecognised: 2,
      },
    ]);
    // Neither the largest movements nor the chart show money that may not have moved.
    expect(d.largest.map((m) => m.amount)).toEqual(['100']);
    expect(d.chart.panels).toHaveLength(1);
    expect(d.chart.panels[0]!.deposits.at(-1)).toBe('100');
    expect(d.chart.panels[0]!.withdrawals.at(-1)).toBe('0');
    expect(visibleText(renderDigest(d))).toContain(
      '*USDT*: 1 deposit confirmed, 100.00 USDT in · 0 withdrawals confirmed, 0.00 USDT out · :x: 1 failed · :warning: 2 with a status the app does not recognise: check them in the wallet',
    );
  });

  it('escapes a currency name the app does not know, wherever the digest shows it', () => {
    const name = '<!channel> & <https://evil.test|USDT>';
    const d = buildDigest({
      ...base,
      records: [tx({ currencyName: name, amount: '12', toAddress: '0xabc', type: 'withdrawal' })],
      balances: [{ currency: name, network: 'BSC', balance: '1' }],
    });
    const text = visibleText(renderDigest(d));
    const escaped = '&lt;!channel&gt; &amp; &lt;https://evil.test|USDT&gt;';
    expect(text).toContain(
      `*${escaped}*: 0 deposits confirmed, 0 ${escaped} in · 1 withdrawal confirmed, 12 ${escaped} out`,
    );
    expect(text).toContain(`1 ${escaped} on BSC`);
    expect(text).toContain(`:outbox_tray: Out 12 ${escaped} on BSC`);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://evil.test');
  });
});

function tx(p: Partial<TransactionRecord>): TransactionRecord {
  return transactionRecord({ timestamp: new Date(NOW - HOUR), ...p });
}
