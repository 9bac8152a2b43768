/**
 * The policy rules a withdrawal request must pass before anyone is asked to approve it, and
 * the rules of who may decide on it (shared by the decider and the Slack layer's early checks).
 * Pure functions over the policy and the requests already stored, so the service can run
 * the stateful ones (daily limit, "never paid before") inside its commit.
 */
import { sameAddress, sameDestination } from './destinations.js';
import type { PaidSummary } from './paid-summary.js';
import type { Policy } from '../policy/schema.js';
import { formatAmount } from '../format/amount.js';
import { Dec, sumAmounts } from '../money/decimal.js';
import { checkInput, type CheckedInput, type Refusal } from './input.js';
import { utcMinute } from '../format/time.js';
import { addressKey, type AddressApproval } from '../policy/governance/types.js';
import type { PriceSnapshot } from '../prices/index.js';
import {
  NOT_COUNTED_STATES,
  type AllowlistInfo,
  type DecisionReason,
  type RequestInput,
  type RequestRule,
  type WithdrawalRequest,
  type WithdrawalState,
} from './types.js';

export const DAY_MS = 24 * 3_600_000;

/** A state in the words the card uses ("✅ Sent", "⛔ Rejected"...), for sentences. */
export function stateWords(state: WithdrawalState): string {
  const words: Record<WithdrawalState, string> = {
    pending: 'waiting for approvals',
    approved: 'being sent',
    executing: 'being sent',
    completed: 'sent',
    failed: 'failed (nothing was sent)',
    unknown: 'of unknown outcome',
    rejected: 'rejected',
    expired: 'expired',
  };
  return words[state];
}

/** What every audit entry about a request carries, so a row reads on its own (amount, payee, reference). */
export const about = (r: WithdrawalRequest) => ({
  amount: r.amount,
  currency: r.currency,
  network: r.network,
  destination: r.destination,
  merchantReference: r.merchantReference,
});

/** A decision refused: the reason (a code for callers and tests) and the words a person sees. */
export type Refused<Reason extends string> = { kind: 'refused'; reason: Reason; message: string };

// The input's rules live in input.ts (every field checked at once); re-exported for the callers of this module.
export { checkInput, selectTier, type CheckedInput, type Problem, type Refusal } from './input.js';
export { sameAddress, sameDestination } from './destinations.js';

const refuse = (rule: RequestRule, message: string): Refusal => ({ ok: false, rule, message });
export const refused = <Reason extends string>(reason: Reason, message: string): Refused<Reason> => ({
  kind: 'refused',
  reason,
  message,
});

/** When each allowlisted address was approved, by addressKey (governed policy); absent: usable at once. */
export type AllowlistApprovals = Readonly<Record<string, AddressApproval>>;

/**
 * When an allowlisted address becomes usable: `cooloff` after the change that added it was
 * approved; at once for the first policy ever loaded, or when no approval time is known.
 */
export function usableFrom(
  policy: Policy,
  entry: { network: string; address: string },
  approvals: AllowlistApprovals | undefined,
): number | undefined {
  const a = approvals?.[addressKey(entry.network, entry.address)];
  if (!a || a.initial) return undefined;
  return Date.parse(a.approvedAt) + policy.withdrawals.allowlist.cooloff;
}

/**
 * Allowlist rule (enforce refuses, warn flags, off ignores) and the "never paid before" flag.
 * An address still cooling off (`cooling`: the time and the approval times) counts as not
 * (yet) on the allowlist.
 */
export function checkAllowlist(
  policy: Policy,
  c: Pick<CheckedInput, 'family' | 'destination' | 'network'>,
  existing: readonly WithdrawalRequest[],
  cooling?: { now: number; approvals: AllowlistApprovals | undefined },
  paid?: PaidSummary,
): AllowlistInfo | Refusal {
  const { mode, addresses } = policy.withdrawals.allowlist;
  // The same grouping as the limits and the new-destination rule: an EVM address paid on one EVM network was paid.
  const to = { network: c.network.name, destination: c.destination };
  const neverPaidBefore =
    !paid?.destination(to) && !existing.some((r) => r.state === 'completed' && sameDestination(r, to));
  if (mode === 'off') return { status: 'off', neverPaidBefore };
  const entry = addresses.find((a) => a.network === c.network.name && sameAddress(c.family, a.address, c.destination));
  const from = entry && cooling ? usableFrom(policy, entry, cooling.approvals) : undefined;
  if (entry && from !== undefined && cooling && cooling.now < from) {
    if (mode === 'enforce')
      return refuse(
        'allowlist',
        `${c.destination} on ${c.network.name} is allowlisted as ${entry.label}, but a newly approved address is usable only from ${utcMinute(from)} (cooling-off), and the policy only allows withdrawals to allowlisted addresses.`,
      );
    return { status: 'unlisted', label: entry.label, usableFrom: new Date(from).toISOString(), neverPaidBefore };
  }
  if (entry) return { status: 'listed', label: entry.label, neverPaidBefore };
  if (mode === 'enforce') {
    return refuse(
      'allowlist',
      `${c.destination} on ${c.network.name} is not on the allowlist, and the policy only allows withdrawals to allowlisted addresses.`,
    );
  }
  return { status: 'unlisted', neverPaidBefore };
}

