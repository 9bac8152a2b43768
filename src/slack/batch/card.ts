/**
 * The one card of a batch payout: status first, then what the approvers judge (rows, totals per
 * currency, total value, estimated fees, new destinations, the allowlist, screening (the list, the
 * provider, a stale list, each look-alike row), the five largest rows),
 * then the progress of the sends, and the buttons of the moment (Approve / Reject while it waits,
 * Stop for admins while it is sent). Outside text (file name, addresses, labels) is escaped.
 */
import type { StepUpNeed } from '../../stepup/threshold.js';
import type { KnownBlock } from '@slack/types';
import type { Batch, BatchScreening, Progress } from '../../batches/index.js';
import { shortAddress } from '../../screening/lookalike.js';
import { ageWords, listName } from '../../screening/words.js';
import { batchRef, progressWords } from '../../batches/index.js';
import { formatFiat } from '../../format/fiat.js';
import { outside, outsideCode } from '../../format/outside.js';
import { Dec } from '../../money/decimal.js';
import { formatAmount } from '../../withdrawals/index.js';
import { actions, context, fields, header, section, shorten } from '../blocks.js';

export const BATCH_ACTIONS = {
  approve: 'batch_approve',
  reject: 'batch_reject',
  stop: 'batch_stop',
} as const;

export const BATCH_CARD_RENDERER = 'batch.card';
export const BATCH_RESULT_RENDERER = 'batch.result';
export const batchCardKey = (id: string) => `batch-card:${id}`;

/** Fee estimates per currency and network (the last fee charged), for the rows' count. */
export type FeeOf = (currency: string, network: string) => string | undefined;

function statusLine(b: Batch, p: Progress): string {
  const need = Math.max(0, b.tier.approvals - b.approvals.length);
  switch (b.state) {
    case 'pending':
      return `⏳ Waiting for ${need} more approval${need === 1 ? '' : 's'} (${b.tier.approvals} needed on the batch's total)`;
    case 'sending':
      return `📤 Sending · ${progressWords(p)}`;
    case 'done':
      return p.failed || p.unknown || p.notSent ? `⚠️ Finished · ${progressWords(p)}` : `✅ Sent · ${progressWords(p)}`;
    case 'stopped':
      return `⏹️ Stopped by <@${b.stopped?.by ?? ''}> · ${progressWords(p)}`;
    case 'rejected':
      // Rejected by the app itself (a destination sanctioned since the request): no person to name.
      return b.rejection?.user === 'system'
        ? `❌ Rejected: a destination is on the sanctions list since the request (${outside(b.rejection.reason)}) · nothing was sent`
        : `❌ Rejected by <@${b.rejection?.user ?? ''}>: ${outside(b.rejection?.reason ?? '')} · nothing was sent`;
    case 'expired':
      return '⌛ Expired before its approvals · nothing was sent';
    default: {
      const unhandled: never = b.state;
      return String(unhandled);
    }
  }
}

