// Draws the digest chart (echarts, server-side SVG) and turns it into a PNG (@resvg/resvg-js)
// in a worker thread (piscina), off the event loop that acknowledges Slack's requests. Plain
// .mjs so it loads the same under tsx, vitest and the benchmarks (like the QR worker).
//
// Input: { width, height, panelHeight, title, days: string[], panels: [{ currency, deposits:
// number[], withdrawals: number[] }] }. The numbers are only for drawing (bar heights): the
// exact sums are in the digest's text. One panel (a grid with its own axes) per currency,
// stacked vertically, each `panelHeight` pixels, under a title line.
import { Resvg } from '@resvg/resvg-js';
import { threadId } from 'node:worker_threads';
import * as echarts from 'echarts';

const FONT = 'DejaVu Sans';
const TITLE_HEIGHT = 56;
const DEPOSIT_COLOR = '#2e7d32';
const WITHDRAWAL_COLOR = '#c62828';

function option({ title, days, panels, panelHeight }) {
  const grid = [];
  const xAxis = [];
  const yAxis = [];
  const series = [];
  const titles = [{ text: title, left: 16, top: 12, textStyle: { fontSize: 20, fontFamily: FONT } }];
  panels.forEach((p, i) => {
    const top = TITLE_HEIGHT + i * panelHeight;
    titles.push({
      text: p.currency,
      left: 16,
      top: top + 6,
      textStyle: { fontSize: 15, fontFamily: FONT, fontWeight: 'bold' },
    });
    grid.push({ left: 90, right: 24, top: top + 34, height: panelHeight - 70 });
    xAxis.push({
      type: 'category',
      gridIndex: i,
      data: days,
      axisLabel: { fontSize: 12, fontFamily: FONT, interval: 0 },
    });
    yAxis.push({
      type: 'value',
      gridIndex: i,
      axisLabel: { fontSize: 12, fontFamily: FONT },
      splitLine: { lineStyle: { color: '#e0e0e0' } },
    });
    series.push(
      {
        name: 'Deposits',
        type: 'bar',
        xAxisIndex: i,
        yAxisIndex: i,
        data: p.deposits,
        itemStyle: { color: DEPOSIT_COLOR },
      },
      {
        name: 'Withdrawals',
        type: 'bar',
        xAxisIndex: i,
        yAxisIndex: i,
        data: p.withdrawals,
        itemStyle: { color: WITHDRAWAL_COLOR },
      },
    );
  });
  return {
    animation: false,
    backgroundColor: '#ffffff',
    title: titles,
    legend: {
      data: ['Deposits', 'Withdrawals'],
      right: 24,
      top: 16,
      itemGap: 24,
      textStyle: { fontSize: 14, fontFamily: FONT },
    },
    grid,
    xAxis,
    yAxis,
    series,
  };
}

export default function drawChart(input) {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: input.width, height: input.height });
  let svg;
  try {
    chart.setOption(option(input));
    svg = chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
  const png = new Resvg(svg, {
    fitTo: { mode: 'original' },
    font: { loadSystemFonts: true, defaultFontFamily: FONT },
  })
    .render()
    .asPng();
  // The thread id lets callers (and tests) see the drawing did not happen on the main thread.
  return { png, threadId };
}
