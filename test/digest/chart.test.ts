/**
 * The digest chart: a valid PNG of the stated dimensions (1200 wide, 56 + 300 per currency
 * high) and a sensible size, drawn in a worker thread; and the pure builder's chart series.
 */
import { isMainThread, threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { buildDigest } from '../../src/digest/build.js';
import { renderChart } from '../../src/digest/chart.js';
import { chartAltText, chartHeight, CHART_WIDTH } from '../../src/digest/message.js';
import type { TransactionRecord } from '../../src/wallet/schemas.js';
import { pngInfo } from './png.js';
import { transactionRecord } from '../helpers/transaction-record.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-23T08:00:00Z');

function record(p: Partial<TransactionRecord> & { currencyName: string; at: number }): TransactionRecord {
  const { at, ...rest } = p;
  return transactionRecord({ timestamp: new Date(at), ...rest });
}

function fourteenDays(currencies: string[]): TransactionRecord[] {
  const out: TransactionRecord[] = [];
  for (const c of currencies)
    for (let d = 0; d < 14; d++) {
      out.push(record({ currencyName: c, at: NOW - d * DAY - 3_600_000, amount: `${100 + d}.25` }));
      out.push(record({ currencyName: c, at: NOW - d * DAY - 7_200_000, amount: `${50 + d}.5`, type: 'withdrawal' }));
    }
  return out;
}

const digestOf = (records: TransactionRecord[]) =>
  buildDigest({ now: NOW, days: 1, records, truncated: false, withdrawals: [] });

describe('the digest chart', () => {
  it('is a PNG of the stated dimensions and a sensible size, drawn off the main thread', async () => {
    const digest = digestOf(fourteenDays(['USDT', 'BTC']));
    const chart = await renderChart(digest);
    const info = pngInfo(chart.png);
    expect(info.valid).toBe(true);
    expect(info).toEqual({ valid: true, width: CHART_WIDTH, height: chartHeight(2) });
    expect([chart.width, chart.height]).toEqual([1200, 56 + 2 * 300]);
    expect(chart.png.length).toBeGreaterThan(5 * 1024);
    expect(chart.png.length).toBeLessThan(2 * 1024 * 1024);
    expect(isMainThread).toBe(true);
    expect(chart.threadId).not.toBe(threadId);
    expect(chart.threadId).toBeGreaterThan(0);
  });

  it('with nothing to draw is still a valid image (one empty panel)', async () => {
    const chart = await renderChart(digestOf([]));
    expect(pngInfo(chart.png)).toEqual({ valid: true, width: 1200, height: 356 });
    expect(chart.png.length).toBeGreaterThan(5 * 1024);
  });

  it('draws at most ten currencies, one panel each', async () => {
    const many = 'USDT USDC DAI BTC ETH TRX BNB LTC SOL XRP DOGE'.split(' ');
    const digest = digestOf(fourteenDays(many));
    expect(digest.chart.panels).toHaveLength(10);
    const chart = await renderChart(digest);
    expect(pngInfo(chart.png)).toEqual({ valid: true, width: 1200, height: 56 + 10 * 300 });
    expect(chart.png.length).toBeLessThan(2 * 1024 * 1024);
    expect(chartAltText(digest)).toMatch(
      /^Deposits and withdrawals per day \(UTC\), 2026-11-10 to 2026-11-23: one bar chart per currency/,
    );
  });

  it('sums each UTC day exactly, deposits against withdrawals, failures left out', () => {
    const records = [
      record({ currencyName: 'ETH', at: NOW - 1000, amount: '0.000000000000000001' }),
      record({ currencyName: 'ETH', at: NOW - 2000, amount: '0.1' }),
      record({ currencyName: 'ETH', at: NOW - 3000, amount: '7', status: 'failed' }),
      record({ currencyName: 'ETH', at: NOW - 2 * DAY, amount: '2.5', type: 'withdrawal' }),
      record({ currencyName: 'ETH', at: NOW - 20 * DAY, amount: '9' }),
    ];
    const { chart } = digestOf(records);
    expect(chart.days).toHaveLength(14);
    expect(chart.days[13]).toBe('2026-11-23');
    expect(chart.panels).toEqual([
      {
        currency: 'ETH',
        deposits: [...Array(13).fill('0'), '0.100000000000000001'],
        withdrawals: [...Array(11).fill('0'), '2.5', '0', '0'],
      },
    ]);
  });
});
