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
import type { MissingApprovals, WithdrawalRequest } from './types.js';
import type { Valuation } from '../prices/types.js';

/** Per approver of the request: still an approver in the policy in force, and the new tier's must_include entries they match. */
export type RecheckFacts = Readonly<Record<string, { isApprover: boolean; satisfies: readonly string[] }>>;

export type RecheckResult =
  /** `next`: the request with the tier and approvals as the policy in force counts them. */
  | { kind: 'passes'; next: WithdrawalRequest; changed: boolean }
  | { kind: 'waits'; next: WithdrawalRequest; missing: MissingApprovals }
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
  const mustInclude = tier.mustInclude.filter((e) => !approvals.some((a) => a.satisfies.includes(e)));
  const because: Pick<MissingApprovals, 'because' | 'valueReason'> = lostAllowlist
    ? { because: 'allowlist' }
    : withoutCode
      ? { because: 'code' }
      : tier.basis === 'value' && tier.index > req.tier.index
        ? value?.kind === 'known'
          ? { because: 'value-rose' }
          : { because: 'value-unknown', valueReason: value?.reason ?? 'no price' }
        : {};
  return { kind: 'waits', next, missing: { left, mustInclude, ...because } };
}

/**
 * What a request waiting again still needs, in words: the one wording of the history note, the
 * audit entry and the thread line. `who` names a must_include entry (a Slack id): plainly in the
 * domain, as a mention on the Slack side.
 */
export function missingWords(m: MissingApprovals, who: (id: string) => string): string {
  const parts = [
    m.left ? `${m.left} more approval${m.left === 1 ? '' : 's'}` : '',
    m.mustInclude.length ? `the approval of ${m.mustInclude.map(who).join(', ')}` : '',
  ].filter(Boolean);
  const missing = parts.join(', including ') || 'more approvals';
  switch (m.because) {
    case 'allowlist':
      return `${missing}, given again: the destination is no longer on the allowlist`;
    case 'code':
      return `${missing}, given with an authenticator code (the policy in force asks for one at this amount)`;
    case 'value-rose':
      return `${missing}: its value rose into a higher tier`;
    case 'value-unknown':
      return `${missing}: its value is unknown now (${m.valueReason ?? 'no price'})`;
    default:
      return missing;
  }
}

/** The history note of a request waiting again (see missingWords for `who`). */
export const waitingAgainNote = (m: MissingApprovals, who: (id: string) => string): string =>
  `the policy in force now needs ${missingWords(m, who)}`;
