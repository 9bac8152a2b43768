/**
 * Whether to confirm a withdrawal the wallet service is about to execute (ARCHITECTURE.md
 * invariant 11): only one this app claimed for sending after a full quorum (`executing`),
 * as approved in every field the call carries, while sends are not frozen. Pure: the handler
 * resolves the facts.
 */
import type { WithdrawalState } from '../withdrawals/index.js';
import type { CallField } from './fields.js';

/** A field the call carried is not the approved one (fields.ts). */
export type MismatchReason = `${CallField}_mismatch`;

export type VerdictReason =
  | 'verified'
  | 'invalid_reference'
  | 'unknown_reference'
  | 'not_executing'
  | 'frozen'
  /** The withdrawal rule table, judged again at the callback, does not let it go now (a limit, the tier, the allowlist...). */
  | 'policy'
  | MismatchReason;

export interface VerdictFacts {
  /** The reference asked about passed validation (present, of sane length). */
  referenceValid: boolean;
  /** The request holding that merchant reference, if any. */
  request: { state: WithdrawalState } | undefined;
  frozen: boolean;
  /**
   * The fields the call carried that are not the approved ones (fields.ts), first one first.
   * The spec's callback carries only the reference (the checksum binds the destination): then
   * none. A service that also sends the destination, amount, currency or network gets each checked.
   */
  mismatches: readonly CallField[];
  /** Why the rule table (judged at the callback, on the leader) does not let the request go now. */
  policy?: string;
}

export interface Verdict {
  isVerified: boolean;
  reason: VerdictReason;
}

export function verdict(f: VerdictFacts): Verdict {
  if (!f.referenceValid) return { isVerified: false, reason: 'invalid_reference' };
  if (!f.request) return { isVerified: false, reason: 'unknown_reference' };
  // Before the state and the freeze: a call naming other values than the quorum approved is
  // about a withdrawal nobody approved whatever ours is doing, and its reason raises the alarm
  // (alerts.ts), where "frozen" or "already sent" would only be a notice.
  const [mismatch] = f.mismatches;
  if (mismatch) return { isVerified: false, reason: `${mismatch}_mismatch` };
  if (f.frozen) return { isVerified: false, reason: 'frozen' };
  if (f.request.state !== 'executing') return { isVerified: false, reason: 'not_executing' };
  if (f.policy) return { isVerified: false, reason: 'policy' };
  return { isVerified: true, reason: 'verified' };
}

/** What each refusal means, for the audit log and the admins' notice. */
export const VERDICT_WORDS: Record<VerdictReason, string> = {
  verified: 'approved by the policy’s quorum and being sent',
  invalid_reference: 'the call carried no usable reference',
  unknown_reference: 'this app has no withdrawal with that reference',
  not_executing: 'this app is not sending that withdrawal now',
  frozen: 'sends are frozen',
  policy: 'the treasury policy in force does not let it go now',
  destination_mismatch: 'the destination is not the approved one',
  amount_mismatch: 'the amount is not the approved one',
  currency_mismatch: 'the currency is not the approved one',
  network_mismatch: 'the network is not the approved one',
};

const MISMATCHES: ReadonlySet<VerdictReason> = new Set<MismatchReason>([
  'destination_mismatch',
  'amount_mismatch',
  'currency_mismatch',
  'network_mismatch',
]);

export const isMismatch = (reason: VerdictReason): reason is MismatchReason => MISMATCHES.has(reason);
