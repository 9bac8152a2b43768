/**
 * A batch payout's decisions, pure: its approval (the one approval round of the whole file, on
 * its total), its rejection and its stop, and when it is finished. The rows' own sends are the
 * withdrawal decider's (the same claim as a single request); here only the batch's record moves.
 */
import { proofMeets, type StepUpNeed, type StepUpProof } from '../stepup/threshold.js';
import { approvalsComplete, reservedFor } from '../withdrawals/rules.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';
import type { Policy } from '../policy/schema.js';
import type { PriceSnapshot } from '../prices/types.js';
import { batchStepUpNeed, stricterNeed, totalsOf, type BatchJudgement } from './judge.js';
import type { Batch } from './types.js';

export type BatchRefusal = { ok: false; reason: BatchRefusalReason; message: string };
export type BatchRefusalReason =
  | 'not_found'
  | 'not_pending'
  | 'expired'
  | 'own_request'
  | 'not_approver'
  | 'already_approved'
  | 'step_up_required'
  | 'must_include_required'
  | 'policy'
  | 'not_admin'
  | 'not_sending';

const no = (reason: BatchRefusalReason, message: string): BatchRefusal => ({ ok: false, reason, message });

export interface ApproveFacts {
  user: string;
  now: number;
  isApprover: boolean;
  /** The tier's must_include entries this user matches (group membership resolved by the caller). */
  satisfies: readonly string[];
  /** The sha256 of the file the approver's authenticator code (or passkey) was confirmed for. */
  stepUpFor?: string;
  /** How it was confirmed: a code, or a passkey (whose challenge bound this batch). */
  proof?: StepUpProof;
}

/** What confirms an approval of `b` now: what it needed when requested, or more if the policy or prices say so now. */
export const needOf = (b: Batch, judged?: Pick<BatchJudgement, 'stepUpNeed'>): StepUpNeed =>
  stricterNeed(b.stepUpNeed ?? (b.stepUp ? 'code' : 'none'), judged?.stepUpNeed ?? 'none');

/** The need now from the totals alone (no judgement of the rows): cheap enough for every render of the card. */
export const needNow = (b: Batch | undefined, policy: Policy, prices: PriceSnapshot | undefined): StepUpNeed =>
  b ? needOf(b, { stepUpNeed: batchStepUpNeed(policy, totalsOf(b.rows, prices)) }) : 'none';

const STEP_UP_WORDS: Record<Exclude<StepUpNeed, 'none'>, string> = {
  code: 'Approving this batch payout needs a code from your authenticator app (or your passkey), confirmed for this file.',
  passkey:
    'Approving this batch payout needs your passkey, confirmed for this file: a code is not enough at its total.',
};

/** Who may decide on the batch now, before any look-up about the user. */
export function batchStateRefusal(b: Batch | undefined, user: string, now: number): BatchRefusal | undefined {
  if (!b) return no('not_found', 'There is no such batch payout.');
  if (b.state !== 'pending')
    return no('not_pending', `This batch payout is no longer waiting for decisions: it is ${b.state}.`);
  if (now >= Date.parse(b.expiresAt)) return no('expired', 'This batch payout has expired.');
  if (b.requester === user) return no('own_request', 'You cannot decide on your own batch payout.');
  return undefined;
}

/**
 * Before an authenticator code is spent on a batch: its state, the approver's role, an approval
 * already given and the file the form was opened for, from the stored batch alone. No judgement
 * of the rows here (a thousand take about a second, and Slack's modal lives 3 seconds): the
 * approval that follows judges them in its commit, and its refusal is shown at the code.
 */
export function precheckBatch(
  b: Batch | undefined,
  f: { user: string; now: number; isApprover: boolean; stepUpFor: string; otherFile: string },
): BatchRefusal | undefined {
  const refusal = batchStateRefusal(b, f.user, f.now);
  if (refusal || !b) return refusal ?? no('not_found', 'There is no such batch payout.');
  if (!f.isApprover) return no('not_approver', 'You are not an approver in the treasury policy.');
  if (b.approvals.some((a) => a.user === f.user))
    return no('already_approved', 'You have already approved this batch payout.');
  if (f.stepUpFor !== b.sha256) return no('step_up_required', f.otherFile);
  if (needOf(b) === 'passkey') return no('step_up_required', STEP_UP_WORDS.passkey);
  return undefined;
}

/**
 * One approval of the whole batch, judged again by the rule table at this moment (`judged`: the
 * tier may have risen with the prices, a limit may be crossed now). The batch after it, and
 * whether it completed the approvals.
 */
