/**
 * Governed policy's rules as one pure function: `decide(state, command, facts)` returns what to
 * write (records, audit entries, outbox entries) and what to answer, with no store, clock, file
 * or network. The shell (governor.ts) reads the state, resolves the facts (the time, a fresh
 * id, whether the user is an admin: group membership may ask Slack), writes the decision in
 * one store commit, and only then acts on it (the policy in force, logs, onApplied).
 *
 * The rules: the first policy ever loaded is accepted (and audited). Afterwards a file whose
 * parsed content differs from the policy in force becomes a proposed change, applied once
 * enough admins of the policy in force approved it (effectivePolicyChangeApprovals of the
 * policy in force, not of the proposed one: a change cannot lower its own bar). Any admin can
 * reject it; a newer file supersedes it. An unusable file changes nothing; the admins are told.
 * Applying is the approval that completes the quorum, in the same commit, so it is not a
 * command of its own.
 */
import { sanctionedAdditions, type SanctionedFact } from './sanctioned.js';
import type { AuditInput } from '../../audit/log.js';
import type { OutboxRequest } from '../../outbox/types.js';
import { PolicyError, parsePolicy } from '../load.js';
import { effectivePolicyChangeApprovals, type Policy } from '../schema.js';
import type { FileReading, UsableReading } from './file-source.js';
import { postChange, problemNotices, updateChange } from './notices.js';
import {
  addressKey,
  type AddressApproval,
  type PolicyFileProblem,
  type PolicyInForce,
  type PolicyProposal,
} from './types.js';

const SYSTEM = 'system';

/** What the store holds, as the shell read it. */
export interface GovernanceState {
  /** The policy in force, parsed; undefined only before the first is loaded. */
  policy: Policy | undefined;
  inForce: PolicyInForce | undefined;
  /** The open proposal (the latest pending one), if any. */
  pending: PolicyProposal | undefined;
  /** The raw hash of the file when last read. */
  seenHash: string | undefined;
}

export type GovernanceCommand =
  /** No approved policy yet: the file read now (already parsed and validated) is accepted as it is. */
  | { type: 'accept-first'; file: string | undefined; reading: UsableReading }
  | { type: 'file-changed'; reading: FileReading }
  /**
   * `proposal`: the one named by the button, read in the same commit (undefined: no such id).
   * `isAdmin`: of the policy in force, resolved by the shell before the commit.
   */
  | {
      type: 'approve' | 'reject';
      proposalId: string;
      proposal: PolicyProposal | undefined;
      user: string;
      isAdmin: boolean;
    };

export interface GovernanceFacts {
  now: number;
  /** Why an address may not be allowlisted (it is on the sanctions list: src/screening), or undefined. */
  sanctioned?: SanctionedFact;
  /** A fresh id, used when the decision creates a proposal or a problem record. */
  newId: string;
  /**
   * The change in words, one line per difference, for the admins who approve it. Given by the
   * shell because the words are Slack's (mentions, escaping: src/slack/policy-change-words.ts),
   * and the rules must not know how Slack writes.
   */
  describe: (from: Policy, to: Policy) => string[];
}

export type CheckResult =
  | { kind: 'unchanged' }
  | { kind: 'in-force' }
  | { kind: 'invalid'; error: string }
  | { kind: 'proposed'; proposal: PolicyProposal };

export type ChangeDecision = { ok: true; proposal: PolicyProposal; applied: boolean } | { ok: false; message: string };

/** Records to write; absent: leave as is. */
export interface GovernanceWrites {
  inForce?: PolicyInForce;
  /** Written in this order (a superseded one before the proposal that replaces it). */
  proposals: PolicyProposal[];
  problem?: PolicyFileProblem;
  /** The file as now read, or null: forget it, so the next check compares the file again. */
  seen?: { hash: string; at: string } | null;
}

export interface GovernanceDecision<R> {
  /** What the caller is answered. */
  result: R;
  writes: GovernanceWrites;
  audit: AuditInput[];
  notices: OutboxRequest[];
  /** The policy now in force, when this decision changed it (after the commit, not before). */
  applied?: Policy;
}

type ResultOf<C extends GovernanceCommand> = C extends { type: 'file-changed' }
  ? CheckResult
  : C extends { type: 'accept-first' }
    ? undefined
    : ChangeDecision;

