/**
 * The digest's batch payouts line: the batches requested, waiting, finished, stopped and not
 * approved in the period, and their rows sent (with totals per currency) and failed. A batch's
 * rows are withdrawal requests of their own (`batch` names it), so the rows' outcomes are read
 * from them, by when each was recorded. Pure.
 */
import type { Batch } from '../batches/types.js';
import { Dec } from '../money/decimal.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';

export interface DigestBatches {
  /** Batches submitted in the period. */
  requested: number;
  /** Batches waiting for their approvals now. */
  waiting: number;
  /** Batches whose every row was settled in the period. */
  finished: number;
  /** Batches an admin stopped in the period. */
  stopped: number;
  /** Batches rejected, or expired unapproved, in the period (nothing of them was sent). */
  notApproved: number;
  /** Rows sent in the period: their count, and totals per currency (exact decimal text). */
  sent: { rows: number; totals: Record<string, string> };
  /** Rows that failed in the period. */
  failed: number;
}

const within = (at: string | undefined, from: number, to: number) => {
  const t = at === undefined ? Number.NaN : Date.parse(at);
  return t >= from && t <= to;
};

/** When the row reached `state` (its history's last such mark). */
const reached = (w: WithdrawalRequest, state: WithdrawalRequest['state']) =>
  [...w.history].reverse().find((h) => h.state === state)?.at;

/** Undefined when no batch was requested, waiting or moved in the period: the digest then says nothing of batches. */
export function digestBatches(
  batches: readonly Batch[],
  withdrawals: readonly WithdrawalRequest[],
  from: number,
  to: number,
): DigestBatches | undefined {
  const ended = (b: Batch, state: Batch['state']) => b.state === state && within(b.finishedAt, from, to);
  const out: DigestBatches = {
    requested: batches.filter((b) => within(b.createdAt, from, to)).length,
    waiting: batches.filter((b) => b.state === 'pending').length,
    finished: batches.filter((b) => ended(b, 'done')).length,
    stopped: batches.filter((b) => b.state === 'stopped' && within(b.stopped?.at, from, to)).length,
    notApproved: batches.filter(
      (b) => (b.state === 'rejected' && within(b.rejection?.at, from, to)) || ended(b, 'expired'),
    ).length,
    sent: { rows: 0, totals: {} },
    failed: 0,
  };
  const totals: Record<string, Dec> = {};
  for (const w of withdrawals) {
    if (!w.batch) continue;
    if (w.state === 'completed' && within(reached(w, 'completed'), from, to)) {
      out.sent.rows++;
      totals[w.currency] = (totals[w.currency] ?? new Dec(0)).plus(w.amount);
    } else if (w.state === 'failed' && within(reached(w, 'failed'), from, to)) out.failed++;
  }
  out.sent.totals = Object.fromEntries(
    Object.entries(totals)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, d]) => [c, d.toFixed()]),
  );
  const any =
    out.requested || out.waiting || out.finished || out.stopped || out.notApproved || out.sent.rows || out.failed;
  return any ? out : undefined;
}
