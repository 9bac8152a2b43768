/**
 * A request judged again by the rule table (rule-table.ts) with the facts of this moment: at each
 * approval, before it is claimed for sending, in the verification callback, and for every pending
 * request when a policy change applies. Pure: whatever needs I/O (who is still an approver, whom
 * the new tier's must_include entries match, the prices, the other requests) is passed in.
 */
import type { PaidSummary } from './paid-summary.js';
import type { Policy } from '../policy/schema.js';
import { valueAt } from '../prices/value.js';
import type { PriceSnapshot, Valuation } from '../prices/types.js';
import { approvalsComplete, unfilledPlaces, type AllowlistApprovals } from './rules.js';
import { judge, type RuleName, type Step } from './rule-table.js';
import type { Approval, Delegated, MissingApprovals, WithdrawalRequest } from './types.js';
import type { AwayRecord } from '../away/state.js';
import type { ScreeningFacts } from '../screening/types.js';

/**
 * Per approver of the request: still an approver in the policy in force, the new tier's
 * must_include entries they match, and (`satisfiesFor`) those each person they approved for
 * under a recorded delegation matches beyond their own.
 */
export type RecheckFacts = Readonly<
  Record<
    string,
    { isApprover: boolean; satisfies: readonly string[]; satisfiesFor?: Readonly<Record<string, readonly string[]>> }
  >
>;

/** The approvers as they approved (nothing about them looked up again): for a re-check of the value alone. */
export const factsAsRecorded = (req: WithdrawalRequest): RecheckFacts =>
  Object.fromEntries(
    req.approvals.map((a) => {
      const lent = new Set((a.delegations ?? []).flatMap((d) => d.satisfies));
      return [
        a.user,
        {
          isApprover: true,
          satisfies: a.satisfies.filter((e) => !lent.has(e)),
          satisfiesFor: Object.fromEntries((a.delegations ?? []).map((d) => [d.user, d.satisfies])),
        },
      ];
    }),
  );

/**
 * Whether a delegation an approval was given under still stands at this step: the away record it
 * was given under is the one stored (not ended by `/treasury back` or an admin, nor replaced).
 * A record past its end stays stored: it ended on time, after the approval, and still counts.
 */
function stands(a: Approval, d: Delegated, records: readonly AwayRecord[] | undefined): boolean {
  if (!records) return true;
  const r = records.find((x) => x.id === d.user);
  return r !== undefined && r.at === d.setAt && r.delegate === a.user;
}

/** An approval counted again: its own places, and those of each delegation it was given under that still stands. */
function recounted(
  a: Approval,
  facts: RecheckFacts,
  mustInclude: readonly string[],
  records?: readonly AwayRecord[],
): Approval {
  const f = facts[a.user];
  const inTier = (e: string) => mustInclude.includes(e);
  const own = (f?.satisfies ?? a.satisfies).filter(inTier);
  if (!a.delegations) return { ...a, satisfies: own };
  const kept = a.delegations.filter((d) => stands(a, d, records));
  // Whom a delegation ended early was for: no longer this approval's vote (they may give their own).
  const ended = new Set(a.delegations.filter((d) => !kept.includes(d)).map((d) => d.user));
  const stillFor = (a.for ?? []).filter((u) => !ended.has(u));
  const counted = kept.map((d) => ({
    ...d,
    satisfies: [...(f?.satisfiesFor?.[d.user] ?? d.satisfies)].filter((e) => inTier(e) && !own.includes(e)),
  }));
  const { for: _for, delegations: _d, ...rest } = a;
  return {
    ...rest,
    satisfies: [...new Set([...own, ...counted.flatMap((d) => d.satisfies)])],
    ...(stillFor.length ? { for: stillFor } : {}),
    ...(counted.length ? { delegations: counted } : {}),
  };
}

/** A limit the request would cross now (or the freeze): not sent while it stands. */
export interface Hold {
  rule: RuleName;
  message: string;
  until: 'release' | 'unfreeze';
}

export type RecheckResult =
  /** `next`: the request with the tier and approvals as the policy in force counts them. */
  | { kind: 'passes'; next: WithdrawalRequest; changed: boolean; holds: Hold[] }
  | { kind: 'waits'; next: WithdrawalRequest; missing: MissingApprovals; holds: Hold[] }
  | { kind: 'refused'; reason: string; rule: RuleName };

