/**
 * A new request: an idempotent retry, the link to an earlier request of the same payout
 * (hold/), then the allowlist, the daily limit and the balance, decided inside the
 * shell's commit so two racing requests cannot both fit under the limit.
 */
import { checkBalance, refused } from '../rules.js';
import { judge, type RuleName } from '../rule-table.js';
import { repeatRefusal, retypedHold } from '../hold/decide.js';
import { retypedHoldWords } from '../hold/words.js';
import { retypedRepeatOf } from '../hold/family.js';
import type { RequestRule, WithdrawalRequest } from '../types.js';
import type { DecideContext, Decision, WithdrawalCommand } from './types.js';
import { iso, unchanged } from './transition.js';
import { NO_PRICES } from '../../prices/value.js';

/** The request's refusal code for each rule of the table (what callers and tests read). */
const REQUEST_RULE: Record<RuleName, RequestRule> = {
  sanctions: 'sanctions',
  stale_list: 'stale_list',
  lookalike: 'tier',
  freeze: 'daily_limit',
  allowlist: 'allowlist',
  tier: 'tier',
  step_up: 'tier',
  note: 'note',
  daily_limit: 'daily_limit',
  daily_value_limit: 'daily_limit',
  rolling_limits: 'rolling_limit',
  new_destination: 'tier',
};

export function decideRequest(
  c: Extract<WithdrawalCommand, { type: 'request' }>,
  ctx: DecideContext,
): Decision<RequestRule> {
  const again = c.idempotencyKey
    ? c.existing.find((r) => r.idempotencyKey === c.idempotencyKey && r.requester === c.requester)
    : undefined;
  if (again) return unchanged(again);
  // Retyped by hand with the details of a request the service never executed: the same payout (hold/).
  const details = {
    destination: c.checked.destination,
    amount: c.checked.amount,
    currency: c.checked.currency.name,
    network: c.checked.network.name,
    clientEmail: c.checked.clientEmail,
  };
  const linked = c.repeatOf ? undefined : retypedRepeatOf(details, c.existing);
  const repeatOf = c.repeatOf ?? (linked ? { id: linked.id, original: linked } : undefined);
  // "New request with the same details" is refused where its payout is under way or was reported;
  // a retyped one never is: it is made on hold instead, for an admin (it may be a separate payout).
  const notRepeatable = c.repeatOf ? repeatRefusal(c.repeatOf.original, c.existing) : undefined;
  if (notRepeatable) return notRepeatable;
  const hold = linked ? retypedHold(details, c.existing, iso(ctx.now)) : undefined;
  const valuation = c.checked.valuation ?? { kind: 'unknown', reason: 'no price was read', since: null };
  const at = iso(ctx.now);
  const candidate: WithdrawalRequest = {
    id: c.id,
    merchantReference: c.merchantReference,
    requester: c.requester,
    amount: c.checked.amount,
    currency: c.checked.currency.name,
    network: c.checked.network.name,
    destination: c.checked.destination,
    clientEmail: c.checked.clientEmail,
    note: c.checked.note,
    state: 'pending',
    tier: c.checked.tier,
    approvals: [],
    createdAt: at,
    expiresAt: iso(ctx.now + ctx.policy.withdrawals.expires_after),
    allowlist: { status: 'off', neverPaidBefore: true },
    history: [],
  };
  // The rule table at the request, inside the shell's commit: two requests racing cannot both fit
  // under a limit; an unknown value counts as over a value limit (invariant 16).
  const judged = judge(candidate, {
    step: 'request',
    now: ctx.now,
    policy: ctx.policy,
    valuation,
    prices: c.prices ?? ctx.prices ?? NO_PRICES,
    requests: () => c.existing,
    paid: ctx.paid,
    allowlistApprovals: ctx.allowlistApprovals,
    screening: ctx.screening,
  });
  if (judged.refusal) return refused(REQUEST_RULE[judged.refusal.rule], judged.refusal.message);
  const over = judged.holds[0];
  if (over) return refused(REQUEST_RULE[over.rule], over.message);
  const allowlist = judged.allowlist ?? { status: 'off', neverPaidBefore: true };
  const short = checkBalance(c.balance ?? undefined, {
    amount: c.checked.amount,
    currency: c.checked.currency.name,
    network: c.checked.network.name,
  });
  if (short) return refused(short.rule, short.message);
  const req: WithdrawalRequest = {
    ...candidate,
    ...(c.idempotencyKey ? { idempotencyKey: c.idempotencyKey } : {}),
    ...(c.requestedFrom ? { requestedFrom: c.requestedFrom } : {}),
    tier: judged.tier ?? c.checked.tier,
    ...(judged.limits ? { limits: judged.limits } : {}),
    valuation,
    allowlist,
    ...(judged.screening ? { screening: judged.screening } : {}),
    ...(c.newClient ? { newClient: true as const } : {}),
    ...(c.balance !== undefined ? { balanceAtRequest: { balance: c.balance, at } } : {}),
    ...(repeatOf ? { repeatOf: repeatOf.id } : {}),
    ...(linked ? { repeatLinked: 'same-details' as const } : {}),
    ...(hold ? { hold } : {}),
    history: [{ at, state: 'pending', by: c.requester }],
  };
  const { merchantReference, amount, currency, network, destination, clientEmail, note, tier, expiresAt } = req;
  return {
    kind: 'changed',
    next: req,
    audit: {
      at,
      actor: c.requester,
      action: 'request',
      subject: req.id,
      details: {
        merchantReference,
        amount,
        currency,
        network,
        destination,
        clientEmail,
        note,
        tier,
        allowlist,
        expiresAt,
        value: valuation,
        ...(req.screening ? { screening: req.screening } : {}),
        ...(req.balanceAtRequest ? { balance: req.balanceAtRequest.balance } : {}),
        ...(req.newClient ? { newClient: 'no address or transaction on record for this client' } : {}),
        ...(req.repeatOf ? { repeatOf: req.repeatOf } : {}),
        ...(linked
          ? {
              repeatLinked:
                'same destination, amount, currency, network and client wallet as an earlier request the wallet service never executed: the same payout',
            }
          : {}),
        ...(hold
          ? {
              hold: `made on hold: ${retypedHoldWords(
                hold,
                c.existing.find((r) => r.id === hold.original),
              )}`,
              holdOf: hold.original,
            }
          : {}),
      },
    },
    event: 'requested',
  };
}
