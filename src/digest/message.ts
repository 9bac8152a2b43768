/**
 * The digest in words, for Slack: status first (the period's money in and out per currency),
 * then balances, approvals, the largest movements. One amount format (src/format/amount.ts),
 * times in UTC, no internal ids. Also the chart's alt text and the worker's input.
 */
import { formatAmount } from '../format/amount.js';
import { utcMinute } from '../format/time.js';
import { context, header, packLines, section } from '../slack/blocks.js';
import { outside, outsidePlain } from '../format/outside.js';
import type { Rendered } from '../outbox/types.js';
import type { Digest } from './types.js';

// Currency names come from the service (one the app does not know is shown as sent): escaped
// like any outside text, so a name holding < > & cannot form a link or a mention.
const money = (amount: string, currency: string) => outside(formatAmount(amount, currency));
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function periodWords(days: number): string {
  return days === 1 ? 'last 24 hours' : `last ${days} days`;
}

function signed(change: string, currency: string): string {
  if (/^-/.test(change)) return `−${money(change.slice(1), currency)}`;
  return /^0(\.0*)?$/.test(change) ? 'no change' : `+${money(change, currency)}`;
}

export function renderDigest(d: Digest): Rendered {
  const period = periodWords(d.period.days);
  const lines = d.lines.map(
    (l) =>
      `*${outside(l.currency)}*: ${count(l.deposits.count, 'deposit')} confirmed, ${money(l.deposits.total, l.currency)} in · ${count(l.withdrawals.count, 'withdrawal')} confirmed, ${money(l.withdrawals.total, l.currency)} out${l.failed ? ` · :x: ${l.failed} failed` : ''}${l.unrecognised ? ` · :warning: ${l.unrecognised} with a status the app does not recognise: check them in the wallet` : ''}`,
  );
  const balances = d.balances
    ? d.balances.lines.length
      ? [
          `*Balances* (change since ${d.balances.since === undefined ? 'the previous digest: none yet' : utcMinute(d.balances.since)})`,
          ...d.balances.lines.map(
            (b) =>
              `${money(b.balance, b.currency)} on ${outside(b.network)} · ${b.change === null ? '—' : signed(b.change, b.currency)}`,
          ),
        ]
      : ['*Balances*: no origin account holds a balance.']
    : ['*Balances*: unavailable right now.'];
  const largest = d.largest.length
    ? [
        '*Largest movements*',
        ...d.largest.map(
          (m) =>
            `${m.type === 'deposit' ? ':inbox_tray: In' : ':outbox_tray: Out'} ${money(m.amount, m.currency)} on ${outside(m.network)} · ${m.type === 'deposit' ? 'from' : 'to'} ${outside(m.party)}${m.at === undefined ? '' : ` · ${utcMinute(m.at)}`}`,
        ),
      ]
    : [];
  const a = d.approvals;
  return {
    text: `Treasury digest (${period})`,
    blocks: [
      header(`Treasury digest: ${period}`),
      ...packLines(lines.length ? lines : [`_No transactions in the ${period}._`]),
      ...packLines(balances),
      section(
        `*Waiting for approval*: ${a.pending} · *Expired unapproved in the period*: ${a.expired}${a.unknown ? ` · :warning: *${count(a.unknown, 'withdrawal')} with an unknown outcome* (see their cards)` : ''}`,
      ),
      ...packLines(largest),
      context(
        `From ${count(d.records, 'transaction')} in the wallet's history${d.truncated ? ' (the oldest were left out: `/tx export` has everything)' : ''}, ${utcMinute(d.period.from)} to ${utcMinute(d.period.to)}.`,
      ),
    ],
  };
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
  const cur = d.chart.panels.map((p) => outsidePlain(p.currency, 30));
  const what = cur.length ? `one bar chart per currency (${cur.join(', ')})` : 'an empty chart: no movements';
  // Slack caps alt text at 1,000 characters.
  return `${chartTitle(d)}: ${what}, deposits in green against withdrawals in red for each of the ${d.chart.days.length} days.`.slice(
    0,
    1000,
  );
}