export function batchCard(
  b: Batch,
  p: Progress,
  feeOf: FeeOf = () => undefined,
  /** What confirms an approval now (it may have risen since the request); absent: as stored. */
  need?: StepUpNeed,
): { text: string; blocks: KnownBlock[] } {
  const totals = Object.entries(b.totals.perCurrency).map(([c, a]) => formatAmount(a, c));
  const value = b.totals.value.kind === 'known' ? formatFiat(b.totals.value.usd) : 'unknown (no fresh price)';
  const fees = Object.entries(
    b.rows.reduce<Record<string, { n: number; currency: string; network: string }>>((acc, r) => {
      const k = `${r.currency}/${r.network}`;
      acc[k] = { n: (acc[k]?.n ?? 0) + 1, currency: r.currency, network: r.network };
      return acc;
    }, {}),
  ).map(([, { n, currency, network }]) => {
    const fee = feeOf(currency, network);
    return fee
      ? `≈ ${formatAmount(new Dec(fee).times(n).toFixed(), currency)}`
      : `${currency} on ${network}: not known yet`;
  });
  const largest = [...b.rows]
    .sort((x, y) =>
      x.valuation.kind === 'known' && y.valuation.kind === 'known'
        ? new Dec(y.valuation.usd).cmp(x.valuation.usd)
        : new Dec(y.amount).cmp(x.amount),
    )
    .slice(0, 5)
    .map(
      (r) =>
        `Row ${r.row} · ${formatAmount(r.amount, r.currency)} on ${r.network} to ${outsideCode(shorten(r.address))}${r.label ? ` (${outside(r.label, 80)})` : ''}`,
    );
  const status = statusLine(b, p);
  const blocks: KnownBlock[] = [
    header(`Batch payout · ${b.rows.length} rows`),
    section(status),
    fields([
      ['File', outside(b.fileName, 100)],
      ['Requested by', `<@${b.requester}>`],
      ['Totals', totals.join('\n')],
      ['Total value', value],
      ['Estimated fees', fees.join('\n')],
      ['New destinations', `${b.newDestinations} of ${b.rows.length} rows`],
      ['Allowlist', b.unlisted ? `${b.unlisted} rows to addresses not on it` : 'every row listed, or not used'],
      ['Screening', screeningWords(b.screening)],
      ['Approvals', `${b.approvals.map((a) => `<@${a.user}>`).join(', ') || 'none yet'} (${b.tier.approvals} needed)`],
    ]),
    section(`*Five largest rows*\n${largest.join('\n')}`),
  ];
  const flagged = lookalikeLines(b.screening);
  if (flagged) blocks.push(section(flagged));
  if (b.repeatOf)
    blocks.push(
      context(
        `⚠️ The same file (sha256) was submitted on ${b.repeatOf.at.slice(0, 10)}; the requester confirmed it is paid again.`,
      ),
    );
  const confirm = need ?? b.stepUpNeed ?? (b.stepUp ? 'code' : 'none');
  if (confirm !== 'none')
    blocks.push(
      context(
        confirm === 'passkey'
          ? '🔐 Each approval needs a passkey confirmed for this file and its total.'
          : '🔐 Each approval needs an authenticator code (or a passkey) confirmed for this file.',
      ),
    );
  blocks.push(
    context(
      `Batch \`${batchRef(b)}\` (\`/tx batch ${batchRef(b)}\` shows its rows) · file sha256 \`${b.sha256.slice(0, 16)}…\` · every row is sent once, with its own reference`,
    ),
  );
  if (b.state === 'pending')
    blocks.push(
      actions('batch_decide', [
        { text: 'Approve', actionId: BATCH_ACTIONS.approve, value: b.id, style: 'primary' },
        { text: 'Reject', actionId: BATCH_ACTIONS.reject, value: b.id, style: 'danger' },
      ]),
    );
  if (b.state === 'sending')
    blocks.push(
      actions('batch_stop', [
        { text: 'Stop the rest (admins)', actionId: BATCH_ACTIONS.stop, value: b.id, style: 'danger' },
      ]),
    );
  return { text: `Batch payout of ${b.rows.length} rows (${totals.join(', ')}): ${status}`, blocks };
}

/** The screening's field: the list judged with, the provider's word, a stale list, the look-alikes' count. */
function screeningWords(s: BatchScreening | undefined): string {
  if (!s) return 'not screened (no sanctions list)';
  const out = [s.list ? `No row on ${listName(s.list)}` : 'No row on the sanctions list'];
  if (s.provider === 'clean') out.push('none flagged by the screening service');
  if (s.provider === 'down') out.push('⚠️ the screening service could not be reached: the list alone decided');
  if (s.stale) out.push(`⚠️ the list is ${ageWords(s.stale.ageMs)} old: it could not be refreshed`);
  if (s.lookalikes.length) {
    const extra = Math.max(...s.lookalikes.map((l) => l.extraApprovals));
    out.push(
      `⚠️ ${s.lookalikes.length} row${s.lookalikes.length === 1 ? '' : 's'} look${s.lookalikes.length === 1 ? 's' : ''} like a known address${extra ? ` (+${extra} approval${extra === 1 ? '' : 's'}, once)` : ''}`,
    );
  }
  return out.join('\n');
}

/** Each look-alike row (the first ten), as a single withdrawal's card words it. */
function lookalikeLines(s: BatchScreening | undefined): string | undefined {
  if (!s?.lookalikes.length) return undefined;
  const lines = s.lookalikes
    .slice(0, 10)
    .map(
      (l) =>
        `Row ${l.row} · looks like *${outside(l.label, 80)}* (${outside(shortAddress(l.address), 20)}), but is a different address`,
    );
  if (s.lookalikes.length > 10) lines.push(`…and ${s.lookalikes.length - 10} more (see the rows file)`);
  return `*⚠️ Look-alike destinations*\n${lines.join('\n')}`;
}

/** The thread reply once the batch is finished or stopped: the counts, and each row not sent as asked. */
export function batchResultText(
  b: Batch,
  p: Progress,
  problems: ReadonlyArray<{ row: number; status: string; reason: string }>,
): string {
  const lines = problems
    .slice(0, 30)
    .map((x) => `• Row ${x.row}: ${x.status}${x.reason ? ` (${outside(x.reason, 200)})` : ''}`);
  if (problems.length > 30) lines.push(`…and ${problems.length - 30} more (see the result file)`);
  const head = b.state === 'stopped' ? `⏹️ Stopped: ${progressWords(p)}.` : `Finished: ${progressWords(p)}.`;
  return [head, ...lines].join('\n').slice(0, 3900);
}
