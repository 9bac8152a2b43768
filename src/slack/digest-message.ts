/**
 * The digest in words, for Slack: status first (the period's money in and out per currency),
 * then balances, approvals, the largest movements. One amount format (src/format/amount.ts),
 * times in UTC, no internal ids. The digest itself (src/digest/) is data; this is its message,
 * registered as the outbox renderer of the scheduled digest and used by `/treasury digest`.
 */
import { DIGEST_COLLECTIONS, type Digest, type DigestMovement, type DigestValueTotal } from '../digest/types.js';
import type { DigestBatches } from '../digest/batches.js';
import { formatFiat } from '../format/fiat.js';
import { periodWords } from '../digest/message.js';
import { DIGEST_RENDERER } from '../digest/service.js';
import { formatAmount } from '../format/amount.js';
import { outside } from '../format/outside.js';
import { utcMinute } from '../format/time.js';
import type { Outbox } from '../outbox/index.js';
import type { Rendered } from '../outbox/types.js';
import type { Store } from '../store/index.js';
import { context, header, packLines, section } from './blocks.js';

// Currency names come from the service (one the app does not know is shown as sent): escaped
// like any outside text, so a name holding < > & cannot form a link or a mention.
const money = (amount: string, currency: string) => outside(formatAmount(amount, currency));
/** " (≈ $1,500.00)" beside an amount, "" without a value. */
const worth = (usd: string | undefined) => (usd === undefined ? '' : ` (${formatFiat(usd, { approx: true })})`);
/** "≈ $1,600.00", naming the currencies without a price (left out of the total, never counted as 0). */
function totalWords(t: DigestValueTotal): string {
  const left = t.unpriced.length ? ` (without ${t.unpriced.map((c) => outside(c, 30)).join(', ')}: no price)` : '';
  return `${formatFiat(t.usd, { approx: true })}${left}`;
}
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function signed(change: string, currency: string): string {
  if (/^-/.test(change)) return `−${money(change.slice(1), currency)}`;
  return /^0(\.0*)?$/.test(change) ? 'no change' : `+${money(change, currency)}`;
}

/**
 * Where a withdrawal went and whose money it was: "to Exchange hot wallet (0x1111…1111), from
 * client wallet ada.okafor@…". The payee is the allowlist's label for the destination; the
 * client is the source wallet, never the payee. A digest stored before `to` existed keeps its
 * old words.
 */
function outflowWords(m: DigestMovement): string {
  if (!m.to) return `to ${outside(m.party)}`;
  const where = m.to.payee ? `${outside(m.to.payee, 80)} (${outside(m.to.address)})` : outside(m.to.address);
  return `to ${where}${m.to.client ? `, from client wallet ${outside(m.to.client)}` : ''}`;
}

/** How the largest movements were ranked, in the heading: a list is read as ranked, so it says by what. */
function largestHeading(d: Digest): string {
  if (d.largestBy?.by !== 'value')
    return '*Largest movements* (per currency, each currency’s largest in turn: no prices to compare them)';
  const apart = d.largestBy.unpriced;
  return `*Largest movements* (by value across currencies, at the digest’s prices${apart.length ? `; ${apart.map((c) => outside(c)).join(', ')} without a price, listed after` : ''})`;
}