export function approveBatch(
  b: Batch | undefined,
  f: ApproveFacts,
  judged: BatchJudgement,
): BatchRefusal | { ok: true; batch: Batch; complete: boolean } {
  const refusal = batchStateRefusal(b, f.user, f.now);
  if (refusal || !b) return refusal ?? no('not_found', 'There is no such batch payout.');
  if (!f.isApprover) return no('not_approver', 'You are not an approver in the treasury policy.');
  if (b.approvals.some((a) => a.user === f.user))
    return no('already_approved', 'You have already approved this batch payout.');
  if (judged.staleList) return no('policy', judged.staleList);
  const first = judged.refusals[0];
  if (first)
    return no('policy', `The policy in force refuses it now: row ${first.row}, ${first.column}: ${first.reason}`);
  if (judged.holds.length) return no('policy', `It would cross a limit now: ${judged.holds.join('; ')}.`);
  const tier = judged.tier ?? b.tier;
  // The confirmation is bound to this file: one confirmed for another file (or none, or a code where only a
  // passkey counts) is no approval of this one.
  const need = needOf(b, judged);
  if (need !== 'none' && (f.stepUpFor !== b.sha256 || !proofMeets(need, f.proof)))
    return no('step_up_required', STEP_UP_WORDS[need]);
  const stepUp = need !== 'none';
  const cur: Batch = { ...b, tier, stepUp, ...(stepUp ? { stepUpNeed: need } : {}) };
  const satisfies = tier.mustInclude.filter((e) => f.satisfies.includes(e));
  const reserved = reservedFor(cur);
  if (reserved.length && !reserved.some((e) => satisfies.includes(e)))
    return no(
      'must_include_required',
      `This batch payout still needs the approval of ${reserved.join(', ')} (required by its tier).`,
    );
  const at = new Date(f.now).toISOString();
  const batch: Batch = {
    ...cur,
    approvals: [...b.approvals, { user: f.user, at, satisfies, ...(stepUp ? { stepUp: f.proof ?? 'verified' } : {}) }],
  };
  return { ok: true, batch, complete: approvalsComplete(batch) };
}

export function rejectBatch(
  b: Batch | undefined,
  f: { user: string; now: number; isApprover: boolean; reason: string },
): BatchRefusal | { ok: true; batch: Batch } {
  const refusal = batchStateRefusal(b, f.user, f.now);
  if (refusal || !b) return refusal ?? no('not_found', 'There is no such batch payout.');
  if (!f.isApprover) return no('not_approver', 'You are not an approver in the treasury policy.');
  const at = new Date(f.now).toISOString();
  return { ok: true, batch: { ...b, state: 'rejected', rejection: { user: f.user, at, reason: f.reason } } };
}

export function stopBatch(
  b: Batch | undefined,
  f: { admin: string; now: number; isAdmin: boolean },
): BatchRefusal | { ok: true; batch: Batch } {
  if (!b) return no('not_found', 'There is no such batch payout.');
  if (!f.isAdmin) return no('not_admin', 'Only an admin of the treasury policy can stop a batch payout.');
  if (b.state !== 'sending') return no('not_sending', `This batch payout is not being sent: it is ${b.state}.`);
  const at = new Date(f.now).toISOString();
  return { ok: true, batch: { ...b, state: 'stopped', stopped: { by: f.admin, at }, finishedAt: at } };
}

/** Where the rows stand: what the card's progress line says. */
export interface Progress {
  rows: number;
  /** Not yet claimed (approved), or being sent (executing). */
  toSend: number;
  sending: number;
  completed: number;
  failed: number;
  unknown: number;
  /** Never sent: stopped by an admin, or expired before they could be sent. */
  notSent: number;
}

export function progressOf(b: Batch, rows: readonly WithdrawalRequest[]): Progress {
  const p: Progress = { rows: b.rows.length, toSend: 0, sending: 0, completed: 0, failed: 0, unknown: 0, notSent: 0 };
  if (b.state === 'pending' || b.state === 'rejected' || b.state === 'expired') {
    p.notSent = b.state === 'pending' ? 0 : b.rows.length;
    p.toSend = b.state === 'pending' ? b.rows.length : 0;
    return p;
  }
  for (const r of rows) {
    if (r.state === 'approved' || r.state === 'pending') p.toSend++;
    else if (r.state === 'executing') p.sending++;
    else if (r.state === 'completed') p.completed++;
    else if (r.state === 'failed') p.failed++;
    else if (r.state === 'unknown') p.unknown++;
    else p.notSent++;
  }
  return p;
}

/** The batch is finished once no row waits to be sent or is being sent (unknown ones are reconciled on their own). */
export const finished = (p: Progress): boolean => p.toSend === 0 && p.sending === 0;

/** The card's progress line: "312 of 500 sent · 2 failed · 1 unknown". */
export function progressWords(p: Progress): string {
  const parts = [`${p.completed} of ${p.rows} sent`];
  if (p.failed) parts.push(`${p.failed} failed`);
  if (p.unknown) parts.push(`${p.unknown} outcome unknown (being checked)`);
  if (p.notSent) parts.push(`${p.notSent} not sent`);
  return parts.join(' · ');
}
