/**
 * The daily digest for 14 days × 10 currencies (40 movements per currency per day: 5,600
 * transactions), each figure beside a baseline measured in the same run:
 *
 * (a) the digest build (the pure builder: sums, largest movements, 14-day series, exact
 *     decimals) beside the floor of any digest: one decimal sum per currency of the same records;
 * (b) the chart render in the worker pool (echarts SVG + resvg PNG, 1200×3056, ten panels),
 *     as the app awaits it, beside the render of an empty chart (one panel, no bars) in the same pool;
 * (c) the event loop's delay (p99) while charts are drawn, in the worker pool beside drawing
 *     the same charts on the main thread: what an ack waiting behind the drawing would suffer.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildDigest } from '../src/digest/build.js';
import { chartInput, renderChart } from '../src/digest/chart.js';
import type { Digest } from '../src/digest/types.js';
import type { TransactionRecord } from '../src/wallet/schemas.js';
import { Dec } from '../src/money/decimal.js';
import { transactionRecord } from '../test/helpers/transaction-record.js';
import { nowMs, percentile, result, type Bench, type BenchResult } from './lib.js';

const BENCH = 'digest';
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-23T08:00:00Z');
const CURRENCIES = ['USDT', 'USDC', 'DAI', 'BTC', 'ETH', 'TRX', 'BNB', 'LTC', 'SOL', 'XRP'];
const PER_DAY = 40;
const BUILD_RUNS = 200;
const RENDER_RUNS = 30;
const LAG_RENDERS = 10;
const WARMUP = 3;

function records(): TransactionRecord[] {
  const out: TransactionRecord[] = [];
  let n = 0;
  for (const currencyName of CURRENCIES)
    for (let d = 0; d < 14; d++)
      for (let i = 0; i < PER_DAY; i++) {
        n++;
        out.push(
          transactionRecord({
            status: n % 23 === 0 ? 'failed' : 'successful',
            type: i % 3 === 0 ? 'withdrawal' : 'deposit',
            hash: `0x${n.toString(16).padStart(64, '0')}`,
            toAddress: `0x${(n * 7).toString(16).padStart(40, '0')}`,
            fromAddress: `0x${(n * 13).toString(16).padStart(40, '0')}`,
            amount: `${(n * 37) % 10_000}.${String(n % 1_000_000).padStart(6, '0')}`,
            currencyName,
            timestamp: new Date(NOW - d * DAY - i * 60_000),
          }),
        );
      }
  return out;
}

function stats(values: number[]) {
  return { median: percentile(values, 50), p99: percentile(values, 99) };
}

function timeSync(runs: number, fn: () => void): number[] {
  for (let i = 0; i < WARMUP; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = nowMs();
    fn();
    out.push(nowMs() - t);
  }
  return out;
}

async function timeAsync(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = nowMs();
    await fn();
    out.push(nowMs() - t);
  }
  return out;
}

/** The event loop's delay (ms, p99 and max) while `fn` runs, sampled every 5 ms. */
async function loopDelay(fn: () => Promise<unknown>): Promise<{ p99: number; max: number }> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  await fn();
  h.disable();
  return { p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
}

const bench: Bench = {
  name: BENCH,
  description: 'digest build and chart render for 14 days × 10 currencies',
  async run(): Promise<BenchResult[]> {
    const recs = records();
    const input = { now: NOW, days: 1, records: recs, truncated: false, withdrawals: [] };
    let digest: Digest | undefined;
    const build = stats(
      timeSync(BUILD_RUNS, () => {
        digest = buildDigest(input);
      }),
    );
    const floor = stats(
      timeSync(BUILD_RUNS, () => {
        const sums = new Map<string, Dec>();
        for (const r of recs) sums.set(r.currencyName, (sums.get(r.currencyName) ?? new Dec(0)).plus(r.amount));
      }),
    );
    const full = digest!;
    if (full.chart.panels.length !== 10) throw new Error(`expected 10 panels, got ${full.chart.panels.length}`);
    const empty = buildDigest({ ...input, records: [] });

    const render = stats(await timeAsync(RENDER_RUNS, () => renderChart(full)));
    const renderEmpty = stats(await timeAsync(RENDER_RUNS, () => renderChart(empty)));

    // The same drawing on the main thread (the worker's module, called directly).
    const workerModule: string = new URL('../src/digest/chart-worker.mjs', import.meta.url).href;
    const { default: drawOnMain } = (await import(workerModule)) as {
      default: (i: ReturnType<typeof chartInput>) => unknown;
    };
    const inWorker = await loopDelay(async () => {
      for (let i = 0; i < LAG_RENDERS; i++) await renderChart(full);
    });
    const onMain = await loopDelay(async () => {
      for (let i = 0; i < LAG_RENDERS; i++) {
        drawOnMain(chartInput(full));
        // Yield between drawings, as separate requests would.
        await new Promise((r) => setImmediate(r));
      }
    });

    const n = recs.length;
    const row = (c: string, metric: string, value: number, baseline: number) =>
      result({ bench: BENCH, case: c, metric, value, unit: 'ms', baseline, better: 'lower' });
    return [
      row(`build, ${n} transactions (baseline: one decimal sum per currency)`, 'median', build.median, floor.median),
      row(`build, ${n} transactions (baseline: one decimal sum per currency)`, 'p99', build.p99, floor.p99),
      row(
        'chart render in the worker, 10 panels 1200×3056 (baseline: empty chart)',
        'median',
        render.median,
        renderEmpty.median,
      ),
      row(
        'chart render in the worker, 10 panels 1200×3056 (baseline: empty chart)',
        'p99',
        render.p99,
        renderEmpty.p99,
      ),
      row(
        `event-loop delay while drawing ${LAG_RENDERS} charts, worker (baseline: on the main thread)`,
        'p99',
        inWorker.p99,
        onMain.p99,
      ),
      row(
        `event-loop delay while drawing ${LAG_RENDERS} charts, worker (baseline: on the main thread)`,
        'max',
        inWorker.max,
        onMain.max,
      ),
    ];
  },
};

export default bench;