export function decide<C extends GovernanceCommand>(
  state: GovernanceState,
  command: C,
  facts: GovernanceFacts,
): GovernanceDecision<ResultOf<C>>;
export function decide(
  state: GovernanceState,
  command: GovernanceCommand,
  facts: GovernanceFacts,
): GovernanceDecision<CheckResult | ChangeDecision | undefined> {
  switch (command.type) {
    case 'accept-first':
      return acceptFirst(command, facts);
    case 'file-changed':
      return fileChanged(state, command.reading, facts);
    case 'approve':
    case 'reject':
      return decideOn(state, command, facts);
    default: {
      const unknown: never = command;
      throw new Error(`unknown governance command ${JSON.stringify(unknown)}`);
    }
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
const nothing = <R>(result: R): GovernanceDecision<R> => ({
  result,
  writes: { proposals: [] },
  audit: [],
  notices: [],
});

function inForcePolicy(state: GovernanceState): Policy {
  if (!state.policy) throw new Error('the policy is not loaded yet');
  return state.policy;
}

/** When each address of `next` was approved: kept for addresses already listed, now for the others. */
export function addressTimes(
  next: Policy,
  before: PolicyInForce | undefined,
  at: string,
): Record<string, AddressApproval> {
  const out: Record<string, AddressApproval> = {};
  for (const e of next.withdrawals.allowlist.addresses) {
    const key = addressKey(e.network, e.address);
    out[key] = before?.addresses[key] ?? { approvedAt: at, initial: !before };
  }
  return out;
}

function acceptFirst(
  c: Extract<GovernanceCommand, { type: 'accept-first' }>,
  facts: GovernanceFacts,
): GovernanceDecision<undefined> {
  const at = iso(facts.now);
  const { text, hash, rawHash, policy } = c.reading;
  return {
    result: undefined,
    writes: {
      inForce: { text, hash, approvedAt: at, approvedBy: [SYSTEM], addresses: addressTimes(policy, undefined, at) },
      proposals: [],
      seen: { hash: rawHash, at },
    },
    audit: [
      {
        at,
        actor: SYSTEM,
        action: 'policy_accept_first',
        subject: hash.slice(0, 12),
        details: { file: c.file, hash, reason: 'no approved policy yet: the first policy loaded is accepted as it is' },
      },
    ],
    notices: [],
    applied: policy,
  };
}

/** A proposal set aside: its message is updated to say so. */
function supersede(d: GovernanceDecision<unknown>, p: PolicyProposal, at: string, reason: string, by?: string): void {
  d.writes.proposals.push({ ...p, state: 'superseded', superseded: { at, reason, ...(by ? { by } : {}) } });
  d.audit.push({ at, actor: SYSTEM, action: 'policy_supersede', subject: p.id, details: { reason, by } });
  d.notices.push(updateChange(p.id));
}

function fileChanged(
  state: GovernanceState,
  reading: FileReading,
  facts: GovernanceFacts,
): GovernanceDecision<CheckResult> {
  // The same bytes as last time (every poll, most file events): nothing to look at.
  if (state.seenHash === reading.rawHash) return nothing({ kind: 'unchanged' });
  const at = iso(facts.now);
  const seen = { hash: reading.rawHash, at };
  // A sanctioned address added to the allowlist: the file is refused as unusable, so nobody can approve it.
  const sanctioned = reading.ok && state.policy ? sanctionedAdditions(state.policy, reading.policy, facts) : undefined;
  if (!reading.ok || sanctioned) {
    const error = reading.ok ? sanctioned! : reading.error;
    const id = facts.newId;
    return {
      result: { kind: 'invalid', error },
      writes: { proposals: [], seen, problem: { id, at, error } },
      audit: [
        {
          at,
          actor: SYSTEM,
          action: 'policy_invalid',
          subject: id,
          details: { error, reason: 'the policy file cannot be used; the policy in force is unchanged' },
        },
      ],
      notices: problemNotices(inForcePolicy(state), id),
    };
  }
  const current = inForcePolicy(state);
  const open = state.pending;
  const d = nothing<CheckResult>({ kind: 'unchanged' });
  d.writes.seen = seen;
  if (reading.hash === state.inForce!.hash) {
    // Only comments or layout changed, or the file went back: an open proposal no longer says what the file is.
    if (open) supersede(d, open, at, 'the file is back to the policy in force');
    d.result = { kind: 'in-force' };
    return d;
  }
  if (open?.hash === reading.hash) return d; // the change already proposed, reformatted
  const proposal: PolicyProposal = {
    id: facts.newId,
    text: reading.text,
    hash: reading.hash,
    baseHash: state.inForce!.hash,
    proposedAt: at,
    lines: facts.describe(current, reading.policy),
    state: 'pending',
    approvals: [],
  };
  if (open) supersede(d, open, at, 'a newer version of the file replaced it', proposal.id);
  d.writes.proposals.push(proposal);
  d.audit.push({
    at,
    actor: SYSTEM,
    action: 'policy_propose',
    subject: proposal.id,
    details: { hash: proposal.hash, changes: proposal.lines, required: effectivePolicyChangeApprovals(current) },
  });
  d.notices.push(postChange(current, proposal.id));
  d.result = { kind: 'proposed', proposal };
  return d;
}

const stateWords: Record<PolicyProposal['state'], string> = {
  pending: 'waiting for approval',
  applied: 'already applied',
  rejected: 'rejected',
  superseded: 'replaced by a newer version of the file',
};

function decideOn(
  state: GovernanceState,
  c: Extract<GovernanceCommand, { type: 'approve' | 'reject' }>,
  facts: GovernanceFacts,
): GovernanceDecision<ChangeDecision> {
  const { user, type: kind } = c;
  const p = c.proposal;
  if (!p) return nothing({ ok: false, message: 'There is no such policy change.' });
  const at = iso(facts.now);
  const refused = (message: string) => nothing<ChangeDecision>({ ok: false, message });
  if (!c.isAdmin) {
    const d = refused('Only treasury admins can approve or reject a policy change.');
    d.audit.push({
      at,
      actor: user,
      action: `policy_${kind}_refused`,
      subject: p.id,
      details: { reason: 'not an admin of the policy in force' },
    });
    return d;
  }
  if (p.state !== 'pending')
    return refused(`This policy change is no longer waiting for decisions: it was ${stateWords[p.state]}.`);
  const update = updateChange(p.id);
  if (kind === 'reject') {
    const next: PolicyProposal = { ...p, state: 'rejected', rejection: { user, at } };
    return {
      result: { ok: true, proposal: next, applied: false },
      writes: { proposals: [next] },
      audit: [
        {
          at,
          actor: user,
          action: 'policy_reject',
          subject: p.id,
          details: { changes: p.lines, approvalsBefore: p.approvals.map((a) => a.user) },
        },
      ],
      notices: [update],
    };
  }
  // A double click, or the same admin twice, counts once.
  if (p.approvals.some((a) => a.user === user))
    return refused('You have already approved this policy change; it needs another admin.');
  const base = state.inForce;
  if (p.baseHash !== base?.hash) {
    // Proposed against a policy that is no longer in force (a check raced an approval): its lines would lie.
    const d = refused('The policy in force changed since this was proposed; the file will be proposed again.');
    supersede(d, p, at, 'the policy in force changed since it was proposed');
    d.writes.seen = null;
    return d;
  }
  let nextPolicy: Policy;
  try {
    nextPolicy = parsePolicy(p.text, 'The proposed policy');
  } catch (err) {
    // Proposed before this version refused what it says (an unknown key): approving it would put
    // in force less than its text says. Set aside; the file is read again and its problems told.
    if (!(err instanceof PolicyError)) throw err;
    const d = refused(`This policy change cannot be applied: ${err.message}\nFix the file; it is checked again.`);
    supersede(d, p, at, 'it is not a valid policy for this version of the app');
    d.writes.seen = null;
    return d;
  }
  // Listed since it was proposed: the address it adds to the allowlist is sanctioned now.
  const sanctioned = sanctionedAdditions(inForcePolicy(state), nextPolicy, facts);
  if (sanctioned) {
    const d = refused(`This policy change cannot be applied: ${sanctioned}`);
    supersede(d, p, at, 'an address it adds to the allowlist is sanctioned now');
    d.writes.seen = null;
    return d;
  }
  const required = effectivePolicyChangeApprovals(inForcePolicy(state));
  const approvals = [...p.approvals, { user, at }];
  const approveAudit: AuditInput = {
    at,
    actor: user,
    action: 'policy_approve',
    subject: p.id,
    details: { approvals: approvals.length, required },
  };
  if (approvals.length < required) {
    const next = { ...p, approvals };
    return {
      result: { ok: true, proposal: next, applied: false },
      writes: { proposals: [next] },
      audit: [approveAudit],
      notices: [update],
    };
  }
  // The quorum is reached: this approval applies the change.
  const applied: PolicyProposal = { ...p, approvals, state: 'applied', appliedAt: at };
  return {
    result: { ok: true, proposal: applied, applied: true },
    writes: {
      proposals: [applied],
      inForce: {
        text: p.text,
        hash: p.hash,
        approvedAt: at,
        approvedBy: approvals.map((a) => a.user),
        proposalId: p.id,
        addresses: addressTimes(nextPolicy, base, at),
      },
      // The file is compared with the new policy in force at the next check.
      seen: null,
    },
    audit: [
      approveAudit,
      {
        at,
        actor: user,
        action: 'policy_apply',
        subject: p.id,
        details: { hash: p.hash, previousHash: base.hash, approvedBy: approvals.map((a) => a.user), changes: p.lines },
      },
    ],
    notices: [update],
    applied: nextPolicy,
  };
}
