/**
 * /tx batch: the recent batch payouts, each with its reference (the first 8 characters of its id,
 * as the card, the result file and the exports show it), state and progress; /tx batch <reference>:
 * one batch, status first, its rows counted by status, the rows not sent as asked (with the
 * service's reason), and where the rows and result files are. Read from the batch service only.
 */
import type { Batch } from '../../src/batches/index.js';
import { batchRef, progressWords, rowStatus } from '../../src/batches/index.js';
import { formatAmount } from '../../src/format/amount.js';
import { outside } from '../../src/format/outside.js';
import { utcMinute } from '../../src/format/time.js';
import { context, header, packLines, section, shorten } from '../../src/slack/blocks.js';
import { batchCardKey } from '../../src/slack/batch/card.js';
import { echo } from '../../src/slack/limits.js';
import type { CommandDeps } from '../deps.js';

export const BATCH_USAGE = '`/tx batch` (the recent batch payouts) or `/tx batch <reference>` (one, row by row)';
/** Batches listed by `/tx batch`, newest first. */
const RECENT = 10;
/** Rows not sent as asked listed by name; the result file has every row. */
const LISTED = 25;

const STATE_WORDS: Record<Batch['state'], string> = {
  pending: '⏳ waiting for approvals',
  sending: '📤 being sent',
  done: '✅ finished',
  stopped: '⏹️ stopped by an admin',
  rejected: '❌ rejected (nothing sent)',
  expired: '⌛ expired unapproved (nothing sent)',
};

const totalsOf = (b: Batch) =>
  Object.entries(b.totals.perCurrency)
    .map(([c, a]) => formatAmount(a, c))
    .join(', ');

type Reply = { text: string; blocks: ReturnType<typeof section>[] };

export function batchReply(deps: CommandDeps, ref: string | undefined): Reply {
  const batches = deps.batches;
  if (!batches)
    return { text: 'Batch payouts are not available.', blocks: [section('Batch payouts are not available.')] };
  const all = batches.list().sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  if (!ref) {
    if (!all.length)
      return {
        text: 'No batch payouts yet.',
        blocks: [section('No batch payouts yet: `/withdraw batch` starts one.')],
      };
    const lines = all.slice(0, RECENT).map((b) => {
      const p = batches.progress(b.id);
      return `\`${batchRef(b)}\` · ${STATE_WORDS[b.state]} · ${b.rows.length} rows, ${outside(totalsOf(b), 200)} · ${outside(b.fileName, 80)} · ${utcMinute(Date.parse(b.createdAt))}${p && b.state !== 'pending' ? `\n      ${progressWords(p)}` : ''}`;
    });
    return {
      text: `Batch payouts: the ${Math.min(RECENT, all.length)} most recent`,
      blocks: [
        header('Batch payouts'),
        ...packLines(lines),
        context(
          `The ${Math.min(RECENT, all.length)} most recent of ${all.length}. \`/tx batch <reference>\` shows one row by row.`,
        ),
      ],
    };
  }
  const key = ref.toLowerCase();
  const found = all.filter((b) => b.id.toLowerCase().startsWith(key));
  const b = key.length >= 4 ? found[0] : undefined;
  if (!b || found.length > 1) {
    const why =
      found.length > 1
        ? `“${echo(ref)}” names more than one batch payout: give more of its reference.`
        : `No batch payout has the reference “${echo(ref)}”.`;
    return { text: why, blocks: [section(`:warning: ${why} Usage: ${BATCH_USAGE}`)] };
  }
  const p = batches.progress(b.id)!;
  const rows = batches.rows(b.id);
  const problems = rows
    .filter(
      (r) =>
        r.state !== 'completed' &&
        (b.state === 'done' || b.state === 'stopped' || r.state === 'failed' || r.state === 'unknown'),
    )
    .map((r) => {
      const reason = r.error?.message ?? r.rejection?.reason ?? (r.state === 'unknown' ? (r.unknownReason ?? '') : '');
      return `Row ${r.batch?.row ?? '?'} · ${rowStatus(r)} · ${outside(formatAmount(r.amount, r.currency), 60)} to \`${outside(shorten(r.destination), 20)}\`${reason ? ` (${outside(reason, 200)})` : ''}`;
    });
  const sent = rows.filter((r) => r.state === 'completed');
  const card = deps.outbox.message(batchCardKey(b.id));
  const where = card?.channel ? `in the thread of its card in <#${card.channel}>` : 'in the thread of its card';
  const files =
    b.state === 'done' || b.state === 'stopped'
      ? `The rows file and the result file (every row, with its references, fee and hash) are ${where}.`
      : `The rows file is ${where}; the result file follows there once every row is settled.`;
  const lines = problems.slice(0, LISTED);
  if (problems.length > LISTED) lines.push(`…and ${problems.length - LISTED} more (see the result file)`);
  return {
    text: `Batch payout ${batchRef(b)}: ${STATE_WORDS[b.state]} · ${progressWords(p)}`,
    blocks: [
      header(`Batch payout ${batchRef(b)}`),
      section(`*${STATE_WORDS[b.state]}* · ${progressWords(p)}`),
      section(
        `*${b.rows.length} rows*, ${outside(totalsOf(b), 300)} · file ${outside(b.fileName, 100)} · requested by <@${b.requester}> on ${utcMinute(Date.parse(b.createdAt))}\n` +
          `Sent: ${sent.length} of ${b.rows.length} · waiting ${p.toSend} · being sent ${p.sending} · failed ${p.failed} · outcome unknown ${p.unknown} · not sent ${p.notSent}`,
      ),
      ...(lines.length ? packLines(['*Rows not sent as asked*', ...lines]) : []),
      context(`${files} In \`/tx export\` each row is one line, with this batch's id.`),
    ],
  };
}
