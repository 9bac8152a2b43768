/**
 * A new request: an idempotent retry, the link to an earlier request of the same payout
 * (hold/), then the allowlist, the daily limit and the balance, decided inside the
 * shell's commit so two racing requests cannot both fit under the limit.
 */
import { checkAllowlist, checkBalance, checkDailyLimit, refused } from '../rules.js';
import { repeatRefusal, retypedHold } from '../hold/decide.js';
import { retypedHoldWords } from '../hold/words.js';
import { retypedRepeatOf } from '../hold/family.js';
import type { RequestRule, WithdrawalRequest } from '../types.js';
import type { DecideContext, Decision, WithdrawalCommand } from './index.js';
import { iso, unchanged } from './transition.js';
import { dailyValueRefusal } from '../value-rules.js';
import { NO_PRICES } from '../../prices/value.js';

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
  const allowlist = checkAllowlist(ctx.policy, c.checked, c.existing, {
    now: ctx.now,
    approvals: ctx.allowlistApprovals,
  });
  if ('ok' in allowlist) return refused(allowlist.rule, allowlist.message);
  // Decided inside the shell's commit: two requests racing cannot both fit under the limit.
  const over = checkDailyLimit(ctx.policy, c.existing, c.checked.currency.name, c.checked.amount, ctx.now);
  if (over) return refused(over.rule, over.message);
  // The daily limit by value, across every currency; an unknown value counts as over it (invariant 16).
  const valuation = c.checked.valuation ?? { kind: 'unknown', reason: 'no price was read', since: null };
  const overValue = dailyValueRefusal(
    ctx.policy,
    c.existing,
    { currency: c.checked.currency.name, valuation },
    c.prices ?? NO_PRICES,
    ctx.now,
  );
  if (overValue) return refused('daily_limit', overValue);
  const short = checkBalance(c.balance ?? undefined, {
    amount: c.checked.amount,
    currency: c.checked.currency.name,
    network: c.checked.network.name,
  });
  if (short) return refused(short.rule, short.message);
  const at = iso(ctx.now);
  const req: WithdrawalRequest = {
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
    ...(c.idempotencyKey ? { idempotencyKey: c.idempotencyKey } : {}),
    ...(c.requestedFrom ? { requestedFrom: c.requestedFrom } : {}),
    tier: c.checked.tier,
    approvals: [],
    valuation,
    createdAt: at,
    expiresAt: iso(ctx.now + ctx.policy.withdrawals.expires_after),
    allowlist,
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