export function renderDigest(d: Digest): Rendered {
  const period = periodWords(d.period.days);
  const lines = d.lines.map(
    (l) =>
      `*${outside(l.currency)}*: ${count(l.deposits.count, 'deposit')} confirmed, ${money(l.deposits.total, l.currency)}${worth(l.value?.deposits)} in · ${count(l.withdrawals.count, 'withdrawal')} confirmed, ${money(l.withdrawals.total, l.currency)}${worth(l.value?.withdrawals)} out${l.failed ? ` · :x: ${l.failed} failed` : ''}${l.unrecognised ? ` · :warning: ${l.unrecognised} with a status the app does not recognise: check them in the wallet` : ''}`,
  );
  const balances = d.balances
    ? d.balances.lines.length
      ? [
          `*Balances*${d.balances.value ? `: ${totalWords(d.balances.value)} in all` : ''} (change since ${d.balances.since === undefined ? 'the previous digest: none yet' : utcMinute(d.balances.since)})`,
          ...d.balances.lines.map(
            (b) =>
              `${money(b.balance, b.currency)}${worth(b.value)} on ${outside(b.network)} · ${b.change === null ? '—' : signed(b.change, b.currency)}`,
          ),
        ]
      : ['*Balances*: no origin account holds a balance.']
    : ['*Balances*: unavailable right now.'];
  const largest = d.largest.length
    ? [
        largestHeading(d),
        ...d.largest.map(
          (m) =>
            `${m.type === 'deposit' ? ':inbox_tray: In' : ':outbox_tray: Out'} ${money(m.amount, m.currency)}${worth(m.value)} on ${outside(m.network)} · ${m.type === 'deposit' ? `from ${outside(m.party)}` : outflowWords(m)}${m.at === undefined ? '' : ` · ${utcMinute(m.at)}`}`,
        ),
      ]
    : [];
  const a = d.approvals;
  // Status first: the period's money in and out across every currency, in value.
  const value =
    d.value && d.lines.length
      ? [
          `*All currencies*: ${totalWords(d.value.deposits)} in · ${totalWords(d.value.withdrawals)} out, at the prices of ${utcMinute(d.value.at)}`,
        ]
      : [];
  return {
    text: `Treasury digest (${period})`,
    blocks: [
      header(`Treasury digest: ${period}`),
      ...packLines(lines.length ? [...value, ...lines] : [`_No transactions in the ${period}._`]),
      ...packLines(balances),
      section(
        `*Waiting for approval*: ${a.pending} · *Expired unapproved in the period*: ${a.expired}${a.unknown ? ` · :warning: *${count(a.unknown, 'withdrawal')} with an unknown outcome* (see their cards)` : ''}`,
      ),
      ...(d.batches ? [section(batchWords(d.batches))] : []),
      ...packLines(largest),
      context(
        `From ${count(d.records, 'transaction')} in the wallet's history${d.truncated ? ` (${d.incomplete ? outside(d.incomplete, 300) : 'incomplete'}: \`/tx export\` has everything)` : ''}, ${utcMinute(d.period.from)} to ${utcMinute(d.period.to)}.`,
      ),
    ],
  };
}

/** "Batch payouts: 2 requested · 1 waiting for approval · … · 530 rows sent (12,000.00 USDT) · 2 rows failed". */
function batchWords(b: DigestBatches): string {
  const parts = [`${b.requested} requested`];
  if (b.waiting) parts.push(`${b.waiting} waiting for approval`);
  if (b.finished) parts.push(`${b.finished} finished`);
  if (b.stopped) parts.push(`:octagonal_sign: ${b.stopped} stopped by an admin`);
  if (b.notApproved) parts.push(`${b.notApproved} rejected or expired (nothing sent)`);
  const totals = Object.entries(b.sent.totals).map(([c, a]) => money(a, c));
  parts.push(`${count(b.sent.rows, 'row')} sent${totals.length ? ` (${totals.join(', ')})` : ''}`);
  if (b.failed) parts.push(`:x: ${count(b.failed, 'row')} failed (see the batch's result file)`);
  return `*Batch payouts*: ${parts.join(' · ')}`;
}

/** The scheduled digest's message, drawn from its record when the outbox sends it. */
export function registerDigestRenderer(outbox: Pick<Outbox, 'registerRenderer'>, store: Pick<Store, 'get'>): void {
  outbox.registerRenderer(DIGEST_RENDERER, (ref) => {
    const rec = store.get(DIGEST_COLLECTIONS.scheduled, ref);
    return rec ? renderDigest(rec.digest) : null;
  });
}
