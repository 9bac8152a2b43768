/**
 * A request judged again under the policy in force, which may have changed since it was
 * requested or approved (governed policy): before it is claimed for sending, and for every
 * pending request when a change applies. Pure: whatever needs I/O (who is still an approver,
 * whom the new tier's must_include entries match) is resolved by the shell and passed in.
 */
import type { Policy } from '../policy/schema.js';
import { addressFamily } from '../wallet/addresses.js';
import { CURRENCIES, NETWORKS, lookup } from '../wallet/enums.js';
import { formatAmount } from './money.js';
import { needsStepUp } from '../stepup/threshold.js';
import { approvalsComplete, checkAllowlist, selectTier, type AllowlistApprovals } from './rules.js';
import type { WithdrawalRequest } from './types.js';
import type { Valuation } from '../prices/types.js';

/** Per approver of the request: still an approver in the policy in force, and the new tier's must_include entries they match. */
export type RecheckFacts = Readonly<Record<string, { isApprover: boolean; satisfies: readonly string[] }>>;

export type RecheckResult =
  /** `next`: the request with the tier and approvals as the policy in force counts them. */
  | { kind: 'passes'; next: WithdrawalRequest; changed: boolean }
  | { kind: 'waits'; next: WithdrawalRequest; missing: string }
  | { kind: 'refused'; reason: string };

/**
 * `valuation`: the value recomputed with a fresh price (before a send), which picks the tier and
 * the step-up rule of `value` entries; absent: the value recorded on the request.
 */
export function recheck(
  req: WithdrawalRequest,
  ctx: { now: number; policy: Policy; allowlistApprovals?: AllowlistApprovals | undefined },
  facts: RecheckFacts,
  valuation?: Valuation,
): RecheckResult {
  const value = valuation ?? req.sendValuation ?? req.valuation;
  const currency = lookup(CURRENCIES, req.currency);
  const network = lookup(NETWORKS, req.network);
  if (!currency || !network) return { kind: 'refused', reason: 'its currency or network is no longer known' };
  const allow = checkAllowlist(
    ctx.policy,
    { family: addressFamily(network), destination: req.destination, network },
    [],
    { now: ctx.now, approvals: ctx.allowlistApprovals },
  );
  if ('ok' in allow) return { kind: 'refused', reason: allow.message };
  const tier = selectTier(ctx.policy, req.currency, req.amount, value);
  if (!tier)
    return {
      kind: 'refused',
      reason: `no approval tier of the policy in force covers ${formatAmount(req.amount, req.currency)}`,
    };
  // Approvals given while the card said "allowlisted" were given on that assurance: if the address
  // has left the allowlist (or is cooling off again), they no longer count and approvers decide anew.
  const lostAllowlist = req.allowlist.status === 'listed' && allow.status === 'unlisted';
  // A policy that now asks for an authenticator code at this amount: approvals given without one no longer count.
  const codeNeeded = needsStepUp(ctx.policy, req.currency, req.amount, value);
  const withoutCode = codeNeeded && req.approvals.some((a) => a.stepUp !== 'verified');
  // Approvals of people who are no longer approvers do not count; the others count against the new tier.
  const approvals = req.approvals
    .filter((a) => !lostAllowlist && facts[a.user]?.isApprover !== false && (!codeNeeded || a.stepUp === 'verified'))
    .map((a) => ({
      ...a,
      satisfies: [...(facts[a.user]?.satisfies ?? a.satisfies)].filter((e) => tier.mustInclude.includes(e)),
    }));
  const next: WithdrawalRequest = {
    ...req,
    tier,
    approvals,
    allowlist: { ...allow, neverPaidBefore: req.allowlist.neverPaidBefore },
    ...(valuation ? { sendValuation: valuation } : {}),
  };
  const changed =
    JSON.stringify([req.tier, req.approvals, req.allowlist.status]) !==
    JSON.stringify([tier, approvals, next.allowlist.status]);
  if (approvalsComplete(next)) return { kind: 'passes', next, changed };
  const left = Math.max(0, tier.approvals - approvals.length);
  const must = tier.mustInclude.filter((e) => !approvals.some((a) => a.satisfies.includes(e)));
  const parts = [
    left ? `${left} more approval${left === 1 ? '' : 's'}` : '',
    must.length
      ? `the approval of ${must.map((m) => (m.startsWith('S') ? `<!subteam^${m}>` : `<@${m}>`)).join(', ')}`
      : '',
  ].filter(Boolean);
  const missing = parts.join(', including ') || 'more approvals';
  return {
    kind: 'waits',
    next,
    missing: lostAllowlist
      ? `${missing}, given again: the destination is no longer on the allowlist`
      : withoutCode
        ? `${missing}, given with an authenticator code (the policy in force asks for one at this amount)`
        : tier.basis === 'value' && tier.index > req.tier.index
          ? `${missing}: ${value?.kind === 'known' ? 'its value rose into a higher tier' : `its value is unknown now (${value?.reason ?? 'no price'})`}`
          : missing,
  };
}
