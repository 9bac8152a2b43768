/** The digest in value (issue 24): totals across currencies in USD, per asset beside, unpriced assets named. Pure. */
import { describe, expect, it } from 'vitest';
import { buildDigest } from '../../src/digest/build.js';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { renderDigest } from '../../src/slack/digest-message.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { visibleText } from '../helpers/treasury-app.js';
import { transactionRecord } from '../helpers/transaction-record.js';

const NOW = Date.parse('2026-11-23T08:00:00Z');
const HOUR = 3_600_000;
const at = new Date(NOW - 60_000).toISOString();
const prices: PriceSnapshot = {
  now: NOW,
  maxAgeMs: 300_000,
  quotes: { ETH: { price: '3000', at, source: 'test' }, USDT: { price: '1', at, source: 'test' } },
};
const records = [
  transactionRecord({ amount: '100', currencyName: 'USDT', timestamp: new Date(NOW - HOUR) }),
  transactionRecord({ amount: '0.5', currencyName: 'ETH', networkName: 'ETH', timestamp: new Date(NOW - 2 * HOUR) }),
  transactionRecord({
    type: 'withdrawal',
    amount: '0.1',
    currencyName: 'ETH',
    networkName: 'ETH',
    toAddress: '0x1111111111111111111111111111111111111111',
    timestamp: new Date(NOW - 3 * HOUR),
  }),
  transactionRecord({ amount: '1000', currencyName: 'XEND', timestamp: new Date(NOW - HOUR) }),
];
const input = {
  now: NOW,
  days: 1,
  records,
  truncated: false,
  withdrawals: [] as WithdrawalRequest[],
  balances: [
    { currency: 'ETH', network: 'ETH', balance: '2' },
    { currency: 'USDT', network: 'BSC', balance: '500' },
  ],
};

describe('the digest in value', () => {
  it('totals in and out across currencies, names the unpriced asset, and values each line, balance and movement', () => {
    const d = buildDigest({ ...input, prices });
    expect(d.value).toEqual({
      deposits: { usd: '1600.00', unpriced: ['XEND'] },
      withdrawals: { usd: '300.00', unpriced: [] },
      at: NOW,
    });
    expect(d.lines.find((l) => l.currency === 'ETH')!.value).toEqual({ deposits: '1500.00', withdrawals: '300.00' });
    expect(d.lines.find((l) => l.currency === 'XEND')!.value).toBeUndefined();
    expect(d.balances!.value).toEqual({ usd: '6500.00', unpriced: [] });
    const text = visibleText(renderDigest(d) as { text: string; blocks: unknown[] });
    expect(text).toContain(
      '*All currencies*: ≈ $1,600.00 (without XEND: no price) in · ≈ $300.00 out, at the prices of 2026-11-23 08:00 UTC',
    );
    expect(text).toContain(
      '*ETH*: 1 deposit confirmed, 0.5 ETH (≈ $1,500.00) in · 1 withdrawal confirmed, 0.1 ETH (≈ $300.00) out',
    );
    expect(text).toContain('*Balances*: ≈ $6,500.00 in all');
    expect(text).toContain('2 ETH (≈ $6,000.00) on ETH');
    expect(text).toContain(':inbox_tray: In 0.5 ETH (≈ $1,500.00) on ETH');
    // The value line comes first: status first.
    expect(text.indexOf('*All currencies*')).toBeLessThan(text.indexOf('*ETH*'));
  });

  it('the chart starts with a panel of every currency in USD, naming the one without a price', () => {
    const { chart } = buildDigest({ ...input, prices });
    const [value, ...rest] = chart.panels;
    expect(value!.currency).toBe("All currencies in USD at today's price, without XEND");
    expect(value!.deposits.at(-1)).toBe('1600.00');
    expect(value!.withdrawals.at(-1)).toBe('300.00');
    expect(value!.deposits.slice(0, -1).every((d) => d === '0.00')).toBe(true);
    expect(rest.map((p) => p.currency)).toEqual(['ETH', 'USDT', 'XEND']);
    expect(buildDigest(input).chart.panels.map((p) => p.currency)).toEqual(['ETH', 'USDT', 'XEND']);
  });

  it('without prices, no value is shown and nothing counts as $0', () => {
    const d = buildDigest(input);
    expect(d.value).toBeUndefined();
    const text = visibleText(renderDigest(d) as { text: string; blocks: unknown[] });
    expect(text).not.toContain('$');
  });
});

describe('the largest movements (issue 40)', () => {
  const BTC_PRICE = '63000';
  const ranked = {
    now: NOW,
    maxAgeMs: 300_000,
    quotes: {
      ...prices.quotes,
      BTC: { price: BTC_PRICE, at, source: 'test' },
    },
  };
  const usdt = (amount: string, h: number) =>
    transactionRecord({ amount, currencyName: 'USDT', timestamp: new Date(NOW - h * HOUR) });
  const day = [
    usdt('63801', 1),
    usdt('39688', 2),
    usdt('12978', 3),
    usdt('12898', 4),
    usdt('9000', 5),
    transactionRecord({
      type: 'withdrawal',
      amount: '0.5',
      currencyName: 'BTC',
      networkName: 'BTC',
      toAddress: 'bc1qexampleexampleexampleexample00',
      timestamp: new Date(NOW - 6 * HOUR),
    }),
    transactionRecord({ amount: '2', currencyName: 'ETH', networkName: 'ETH', timestamp: new Date(NOW - 7 * HOUR) }),
  ];

  it('ranks by value across currencies: the $31.5k BTC withdrawal is in, in its place, and the heading says so', () => {
    const d = buildDigest({ ...input, records: day, prices: ranked });
    expect(d.largest.map((m) => `${m.amount} ${m.currency}`)).toEqual([
      '63801 USDT',
      '39688 USDT',
      '0.5 BTC',
      '12978 USDT',
      '12898 USDT',
    ]);
    const values = d.largest.map((m) => Number(m.value));
    expect(values).toEqual([...values].sort((a, b) => b - a));
    const text = visibleText(renderDigest(d) as { text: string; blocks: unknown[] });
    expect(text).toContain('*Largest movements* (by value across currencies, at the digest’s prices)');
    expect(text).toContain(':outbox_tray: Out 0.5 BTC (≈ $31,500.00) on BTC');
  });

  it('a currency without a price is listed after the ranked ones, named in the heading, never valued as 0', () => {
    const d = buildDigest({
      ...input,
      records: [...day, transactionRecord({ amount: '5', currencyName: 'XEND' })],
      prices: ranked,
    });
    expect(d.largest.map((m) => `${m.amount} ${m.currency}`)).toEqual([
      '63801 USDT',
      '39688 USDT',
      '0.5 BTC',
      '12978 USDT',
      '5 XEND',
    ]);
    const text = visibleText(renderDigest(d) as { text: string; blocks: unknown[] });
    expect(text).toContain('(by value across currencies, at the digest’s prices; XEND without a price, listed after)');
  });

  it('without prices, the list says it is per currency, each currency’s largest in turn', () => {
    const d = buildDigest({ ...input, records: day });
    expect(d.largest.map((m) => m.currency)).toEqual(['BTC', 'ETH', 'USDT', 'USDT', 'USDT']);
    const text = visibleText(renderDigest(d) as { text: string; blocks: unknown[] });
    expect(text).toContain(
      '*Largest movements* (per currency, each currency’s largest in turn: no prices to compare them)',
    );
  });
});
