/**
 * Shared pieces of the benchmarks: a result row, percentiles, a timer, temp dirs, and the
 * table printer. A figure means little alone, so each one can carry a baseline measured
 * in the same run on the same machine, and the ratio between the two.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface BenchResult {
  bench: string;
  case: string;
  metric: string;
  value: number;
  unit: string;
  /** The same metric for the simplest thing that could do the job (e.g. append + fsync). */
  baseline?: number;
  /** value / baseline. */
  ratio?: number;
  /** Which direction is good, so the ratio can be read at a glance. */
  better?: 'higher' | 'lower';
  /**
   * When the figure was measured in rounds (each with its own baseline): `value`, `baseline`
   * and `ratio` are the medians over the rounds, `ratioWorst` the worst round's ratio (the
   * highest if lower is better), and `rounds` each round's figures. One noisy round (a GC, a
   * neighbour's burst on a shared machine) then moves the worst, not the headline.
   */
  ratioWorst?: number;
  rounds?: Array<{ value: number; baseline: number; ratio: number }>;
}

export interface Bench {
  name: string;
  description: string;
  run(): Promise<BenchResult[]>;
}

/** Nearest-rank percentile, p in [0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Milliseconds, monotonic, sub-microsecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const start = nowMs();
  const result = await fn();
  return { ms: nowMs() - start, result };
}

/**
 * Runs `total` operations with at most `inFlight` at once; returns each one's latency and
 * the wall time of the whole run.
 */
export async function runConcurrent(
  total: number,
  inFlight: number,
  op: (i: number) => Promise<unknown>,
): Promise<{ latencies: number[]; ms: number }> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t = nowMs();
      await op(i);
      latencies.push(nowMs() - t);
    }
  };
  const start = nowMs();
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, worker));
  return { latencies, ms: nowMs() - start };
}

export function result(r: Omit<BenchResult, 'ratio'>): BenchResult {
  const out: BenchResult = { ...r };
  if (r.baseline !== undefined && r.baseline !== 0) out.ratio = r.value / r.baseline;
  return out;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** How many rounds a figure with a baseline is measured in, unless BENCH_ROUNDS says. */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5) || 5);

/**
 * A figure measured in rounds, each beside its own baseline (same run, same round): the
 * medians of value, baseline and ratio, and the worst round's ratio.
 */
export function roundsResult(
  r: Omit<BenchResult, 'value' | 'baseline' | 'ratio' | 'ratioWorst' | 'rounds'> & {
    rounds: ReadonlyArray<{ value: number; baseline: number }>;
  },
): BenchResult {
  const rounds = r.rounds.map((x) => ({ ...x, ratio: x.baseline === 0 ? NaN : x.value / x.baseline }));
  const ratios = rounds.map((x) => x.ratio).filter((x) => !Number.isNaN(x));
  const { rounds: _, ...rest } = r;
  return {
    ...rest,
    value: median(rounds.map((x) => x.value)),
    baseline: median(rounds.map((x) => x.baseline)),
    ...(ratios.length ? { ratio: median(ratios) } : {}),
    ...(ratios.length ? { ratioWorst: r.better === 'higher' ? Math.min(...ratios) : Math.max(...ratios) } : {}),
    rounds,
  };
}

export async function makeTempDir(prefix: string): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
}

export async function removeDir(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
}

function fmt(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return '';
  if (Number.isInteger(n)) return String(n);
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

export function formatTable(rows: readonly BenchResult[]): string {
  const header = ['bench', 'case', 'metric', 'value', 'unit', 'baseline', 'ratio'];
  const body = rows.map((r) => [
    r.bench,
    r.case,
    r.metric,
    fmt(r.value),
    r.unit,
    fmt(r.baseline),
    r.ratio === undefined
      ? ''
      : r.ratioWorst === undefined
        ? `${r.ratio.toFixed(2)}x${r.better ? ` (${r.better} is better)` : ''}`
        : `${r.ratio.toFixed(2)}x median of ${r.rounds?.length} rounds, worst ${r.ratioWorst.toFixed(2)}x${r.better ? ` (${r.better} is better)` : ''}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const numeric = new Set([3, 5]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