/**
 * When a request starts counting in a rolling window: when it was made; for money gone or going
 * (executing, unknown, completed), the later of that and when it was claimed for sending, so a
 * request approved late does not leave the window early (it is paid at the send, not at the ask).
 */
export function countsFrom(r: Pick<WithdrawalRequest, 'createdAt' | 'state' | 'history'>): number {
  const made = Date.parse(r.createdAt);
  if (r.state !== 'executing' && r.state !== 'unknown' && r.state !== 'completed') return made;
  const claim = r.history.filter((h) => h.state === 'executing').at(-1);
  return claim ? Math.max(made, Date.parse(claim.at)) : made;
}

/** Requests in the rolling 24 h window that count towards the daily limit: every state except rejected, expired, failed. */
export function countedRequests(
  existing: readonly WithdrawalRequest[],
  currency: string,
  nowMs: number,
): WithdrawalRequest[] {
  const since = nowMs - DAY_MS;
  return existing.filter(
    (r) => r.currency === currency && !NOT_COUNTED_STATES.includes(r.state) && countsFrom(r) > since,
  );
}

export interface DailyUsage {
  currency: string;
  used: string;
  limit: string | null;
  remaining: string | null;
}

export function dailyUsage(
  policy: Policy,
  existing: readonly WithdrawalRequest[],
  currency: string,
  nowMs: number,
): DailyUsage {
  const used = sumAmounts(countedRequests(existing, currency, nowMs).map((r) => r.amount));
  const limit = policy.withdrawals.daily_limit[currency];
  return {
    currency,
    used: used.toFixed(),
    limit: limit ?? null,
    remaining: limit === undefined ? null : Dec.max(0, new Dec(limit).minus(used)).toFixed(),
  };
}

/**
 * The `balance` rule: a request (or a send) larger than the origin account's balance is refused,
 * in the words a person reads. An unknown balance (undefined) passes: see the callers for why.
 */
export function checkBalance(
  balance: string | undefined,
  c: { amount: string; currency: string; network: string },
): Refusal | undefined {
  if (balance === undefined || new Dec(c.amount).lte(balance)) return undefined;
  return refuse(
    'balance',
    `The balance is ${formatAmount(balance, c.currency)} on ${c.network}; this request is for ${formatAmount(c.amount, c.currency).replace(/ \S+$/, '')}.`,
  );
}

// ------------------------------------------------------------------ who may decide, and when

/** Before anything is stored: who may request, and the stateless rules of the input. */
export function admitRequest(
  policy: Policy,
  input: RequestInput,
  isRequester: boolean,
  prices?: PriceSnapshot,
): CheckedInput | Refusal {
  if (!isRequester) {
    return {
      ok: false,
      rule: 'not_requester',
      message:
        'You are not allowed to request withdrawals: only the people listed under people.requesters in the treasury policy can.',
    };
  }
  return checkInput(policy, input, prices);
}

/**
 * Whether `user` may approve or reject the request now: the refusal, or undefined. Shared by
 * approve, reject and the Slack layer's early check (before it opens the reason modal).
 * The two parts below, in this order: callers resolve `isApprover` (which may ask Slack for
 * group members) only once `stateRefusal` has passed.
 */
export function decisionRefusal(
  req: WithdrawalRequest | undefined,
  user: string,
  kind: 'approve' | 'reject',
  facts: { isApprover: boolean; now: number },
): Refused<DecisionReason> | undefined {
  return stateRefusal(req, user, facts.now) ?? roleRefusal(req!, user, kind, facts.isApprover);
}

