/**
 * The approvers' decisions on a pending request: an approval (the last one makes it `approved`,
 * durable before anything is sent) and a rejection.
 */
import { proofMeets, stepUpNeed } from '../../stepup/threshold.js';
import { about, approvalsComplete, decisionRefusal, fillsAPlace, refused, reservedFor } from '../rules.js';
import type { Refused } from '../rules.js';
import type { DecisionReason, WithdrawalRequest } from '../types.js';
import type { AuditRecord, DecideContext, Decision, WithdrawalCommand } from './types.js';
import { delegation, oneVoteWith } from '../../away/delegation.js';
import type { AwayRecord } from '../../away/state.js';
import { iso, transition } from './transition.js';
import { factsAsRecorded, recheck, valuationNow } from '../recheck.js';
import { decideRecheck } from './send.js';

export function decideApprove(
  c: Extract<WithdrawalCommand, { type: 'approve' }>,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision {
  const refusal = decisionRefusal(req, c.user, 'approve', { isApprover: c.isApprover, now: ctx.now });
  if (refusal) return refusal;
  const stand = standingInCommit(c, ctx);
  const delegated = delegationRefusal(req!, c.user, stand);
  if (delegated) return delegated;
  // Judged by the rule table at this approval, with the facts of this moment (the value at the policy
  // price now, the policy in force): the approval counts toward the tier the request needs now.
  const valuation = valuationNow(req!, ctx.prices);
  const judged = recheck(req!, ctx, factsAsRecorded(req!), valuation, 'approve');
  if (judged.kind === 'refused')
    return decideRecheck(req!, factsAsRecorded(req!), ctx, iso(ctx.now), valuation, 'approve') as Decision;
  const cur = judged.next;
  // A code or passkey never bypasses a rule above (own request, not an approver...); without the proof the policy asks, no approval of a large request.
  const proof = c.stepUp === 'not-needed' ? undefined : c.stepUp;
  const need = stepUpNeed(ctx.policy, cur.currency, cur.amount, valuation);
  if (!proofMeets(need, proof))
    return refused(
      'step_up_required',
      need === 'passkey'
        ? 'Approving this withdrawal needs your passkey: use the Approve button on its card, then “Confirm with your passkey”.'
        : 'Approving this withdrawal needs a code from your authenticator app: use the Approve button on its card.',
    );
  const own = cur.tier.mustInclude.filter((e) => c.satisfies.includes(e));
  // Each delegation in force in this commit: the places only that person's role fills, recorded with its identity.
  const delegations = stand.records
    ? stand.for.map((u) => ({
        user: u,
        setAt: stand.records!.find((r) => r.id === u)!.at,
        satisfies: cur.tier.mustInclude.filter((e) => (c.satisfiesFor?.[u] ?? []).includes(e) && !own.includes(e)),
      }))
    : [];
  const satisfies = [...new Set([...own, ...delegations.flatMap((d) => d.satisfies)])];
  const reserved = reservedFor(cur);
  if (reserved.length && !fillsAPlace(cur, satisfies)) {
    return refused(
      'must_include_required',
      `This request still needs the approval of ${reserved.join(', ')} (required by its tier).`,
    );
  }
  const at = iso(ctx.now);
  const recorded: WithdrawalRequest = {
    ...cur,
    approvals: [
      ...cur.approvals,
      {
        user: c.user,
        at,
        satisfies,
        ...(proof ? { stepUp: proof } : {}),
        ...(stand.for.length ? { for: [...stand.for] } : {}),
        ...(delegations.length ? { delegations } : {}),
      },
    ],
  };
  const audit: AuditRecord = {
    at,
    actor: c.user,
    action: 'approve',
    subject: cur.id,
    details: {
      ...about(cur),
      approvals: recorded.approvals.length,
      required: cur.tier.approvals,
      satisfies,
      ...(proof ? { stepUp: proof } : {}),
      // Both people on the record: the delegate (the actor) and whom they approved for.
      ...(stand.for.length ? { for: [...stand.for] } : {}),
    },
  };
  // The last approval makes it `approved`, durable before anything is sent (the shell then claims it).
  return approvalsComplete(recorded)
    ? { kind: 'changed', next: transition(recorded, 'approved', c.user, at), audit, event: 'approved' }
    : { kind: 'changed', next: recorded, audit, event: 'approval-recorded' };
}

type Standing = { for: string[]; standsFor: string[]; oneVote: string[]; records?: readonly AwayRecord[] };

/**
 * Who the approver stands in for, judged in this commit (the away records as stored with it, not
 * as read before it): `for` keeps only the people of the command whose delegation to them is in
 * force now; the own-request and one-vote rules take the union of both readings (the stricter).
 */
function standingInCommit(c: Extract<WithdrawalCommand, { type: 'approve' }>, ctx: DecideContext): Standing {
  const records = ctx.away?.();
  if (!records)
    return { for: [...(c.for ?? [])], standsFor: [...(c.standsFor ?? [])], oneVote: [...(c.oneVote ?? [])] };
  const d = delegation(records, ctx.now);
  return {
    for: (c.for ?? []).filter((u) => d.delegateOf(u) === c.user),
    standsFor: [...new Set([...(c.standsFor ?? []), ...d.delegatorsOf(c.user)])],
    oneVote: [...new Set([...(c.oneVote ?? []), ...oneVoteWith(d, c.user)])],
    records,
  };
}

/**
 * A delegate's limits (issue 39): never on a request made by someone they stand in for, and one
 * vote with them: an approval already given by any of the people `oneVote` names counts for this one.
 */
function delegationRefusal(req: WithdrawalRequest, user: string, c: Standing): Refused<DecisionReason> | undefined {
  if ([...c.for, ...c.standsFor].includes(req.requester))
    return refused(
      'own_request',
      'You stand in for the person who made this request while they are away: you cannot decide on it.',
    );
  const one = new Set([user, ...c.for, ...c.oneVote]);
  const counted = req.approvals.find((a) => [a.user, ...(a.for ?? [])].some((u) => one.has(u)));
  if (counted)
    return refused(
      'already_approved',
      'An approval given for you, or by someone you stand in for, already counts on this request: a person and their delegate are one vote.',
    );
  return undefined;
}

export function decideReject(
  command: Extract<WithdrawalCommand, { type: 'reject' }>,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision {
  const at = iso(ctx.now);
  const refusal = decisionRefusal(req, command.user, 'reject', { isApprover: command.isApprover, now: ctx.now });
  if (refusal) return refusal;
  const text = command.reason.trim();
  if (!text) return refused('reason_required', 'A rejection needs a reason.');
  const cur = req!;
  return {
    kind: 'changed',
    next: transition(cur, 'rejected', command.user, at, text, {
      rejection: { user: command.user, at, reason: text },
    }),
    audit: { at, actor: command.user, action: 'reject', subject: cur.id, details: { ...about(cur), reason: text } },
    event: 'rejected',
  };
}
