/**
 * Screening a batch payout's rows: the provider asked about each destination before the commit
 * (its answers are then facts of the rule table, as for a single request), and the admins told
 * of a row refused for a sanctioned destination (at the request), or of a batch rejected for one
 * listed since (at an approval).
 */
import type { WithdrawalScreening } from '../screening/types.js';
import type { Tx } from '../store/index.js';
import { appendAudit } from '../audit/log.js';
import { BATCHES } from './expire.js';
import type { BatchJudgement } from './judge.js';
import type { Batch, BatchRow } from './types.js';

/** Asks the provider about every destination of the file, a few at a time (ask never throws). */
export async function askAll(screening: WithdrawalScreening, rows: readonly BatchRow[]): Promise<void> {
  const addresses = [...new Set(rows.map((r) => r.address))];
  for (let i = 0; i < addresses.length; i += 8)
    await Promise.all(addresses.slice(i, i + 8).map((a) => screening.ask(a)));
}

/** A row refused for a sanctioned destination: the admins are told at once, in private, inside the commit. */
export function tellSanctioned(
  screening: WithdrawalScreening | undefined,
  tx: Tx,
  b: Batch,
  row: number,
  judged: BatchJudgement,
): void {
  const r = b.rows.find((x) => x.row === row);
  const list = judged.screening?.list;
  if (!r) return;
  screening?.tell?.(tx, {
    kind: 'request-refused',
    at: b.createdAt,
    address: r.address,
    amount: r.amount,
    currency: r.currency,
    network: r.network,
    requester: b.requester,
    reason: judged.refusals.find((e) => e.row === row)?.reason ?? 'a sanctioned destination',
    ...(list ? { list: { date: list.date, sha256: list.sha256 } } : {}),
    // The same file submitted again is the same refusal for the admins.
    once: `refused-batch:${b.requester}:${b.sha256}:${row}`,
  });
}

/**
 * The provider asked about every destination, waited for at most `budgetMs`: an approval answers
 * a Slack modal within 3 seconds, and a thousand uncached destinations could take longer. An answer
 * not back by then counts as not reached (the list alone decides for that row, as the card says);
 * the asks go on and fill the cache for the next step.
 */
export async function askWithin(screening: WithdrawalScreening, rows: readonly BatchRow[], budgetMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, budgetMs);
    timer.unref();
  });
  await Promise.race([askAll(screening, rows), budget]);
  clearTimeout(timer);
}

/**
 * At an approval: a row whose destination is sanctioned since the request rejects the whole batch,
 * as a single request is rejected (src/withdrawals/decide), and the admins are told of each such
 * row, in the same commit. The batch after it, and the words for the approver; undefined: no row listed.
 */
export function sanctionedSince(
  screening: WithdrawalScreening | undefined,
  tx: Tx,
  b: Batch,
  judged: BatchJudgement,
  at: string,
): { batch: Batch; message: string } | undefined {
  const rows = judged.screening?.sanctioned ?? [];
  if (!rows.length) return undefined;
  const why = (row: number) => judged.refusals.find((e) => e.row === row)?.reason ?? 'a sanctioned destination';
  const reason = `row ${rows[0]}: ${why(rows[0]!)}${rows.length > 1 ? ` (and ${rows.length - 1} more rows)` : ''}`;
  const list = judged.screening?.list;
  for (const row of rows) {
    const r = b.rows.find((x) => x.row === row);
    if (!r) continue;
    screening?.tell?.(tx, {
      kind: 'stopped',
      at,
      address: r.address,
      amount: r.amount,
      currency: r.currency,
      network: r.network,
      requester: b.requester,
      reason: why(row),
      ...(list ? { list: { date: list.date, sha256: list.sha256 } } : {}),
      once: `stopped-batch:${b.id}:${row}`,
    });
  }
  const batch: Batch = { ...b, state: 'rejected', rejection: { user: 'system', at, reason }, finishedAt: at };
  tx.put(BATCHES, b.id, batch);
  appendAudit(tx, {
    at,
    actor: 'system',
    action: 'batch_reject',
    subject: b.id,
    details: { sha256: b.sha256, rows: b.rows.length, reason, sanctioned: rows },
  });
  return {
    batch,
    message: `Rejected: nothing will be sent. A destination of this batch payout is on the sanctions list since it was requested (${reason}). The admins have been told.`,
  };
}
