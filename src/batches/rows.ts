/**
 * A batch's rows as withdrawal requests: what the rule table judges (the limits' windows count
 * every row), and, once the batch is approved, what is stored and sent, each row through the same
 * claim as a single withdrawal. Pure.
 */
import { Dec } from '../money/decimal.js';
import { destinationKey } from '../withdrawals/destinations.js';
import type { AllowlistInfo, WithdrawalRequest } from '../withdrawals/types.js';
import { rowReference, rowRequestId } from './reference.js';
import type { Batch, BatchRow } from './types.js';

/** Per destination (destinationKey: sameDestination's grouping), the batch's amounts to it per currency. */
const byDestination = new WeakMap<readonly BatchRow[], Map<string, Record<string, string>>>();
function destinationTotals(rows: readonly BatchRow[]): Map<string, Record<string, string>> {
  const known = byDestination.get(rows);
  if (known) return known;
  const sums = new Map<string, Record<string, Dec>>();
  for (const r of rows) {
    const key = destinationKey({ network: r.network, destination: r.address });
    const per = sums.get(key) ?? {};
    per[r.currency] = (per[r.currency] ?? new Dec(0)).plus(r.amount);
    sums.set(key, per);
  }
  const out = new Map(
    [...sums].map(([k, per]) => [k, Object.fromEntries(Object.entries(per).map(([c, d]) => [c, d.toFixed()]))]),
  );
  // Keyed by the rows array, shared by every copy of the batch: a judgement of 1,000 rows sums once.
  byDestination.set(rows, out);
  return out;
}

/** A row as a request of the batch's requester, at the batch's tier, with the batch's approvals. */
export function rowRequest(
  b: Batch,
  row: BatchRow,
  state: 'pending' | 'approved',
  at: string,
  // As judged at the approval: the send's re-check compares against it (a destination that left the allowlist).
  allowlist: AllowlistInfo = { status: 'off', neverPaidBefore: true },
): WithdrawalRequest {
  const note = row.note || [row.label, row.reference].filter(Boolean).join(' · ');
  return {
    id: rowRequestId(b.id, row.row),
    merchantReference: rowReference(b.id, row.row),
    requester: b.requester,
    amount: row.amount,
    currency: row.currency,
    network: row.network,
    destination: row.address,
    clientEmail: row.clientEmail,
    note,
    state,
    // Waiting: the batch's base tier (the rule table adds the extras once); approved: the tier its approvals met.
    tier: state === 'pending' ? (b.floorTier ?? b.tier) : b.tier,
    approvals: state === 'approved' ? [...b.approvals] : [],
    valuation: row.valuation,
    createdAt: b.createdAt,
    expiresAt: b.expiresAt,
    allowlist,
    // The batch's total and its rows to this destination: what the stale list and 'new destination' weigh, at every step.
    batch: {
      id: b.id,
      row: row.row,
      total: b.totals.perCurrency,
      toDestination: destinationTotals(b.rows).get(destinationKey({ network: row.network, destination: row.address })),
    },
    history: [
      { at: b.createdAt, state: 'pending', by: b.requester, note: `row ${row.row} of a batch payout` },
      ...(state === 'approved'
        ? [{ at, state: 'approved' as const, by: b.approvals.at(-1)?.user ?? b.requester }]
        : []),
    ],
  };
}

/** A pending batch's rows as the limits count them (not stored until the batch is approved). */
export const pendingRows = (b: Batch): WithdrawalRequest[] =>
  b.state === 'pending' ? b.rows.map((r) => rowRequest(b, r, 'pending', b.createdAt)) : [];