/** The refusals that need no fact about the user's roles: no such request, not pending, expired, their own. */
export function stateRefusal(
  req: WithdrawalRequest | undefined,
  user: string,
  now: number,
): Refused<DecisionReason> | undefined {
  if (!req) return refused('not_found', 'There is no such withdrawal request.');
  // A batch row is decided only with its batch, on the batch card: never one row at a time.
  if (req.batch) return refused('not_pending', 'This payment is part of a batch payout: decide on the batch card.');
  if (req.state !== 'pending')
    return refused(
      'not_pending',
      req.hold && req.state === 'approved'
        ? 'This request has every approval it needs and is on hold: an admin decides whether it is sent.'
        : `This request is no longer waiting for decisions: it is ${stateWords(req.state)}.`,
    );
  if (now >= Date.parse(req.expiresAt)) return refused('expired', 'This request has expired.');
  if (req.requester === user) return refused('own_request', 'You cannot decide on your own withdrawal request.');
  return undefined;
}

/** The refusals about the user, on a request that passed `stateRefusal`: not an approver, already approved. */
export function roleRefusal(
  req: WithdrawalRequest,
  user: string,
  kind: 'approve' | 'reject',
  isApprover: boolean,
): Refused<DecisionReason> | undefined {
  if (!isApprover) return refused('not_approver', 'You are not an approver in the treasury policy.');
  if (req.approvals.some((a) => a.user === user)) {
    return kind === 'approve'
      ? refused('already_approved', 'You have already approved this request.')
      : refused(
          'already_approved',
          'You have already approved this request, so you cannot also reject it; ask another approver.',
        );
  }
  return undefined;
}

/**
 * The must_include entries left unfilled when each approval fills at most one place: a maximum
 * matching of entries to distinct approvals (an approval may match several entries, e.g. a
 * delegate for their delegator, or a person named and in a group named; it still is one vote).
 * Entries are few: a simple augmenting-path matching.
 */
export function unfilledPlaces(
  entries: readonly string[],
  approvals: readonly { satisfies: readonly string[] }[],
): string[] {
  const holder = new Map<number, number>(); // approval index → entry index it fills
  const place = (e: number, seen: Set<number>): boolean => {
    for (let i = 0; i < approvals.length; i++) {
      if (seen.has(i) || !approvals[i]!.satisfies.includes(entries[e]!)) continue;
      seen.add(i);
      const other = holder.get(i);
      if (other === undefined || place(other, seen)) {
        holder.set(i, e);
        return true;
      }
    }
    return false;
  };
  return entries.filter((_, e) => !place(e, new Set()));
}

/**
 * The tier's must_include entries not filled yet (each approval fills one place at most), when
 * the remaining approval slots are all reserved for them (so only someone filling one may
 * approve); else [].
 */
export function reservedFor(req: Pick<WithdrawalRequest, 'tier' | 'approvals'>): string[] {
  const missing = unfilledPlaces(req.tier.mustInclude, req.approvals);
  const slotsLeft = req.tier.approvals - req.approvals.length;
  return missing.length >= slotsLeft ? missing : [];
}

/** Whether one more approval satisfying `satisfies` fills a must_include place still open. */
export const fillsAPlace = (
  req: Pick<WithdrawalRequest, 'tier' | 'approvals'>,
  satisfies: readonly string[],
): boolean =>
  unfilledPlaces(req.tier.mustInclude, [...req.approvals, { satisfies }]).length <
  unfilledPlaces(req.tier.mustInclude, req.approvals).length;

export function approvalsComplete(req: Pick<WithdrawalRequest, 'tier' | 'approvals'>): boolean {
  if (req.approvals.length < req.tier.approvals) return false;
  return unfilledPlaces(req.tier.mustInclude, req.approvals).length === 0;
}

/** Whether a reminder is due: pending, not reminded yet, within remind_before of an expiry not yet reached. */
export function reminderDue(req: WithdrawalRequest, now: number, remindBeforeMs: number): boolean {
  const expiresAt = Date.parse(req.expiresAt);
  return req.state === 'pending' && !req.reminderSentAt && now >= expiresAt - remindBeforeMs && now < expiresAt;
}

export const expiryDue = (req: WithdrawalRequest, now: number): boolean =>
  req.state === 'pending' && now >= Date.parse(req.expiresAt);
