/**
 * What governed policy keeps in the store: the policy in force (the last approved text),
 * the proposed changes and what the file looked like when last read. Plain JSON; the
 * persisted collection names must never change.
 */
import { collection } from '../../store/collection.js';

/** When an allowlisted address was approved; `initial`: it came with the first policy ever loaded (usable at once). */
export interface AddressApproval {
  approvedAt: string;
  initial: boolean;
}

export interface PolicyInForce {
  /** The approved file text, parsed again at every start (the file on disk may differ). */
  text: string;
  /** Hash of the parsed policy (canonical JSON): comments and layout are not changes. */
  hash: string;
  approvedAt: string;
  /** The admins whose approvals applied it; ['system'] for the first policy ever loaded. */
  approvedBy: string[];
  proposalId?: string;
  /** By `addressKey`: when each address of the allowlist was approved (the cooling-off runs from there). */
  addresses: Record<string, AddressApproval>;
}

export type ProposalState = 'pending' | 'applied' | 'rejected' | 'superseded';

export interface PolicyProposal {
  id: string;
  text: string;
  hash: string;
  /** The policy in force it was proposed against. */
  baseHash: string;
  proposedAt: string;
  /** The change in plain words, one line per difference (src/slack/policy-change-words.ts). */
  lines: string[];
  state: ProposalState;
  approvals: Array<{ user: string; at: string }>;
  rejection?: { user: string; at: string };
  /** Why it was superseded: a newer file, or the file went back to the policy in force. */
  superseded?: { at: string; by?: string; reason: string };
  appliedAt?: string;
}

/** A file that could not be used: kept so its notice renders the same however late it is sent. */
export interface PolicyFileProblem {
  id: string;
  at: string;
  error: string;
}

export const POLICY_IN_FORCE = collection<PolicyInForce>('policy_in_force');
export const POLICY_PROPOSALS = collection<PolicyProposal>('policy_proposals');
export const POLICY_FILE_PROBLEMS = collection<PolicyFileProblem>('policy_file_problems');
/** The hash of the file's raw text when last read: an unchanged file is not looked at again. */
export const POLICY_FILE_SEEN = collection<{ hash: string; at: string }>('policy_file_seen');

export const IN_FORCE_ID = 'current';
export const SEEN_ID = 'file';

/**
 * One allowlist entry's identity: the same address on the same network. As the allowlist rule
 * compares (rules.ts sameAddress): TRON's base58 is case-sensitive, EVM hex is not.
 */
export function addressKey(network: string, address: string): string {
  return `${network}:${network === 'TRON' ? address : address.toLowerCase()}`;
}