/** The context of one judgement: the decider's, with the facts read in its commit. */
export interface RecheckContext {
  now: number;
  policy: Policy;
  allowlistApprovals?: AllowlistApprovals | undefined;
  prices?: PriceSnapshot | undefined;
  /** Read lazily: only the limits' windows need them. */
  requests?: (() => readonly WithdrawalRequest[]) | undefined;
  /** What the completed payments no longer in memory tell (paid-summary.ts); absent: nothing known paid (the strict reading). */
  paid?: PaidSummary | undefined;
  frozen?: { by: string; reason: string } | undefined;
  screening?: ScreeningFacts | undefined;
  /** The away records in this commit: whether each delegation an approval was given under still stands. */
  away?: (() => readonly AwayRecord[]) | undefined;
}

/** The request's value for the rules now: at the policy price of the cache; as recorded when the app has no prices. */
export function valuationNow(req: WithdrawalRequest, prices: PriceSnapshot | undefined): Valuation | undefined {
  return prices ? valueAt(prices, req.currency, req.amount) : (req.sendValuation ?? req.valuation);
}

/**
 * `valuation`: the value at a fresh price (given by the caller, or read from `ctx.prices`), which
 * picks the tier and the value rules; absent both: the value recorded on the request.
 */
export function recheck(
  req: WithdrawalRequest,
  ctx: RecheckContext,
  facts: RecheckFacts,
  valuation?: Valuation,
  step: Step = 'send',
): RecheckResult {
  const value = valuation ??
    valuationNow(req, ctx.prices) ?? { kind: 'unknown' as const, reason: 'no price was read', since: null };
  const j = judge(req, {
    step,
    now: ctx.now,
    policy: ctx.policy,
    valuation: value,
    prices: ctx.prices,
    requests: ctx.requests ?? (() => []),
    paid: ctx.paid,
    allowlistApprovals: ctx.allowlistApprovals,
    frozen: ctx.frozen,
    screening: ctx.screening,
  });
  if (j.refusal || !j.tier)
    return { kind: 'refused', reason: j.refusal?.message ?? 'no tier', rule: j.refusal?.rule ?? 'tier' };
  const tier = j.tier;
  const records = ctx.away?.();
  // Approvals of people who are no longer approvers do not count; the others count against the new tier.
  const approvals = j.approvals
    .filter((a) => facts[a.user]?.isApprover !== false)
    .map((a) => recounted(a, facts, tier.mustInclude, records));
  const fresh = valuation ?? (ctx.prices ? value : undefined);
  const next: WithdrawalRequest = {
    ...req,
    tier,
    approvals,
    allowlist: j.allowlist ?? req.allowlist,
    ...(j.limits ? { limits: j.limits } : {}),
    // An approval does not judge the list's age (the send does): the card keeps saying it was stale.
    ...(j.screening
      ? {
          screening: {
            ...j.screening,
            ...(step === 'approve' && req.screening?.stale ? { stale: req.screening.stale } : {}),
          },
        }
      : {}),
    // The value judged at this step, shown on the card (the one at the request stays in `valuation`).
    ...(fresh ? { sendValuation: fresh } : {}),
  };
  const changed =
    JSON.stringify([req.tier, req.approvals, req.allowlist.status]) !==
    JSON.stringify([tier, approvals, next.allowlist.status]);
  if (approvalsComplete(next)) return { kind: 'passes', next, changed, holds: j.holds };
  const left = Math.max(0, tier.approvals - approvals.length);
  const mustInclude = unfilledPlaces(tier.mustInclude, approvals);
  const because: Pick<MissingApprovals, 'because' | 'valueReason'> =
    j.because === 'value-unknown'
      ? { because: 'value-unknown', valueReason: value.kind === 'unknown' ? value.reason : 'no price' }
      : j.because
        ? { because: j.because }
        : {};
  return { kind: 'waits', next, missing: { left, mustInclude, ...because }, holds: j.holds };
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
    case 'passkey':
      return `${missing}, given with a passkey (the policy in force asks for one at this amount)`;
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
