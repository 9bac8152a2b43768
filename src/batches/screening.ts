/**
 * Screening a batch payout's rows: the provider asked about each destination before the commit
 * (its answers are then facts of the rule table, as for a single request), and the admins told
 * of a row refused for a sanctioned destination.
 */
import type { WithdrawalScreening } from '../screening/types.js';
import type { Tx } from '../store/index.js';
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
