/**
 * Whether to confirm a withdrawal the wallet service is about to execute (ARCHITECTURE.md
 * invariant 11): only one this app claimed for sending after a full quorum (`executing`),
 * for that destination, while sends are not frozen. Pure: the handler resolves the facts.
 */
import type { WithdrawalState } from '../withdrawals/index.js';

export type VerdictReason =
  | 'verified'
  | 'invalid_reference'
  | 'unknown_reference'
  | 'not_executing'
  | 'frozen'
  | 'destination_mismatch';

export interface VerdictFacts {
  /** The reference asked about passed validation (present, of sane length). */
  referenceValid: boolean;
  /** The request holding that merchant reference, if any. */
  request: { state: WithdrawalState } | undefined;
  frozen: boolean;
  /**
   * When the caller named a destination: whether it is the approved one. The spec's callback
   * carries only the reference (the checksum binds the destination); a service that also
   * sends the address gets it checked here.
   */
  destinationMatches: boolean | undefined;
}

export interface Verdict {
  isVerified: boolean;
  reason: VerdictReason;
}

export function verdict(f: VerdictFacts): Verdict {
  if (!f.referenceValid) return { isVerified: false, reason: 'invalid_reference' };
  if (!f.request) return { isVerified: false, reason: 'unknown_reference' };
  if (f.frozen) return { isVerified: false, reason: 'frozen' };
  if (f.request.state !== 'executing') return { isVerified: false, reason: 'not_executing' };
  if (f.destinationMatches === false) return { isVerified: false, reason: 'destination_mismatch' };
  return { isVerified: true, reason: 'verified' };
}

/** What each refusal means, for the audit log and the admins' notice. */
export const VERDICT_WORDS: Record<VerdictReason, string> = {
  verified: 'approved by the policy’s quorum and being sent',
  invalid_reference: 'the call carried no usable reference',
  unknown_reference: 'this app has no withdrawal with that reference',
  not_executing: 'this app is not sending that withdrawal now',
  frozen: 'sends are frozen',
  destination_mismatch: 'the destination is not the approved one',
};
