/** A page of transactions as Slack blocks, with Previous/Next buttons that carry the filters as typed. */
import { z } from 'zod';
import { formatAmount } from '../../src/format/amount.js';
import { formatFiat } from '../../src/format/fiat.js';
import { currentValueAt, type PriceSnapshot } from '../../src/prices/index.js';
import { outside, outsideCode } from '../../src/format/outside.js';
import { statusDetail, statusEmoji } from '../../src/format/status.js';
import { utcMinute } from '../../src/format/time.js';
import { actions, context, header, link, packLines, section, shorten, LIMITS } from '../../src/slack/blocks.js';
import { describeFilters, FILTER_KEYS, type RawFilters, type TxQuery } from '../../src/transactions/filters.js';
import { FEE_FROM_NOTIFICATION, FEE_NOT_REPORTED, type FeeFact } from '../../src/transactions/fee.js';
import type { TransactionPage, TransactionRecord } from '../../src/wallet/schemas.js';

export const NAV_ACTIONS = { prev: 'tx_prev', next: 'tx_next' } as const;

const TYPE_ICON: Record<TransactionRecord['type'], string> = {
  deposit: ':inbox_tray:',
  withdrawal: ':outbox_tray:',
  unknown: ':grey_question:',
};
/**
 * The service's list says successful/failed (and pending/initiated, not final); people read the
 * app's one word set (src/format/status.ts). A name we do not know is the service's text: escaped.
 */
const statusText = (r: TransactionRecord) => {
  const s = r.status === 'unknown' ? r.statusName : r.status;
  return `${statusEmoji(s)} ${outside(statusDetail(s), 40)}`;
};

function when(r: TransactionRecord): string {
  // The service writes createdAt in UTC without a zone. UTC text rather than a Slack date token:
  // a page holds up to 100 lines, and the token's length would push it past Slack's block size.
  return utcMinute(
    r.timestamp ?? (r.createdAt ? new Date(`${r.createdAt.replace(/Z?$/, 'Z')}`) : undefined),
    'time unknown',
  );
}

/**
 * " ≈ $1,500.00" at the cached price (today's, not the day's: the cache holds current prices only,
 * and the page's context says so); nothing when the value is unknown (a hundred "value unknown"
 * would bury the lines; the amount stays the fact).
 */
function valueText(r: TransactionRecord, cur: string | undefined, prices: PriceSnapshot | undefined): string {
  if (!prices || !cur || !r.amount) return '';
  const v = currentValueAt(prices, cur, r.amount);
  return v.kind === 'known' ? ` ${formatFiat(v.usd, { approx: true })}` : '';
}

/** A withdrawal's fee as the service reported it, or that it did not (issue 40); nothing for a deposit. */
function feeText(r: TransactionRecord, feeOf: PageContext['feeOf']): string {
  if (r.type !== 'withdrawal' || !feeOf) return '';
  const f = feeOf(r);
  if (f.kind !== 'reported') return ` · ${FEE_NOT_REPORTED}`;
  const from = f.from === 'notification' ? ` (${FEE_FROM_NOTIFICATION})` : '';
  return ` · fee ${outside(formatAmount(f.fee, f.currency), 60)}${from}`;
}

function recordLine(r: TransactionRecord, prices?: PriceSnapshot, feeOf?: PageContext['feeOf']): string {
  const typeName = r.type === 'unknown' ? 'Transaction' : r.type[0]!.toUpperCase() + r.type.slice(1);
  const cur = r.currency?.name ?? r.currencyName;
  const net = r.network?.name ?? r.networkName;
  const from = r.fromAddress ? link(r.fromAddressUrl, shorten(r.fromAddress)) : '?';
  const to = r.toAddress ? link(r.toAddressUrl, shorten(r.toAddress)) : '?';
  const hash = r.hash ? ` · tx ${link(r.hashUrl, shorten(r.hash, 8, 6))}` : '';
  return `${TYPE_ICON[r.type]} *${typeName}* · *${outside(formatAmount(r.amount, cur), 80)}*${valueText(r, cur, prices)}${feeText(r, feeOf)} · ${outside(net ?? 'network unknown', 30)} · ${statusText(r)}\n      ${from} → ${to}${hash} · ${when(r)}`;
}

