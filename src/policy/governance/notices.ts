/**
 * The outbox entries governance queues (decide.ts returns them; the shell enqueues them in the
 * decision's commit). Each has a fixed key, so a retried commit or a restart never posts twice;
 * the words are commands/treasury/policy-change.ts's renderers.
 */
import type { OutboxRequest } from '../../outbox/types.js';
import type { Policy } from '../schema.js';

export const POLICY_CHANGE_RENDERER = 'policy-change';
export const POLICY_PROBLEM_RENDERER = 'policy-file-problem';
export const policyChangeKey = (id: string) => `policy-change:${id}`;

/** The proposal's message, posted once to the approvals channel of the policy in force. */
export function postChange(policy: Policy, proposalId: string): OutboxRequest {
  return {
    op: 'post',
    renderer: POLICY_CHANGE_RENDERER,
    ref: proposalId,
    key: policyChangeKey(proposalId),
    channel: policy.channels.approvals,
  };
}

/** The proposal's message, redrawn from its record (an approval, a rejection, superseded, applied). */
export function updateChange(proposalId: string): OutboxRequest {
  return { op: 'update', renderer: POLICY_CHANGE_RENDERER, ref: proposalId, key: policyChangeKey(proposalId) };
}

/**
 * An unusable file, told to the admins of the policy in force by DM; user groups cannot be
 * messaged directly, so with no admin named as a user the notice goes to the approvals channel.
 */
export function problemNotices(policy: Policy, problemId: string): OutboxRequest[] {
  const users = policy.people.admins.filter((a) => /^[UW]/.test(a));
  const out: OutboxRequest[] = [];
  if (!users.length)
    out.push({
      op: 'post',
      renderer: POLICY_PROBLEM_RENDERER,
      ref: problemId,
      key: `policy-file-problem:${problemId}`,
      channel: policy.channels.approvals,
    });
  for (const admin of users)
    out.push({
      op: 'dm',
      renderer: POLICY_PROBLEM_RENDERER,
      ref: problemId,
      user: admin,
      key: `policy-file-problem:${problemId}:${admin}`,
    });
  return out;
}
