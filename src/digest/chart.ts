/**
 * The digest chart as a PNG, drawn in a worker pool (piscina, like the QR codes of /address):
 * echarts draws SVG server-side and resvg turns it into a PNG, ~100-300 ms of CPU that must
 * never run on the event loop that acknowledges Slack's requests. Fixed geometry
 * (message.ts): 1200 px wide, a 56 px title band and one 300 px panel per currency
 * (at most 10), so 1200×356 for one currency and 1200×3056 for ten.
 */
import { lazyWorkerPool } from '../util/worker-pool.js';
import { CHART_PANEL_HEIGHT, CHART_WIDTH, chartHeight, chartTitle } from './message.js';
import type { Digest } from './types.js';

// No thread until the first chart: the digest runs once a day.
const chartPool = lazyWorkerPool(new URL('./chart-worker.mjs', import.meta.url), { minThreads: 0 });

export interface ChartImage {
  png: Buffer;
  width: number;
  height: number;
  /** The worker thread that drew it (never 0, the main thread). */
  threadId: number;
}

/** The worker's input: bar heights as numbers (drawing only; the text keeps the exact sums). */
export function chartInput(d: Digest) {
  const panels = d.chart.panels.map((p) => ({
    currency: p.currency,
    deposits: p.deposits.map(Number),
    withdrawals: p.withdrawals.map(Number),
  }));
  return {
    width: CHART_WIDTH,
    height: chartHeight(panels.length),
    panelHeight: CHART_PANEL_HEIGHT,
    title: chartTitle(d),
    days: d.chart.days.map((day) => day.slice(5)),
    // An empty chart still shows its axes: one empty panel.
    panels: panels.length ? panels : [{ currency: 'No movements', deposits: [], withdrawals: [] }],
  };
}

export async function renderChart(d: Digest): Promise<ChartImage> {
  const input = chartInput(d);
  const out: { png: Uint8Array; threadId: number } = await chartPool().run(input);
  // Structured clone hands back a Uint8Array; the upload wants a Buffer (a view, no copy).
  const png = Buffer.from(out.png.buffer, out.png.byteOffset, out.png.byteLength);
  return { png, width: input.width, height: input.height, threadId: out.threadId };
}