/** What a Previous/Next button carries: the filters as typed, and the page to show. */
export const navValueSchema = z.object({
  f: z.partialRecord(z.enum(FILTER_KEYS), z.string()),
  p: z.number().int().min(1),
});

function navValue(raw: RawFilters, page: number): string {
  return JSON.stringify({ f: { ...raw, page: undefined }, p: page });
}

export interface PageContext {
  /** The page the person asked for (a page past the end shows the last one). */
  asked: number;
  /** With client=: how many of the client's addresses were read, and whether every read finished. */
  client?: { addresses: number; complete: boolean };
  /** The price cache now: each line's value at today's price. */
  prices?: PriceSnapshot;
  /** A withdrawal's fee (src/transactions/fee.ts); absent: no fee words. */
  feeOf?: (r: TransactionRecord) => FeeFact;
}

/** "There are only 7 pages; showing page 7.": said first when the page asked is past the end. */
export function clampSentence(asked: number, totalPages: number): string | undefined {
  if (totalPages < 1 || asked <= totalPages) return undefined;
  return totalPages === 1
    ? 'There is only 1 page; showing page 1.'
    : `There are only ${totalPages} pages; showing page ${totalPages}.`;
}

export function renderPage(raw: RawFilters, q: TxQuery, page: TransactionPage, o: PageContext = { asked: q.page }) {
  const filters = describeFilters(raw);
  const blocks = [header('Transactions')];
  if (o.client && o.client.addresses === 0) {
    const text = `No address of ${outside(q.client ?? '', 120)} is known to the app yet, so none of their transactions can be found. The app knows a client's addresses from \`/address\`, from their confirmed deposits and from their withdrawals.`;
    blocks.unshift(section(text));
    return { text: 'No known address for that client.', blocks };
  }
  if (page.totalRecords === 0) {
    blocks.push(
      section(`No transactions match${filters === 'none' ? '' : ` the filters ${outsideCode(filters, 300)}`}.`),
    );
    blocks.push(
      context(
        'Try fewer filters, a wider date range (from=YYYY-MM-DD to=YYYY-MM-DD), or check the spelling of a hash or address.',
      ),
    );
    return { text: 'No transactions match.', blocks };
  }
  const clamp = clampSentence(o.asked, page.totalPages);
  // Status first: the page shown is not the one asked for.
  if (clamp) blocks.unshift(section(clamp));
  const partial = o.client && !o.client.complete ? ' · :warning: some addresses could not be read in full' : '';
  const valued =
    o.prices && page.records.some((r) => valueText(r, r.currency?.name ?? r.currencyName, o.prices))
      ? " · values (≈ $) at today's price, not the day's"
      : '';
  blocks.push(
    context(
      `Page ${page.currentPage} of ${page.totalPages} · ${page.totalRecords} record${page.totalRecords === 1 ? '' : 's'} · filters: ${outsideCode(filters, 300)}${partial}${valued}`,
    ),
  );
  if (page.records.length === 0) {
    blocks.push(section('This page holds no records: the list changed while you were reading it. Run `/tx` again.'));
  } else {
    // Sentence, header, context and buttons take four blocks; the rest is packed so even 100 records fit.
    blocks.push(...packLines(page.records.map((r) => recordLine(r, o.prices, o.feeOf))).slice(0, LIMITS.blocks - 4));
  }
  const nav = [];
  const current = Math.min(page.currentPage, Math.max(page.totalPages, 1));
  if (current > 1) nav.push({ text: '← Previous', actionId: NAV_ACTIONS.prev, value: navValue(raw, current - 1) });
  if (current < page.totalPages)
    nav.push({ text: 'Next →', actionId: NAV_ACTIONS.next, value: navValue(raw, current + 1) });
  if (nav.length) blocks.push(actions('tx_nav', nav));
  const summary = `Transactions: page ${page.currentPage} of ${page.totalPages}, ${page.totalRecords} records`;
  return { text: clamp ? `${clamp} ${summary}` : summary, blocks };
}
