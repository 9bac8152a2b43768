/**
 * A batch payout as stored: one file of rows, validated whole, approved once on its total, then
 * each row sent as a withdrawal request of its own (`WithdrawalRequest.batch` names the batch),
 * through the same claim as a single withdrawal. A leaf: every batch module imports it.
 */
import type { Valuation } from '../money/value.js';
import type { ListRef } from '../screening/list.js';
import type { Approval } from '../withdrawals/types.js';
import type { TierChoice } from '../withdrawals/value-rules.js';

/**
 * pending -> sending (same commit as the last approval: the rows are written `approved`)
 * -> done (no row left to send) | stopped (an admin stopped the rest)
 * pending -> rejected | expired
 */
export type BatchState = 'pending' | 'sending' | 'done' | 'stopped' | 'rejected' | 'expired';

/** One problem of the file: the row (1 = the first row after the header; 0 = the file), the column and why. */
export interface BatchError {
  row: number;
  column: string;
  reason: string;
}

/** A row as validated: canonical names and exact decimal text, as it will be sent. */
export interface BatchRow {
  /** 1-based, as a spreadsheet shows it below the header. */
  row: number;
  address: string;
  amount: string;
  currency: string;
  network: string;
  clientEmail: string;
  note: string;
  label: string;
  /** The requester's own reference for the row (shown and exported; the service gets ours). */
  reference: string;
  /** The row's value when submitted (unknown: the strictest case). */
  valuation: Valuation;
}

export interface BatchTotals {
  rows: number;
  /** Exact decimal text per currency. */
  perCurrency: Record<string, string>;
  /** The whole batch's value in USD at the policy price, or why it is unknown. */
  value: Valuation;
}

/** What screening found across the rows (src/withdrawals/screening-rules.ts, each row judged as a request). */
export interface BatchScreening {
  /** The sanctions list the rows were judged with. */
  list?: ListRef;
  /** The provider's word: `down` when it could not be reached for some row (the list alone decided). */
  provider?: 'clean' | 'down';
  /** The list was older than screening.max_age (the batch's total below stale_block_above, judged once on the whole file): its age. */
  stale?: { ageMs: number };
  /** Rows whose destination imitates a known address: each adds approvals (once, to the batch). */
  lookalikes: Array<{ row: number; label: string; address: string; extraApprovals: number }>;
  /** Rows refused for a sanctioned destination (the file is then not requested). */
  sanctioned: number[];
}

export interface Batch {
  id: string;
  requester: string;
  fileName: string;
  /** The file's sha256 (hex): the same file again within 30 days is flagged; step-up is bound to it. */
  sha256: string;
  /** The payouts' fingerprint (fingerprint.ts): the same rows again within 30 days, however written, are flagged. */
  fingerprint?: string;
  state: BatchState;
  rows: BatchRow[];
  totals: BatchTotals;
  /** The tier judged on the batch's total value (never lower than any row's own). */
  tier: TierChoice;
  /**
   * The tier of the batch's totals alone, with no extra approvals and no escalation: what its rows
   * are judged at while it waits (judging them at `tier` would add the extras again at every approval).
   */
  floorTier?: TierChoice;
  /** The policy asks for an authenticator code (or a passkey) at the batch's total: every approval carries one. */
  stepUp: boolean;
  /**
   * Which confirmation the batch's total needs when requested: a code (or a passkey), or above
   * `passkey_above` a passkey only. Absent on batches stored before it: `stepUp` alone (a code).
   */
  stepUpNeed?: 'code' | 'passkey';
  approvals: Approval[];
  /** Rows to a destination never paid before, and rows to an address not on the allowlist. */
  newDestinations: number;
  unlisted: number;
  /** Screening's results at the request (absent: the app screens nothing). */
  screening?: BatchScreening;
  /** An earlier batch with the same sha256 within 30 days, which the requester confirmed they mean to pay again. */
  repeatOf?: { id: string; at: string };
  createdAt: string;
  expiresAt: string;
  rejection?: { user: string; at: string; reason: string };
  stopped?: { by: string; at: string };
  /** When the last row settled or was stopped (the result file is then final). */
  finishedAt?: string;
}
