/**
 * The digest's words that are not Slack's: the period's name, the chart's geometry, title and
 * alt text (plain text, no mrkdwn). The message itself is Slack's: src/slack/digest-message.ts.
 */
import { outsidePlain } from '../format/outside.js';
import type { Digest } from './types.js';

export function periodWords(days: number): string {
  return days === 1 ? 'last 24 hours' : `last ${days} days`;
}

/** Chart geometry, fixed: 1200 px wide; a 56 px title band, then one 300 px panel per currency. */
export const CHART_WIDTH = 1200;
export const CHART_TITLE_HEIGHT = 56;
export const CHART_PANEL_HEIGHT = 300;

export function chartHeight(panels: number): number {
  return CHART_TITLE_HEIGHT + Math.max(1, panels) * CHART_PANEL_HEIGHT;
}

export function chartTitle(d: Digest): string {
  const days = d.chart.days;
  return `Deposits and withdrawals per day (UTC), ${days[0]} to ${days[days.length - 1]}`;
}

export function chartAltText(d: Digest): string {
  const cur = d.chart.panels.filter((p) => !p.value).map((p) => outsidePlain(p.currency, 30));
  const value = d.chart.panels.find((p) => p.value);
  const per = cur.length ? `one bar chart per currency (${cur.join(', ')})` : 'an empty chart: no movements';
  const what = value ? `a bar chart of ${outsidePlain(value.currency, 120).replace(/^All/, 'all')}, then ${per}` : per;
  // Slack caps alt text at 1,000 characters.
  return `${chartTitle(d)}: ${what}, deposits in green against withdrawals in red for each of the ${d.chart.days.length} days.`.slice(
    0,
    1000,
  );
}
