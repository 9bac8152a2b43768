/**
 * A batch's rows as withdrawal requests: what the rule table judges (the limits' windows count
 * every row), and, once the batch is approved, what is stored and sent, each row through the same
 * claim as a single withdrawal. Pure.
 */
import type { AllowlistInfo, WithdrawalRequest } from '../withdrawals/types.js';
import { rowReference, rowRequestId } from './reference.js';
import type { Batch, BatchRow } from './types.js';

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
    batch: { id: b.id, row: row.row },
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
