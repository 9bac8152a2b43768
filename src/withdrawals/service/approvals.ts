/**
 * People's decisions on a request: approve, reject, an admin's resolution of an unknown outcome
 * and of a hold. Roles and groups (maybe a Slack API call) are resolved before the commit; the
 * decider checks everything again inside it. The last approval (or a release of an approved
 * request) starts the one send.
 */
import { hasRole, matches } from '../../policy/people.js';
import { RELEASED_AFTER_EXPIRY } from '../hold/words.js';
import { selectTier, stateRefusal } from '../rules.js';
import { valuationNow } from '../recheck.js';
import { mustIncludeEntries } from '../value-rules.js';
import { oneVoteWith } from '../../away/delegation.js';
import { delegationIn } from '../../away/service.js';
import type { InCommit } from '../shell.js';
import type { DecisionOutcome, WithdrawalRequest } from '../types.js';
import { refusalOutcome, type ServiceDeps } from './deps.js';

export function approvalOps({
  store,
  shell,
  sender,
  policy,
  now,
  groups,
  logger,
  hooks,
  prices,
  screening,
}: ServiceDeps) {
  const { stored, commitOn, outcomeOf } = shell;
  const tierNow = (r: WithdrawalRequest) =>
    selectTier(policy.current(), r.currency, r.amount, valuationNow(r, prices?.()));
  /**
   * Whom `userId` stands in for now (the people away who named them; src/away), who of those are
   * approvers, whose approval is one vote with theirs, and whether they may decide at all: as
   * themselves, or in the place of an approver away.
   */
  async function standingIn(userId: string) {
    const p = policy.current();
    const d = delegationIn(store, now());
    const delegators = d.delegatorsOf(userId);
    const own = await hasRole(p, 'approvers', userId, groups);
    // A delegate is an approver themselves (src/away refuses naming anyone else): one no longer is lends nothing.
    const approvingFor: string[] = [];
    if (own) for (const who of delegators) if (await hasRole(p, 'approvers', who, groups)) approvingFor.push(who);
    // Every delegator counts for the own-request rule; only those still approvers lend a vote (and are recorded).
    // The decider reads the delegations again inside its commit (this is read before it, for the look-ups).
    return {
      isApprover: own,
      for: delegators,
      approvingFor,
      oneVote: oneVoteWith(d, userId),
    };
  }

  async function approve(
    id: string,
    userId: string,
    facts: { stepUp?: 'verified' | 'passkey' | 'not-needed'; inCommit?: InCommit } = {},
  ): Promise<DecisionOutcome> {
    // Roles and groups (maybe a Slack API call) are looked up only for a request open to decisions;
    // the decider checks everything again inside the commit.
    const early = stateRefusal(stored(id), userId, now());
    if (early) return refusalOutcome(early);
    // Standing in for people away who named this user (src/away): their approvals, within their groups and tiers.
    const stand = await standingIn(userId);
    const isApprover = stand.isApprover;
    // Group membership is resolved before the commit (it is async) and recorded with the approval:
    // against the tier stored and the tier the decider judges now (the value at the policy price now),
    // so a value that rose into a tier with must_include credits the person it names.
    const satisfies: string[] = [];
    const satisfiesFor: Record<string, string[]> = {};
    const before = stored(id);
    const judged = before ? tierNow(before) : undefined;
    // Every entry of the currency's tiers too: a limit may raise the request to the top tier at this approval.
    const entries = new Set([
      ...(before?.tier.mustInclude ?? []),
      ...(judged?.mustInclude ?? []),
      ...(before ? mustIncludeEntries(policy.current(), before.currency) : []),
    ]);
    // Each person's places apart: the decider counts a delegator's only while their delegation is in force.
    if (isApprover)
      for (const entry of entries) {
        if (await matches([entry], userId, groups)) satisfies.push(entry);
        for (const who of stand.approvingFor)
          if (await matches([entry], who, groups)) satisfiesFor[who] = [...(satisfiesFor[who] ?? []), entry];
      }
    // The provider is asked before the commit (the rule table reads its answer there): listed since the request, refused.
    if (isApprover && before) await screening?.ask(before.destination);
    // The approval that may complete the quorum gives its send a head start (sender.ts): the
    // balance read runs beside this commit. Only an approver's click may start one, so nobody
    // else can make the app call the service.
    const cur = stored(id);
    const mayComplete =
      isApprover &&
      cur !== undefined &&
      !cur.approvals.some((a) => [a.user, ...(a.for ?? [])].some((u) => stand.oneVote.includes(u))) &&
      cur.approvals.length + 1 >= cur.tier.approvals;
    const applying = commitOn(
      id,
      {
        type: 'approve',
        user: userId,
        isApprover,
        satisfies,
        stepUp: facts.stepUp ?? 'not-needed',
        ...(stand.approvingFor.length ? { for: stand.approvingFor, satisfiesFor } : {}),
        ...(stand.for.length ? { standsFor: stand.for } : {}),
        oneVote: stand.oneVote,
      },
      undefined,
      facts.inCommit,
    );
    // Prepared once the commit is under way, so the read's start does not hold back its write.
    const head = mayComplete && cur ? sender.prepare(cur) : undefined;
    const applied = await applying.catch((err: unknown) => {
      head?.release();
      throw err;
    });
    const outcome = outcomeOf(applied);
    const quorum = outcome.ok && applied.event?.type === 'approved';
    if (!quorum) head?.release(); // nothing to send after all
    if (!outcome.ok || !applied.event) return outcome;
    logger.info(
      { id, user: userId, approvals: outcome.request.approvals.length, executing: quorum },
      'withdrawal approved',
    );
    try {
      if (hooks.afterApprovalDurable) await hooks.afterApprovalDurable(outcome.request);
    } catch (err) {
      head?.release();
      throw err;
    }
    return quorum ? { ...outcome, execution: sender.start(outcome.request, head) } : outcome;
  }

  async function reject(id: string, userId: string, reason: string): Promise<DecisionOutcome> {
    const early = stateRefusal(stored(id), userId, now());
    if (early) return refusalOutcome(early);
    const { isApprover } = await standingIn(userId);
    const applied = await commitOn(id, { type: 'reject', user: userId, isApprover, reason: String(reason ?? '') });
    if (applied.event) {
      logger.info({ id, user: userId }, 'withdrawal rejected');
    }
    return outcomeOf(applied);
  }

  async function resolveUnknown(
    id: string,
    adminId: string,
    outcome: 'sent' | 'not_sent',
    note: string,
  ): Promise<DecisionOutcome> {
    const isAdmin = await hasRole(policy.current(), 'admins', adminId, groups);
    const applied = await commitOn(id, {
      type: 'resolve-unknown',
      admin: adminId,
      isAdmin,
      outcome,
      note: String(note ?? ''),
    });
    return outcomeOf(applied);
  }

  async function settleHold(
    id: string,
    adminId: string,
    action: 'release' | 'reject',
    reason: string,
  ): Promise<DecisionOutcome> {
    const isAdmin = await hasRole(policy.current(), 'admins', adminId, groups);
    const applied = await commitOn(id, {
      type: 'settle-hold',
      admin: adminId,
      isAdmin,
      action,
      reason: String(reason ?? ''),
    });
    const outcome = outcomeOf(applied);
    if (!outcome.ok || !applied.event) return outcome;
    logger.warn({ id, admin: adminId, action }, 'a withdrawal on hold was decided by an admin');
    // Released past its expiry: it expired instead (nothing sent); the admin is told why, in the form.
    if (applied.event.type === 'expired') return { ok: false, reason: 'expired', message: RELEASED_AFTER_EXPIRY };
    // Released with its approvals complete: sent now, once (the usual claim); pending ones when their last approval comes.
    return applied.event.type === 'released' && outcome.request.state === 'approved'
      ? { ...outcome, execution: sender.start(outcome.request) }
      : outcome;
  }

  return { approve, reject, resolveUnknown, settleHold };
}
