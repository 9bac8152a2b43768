/**
 * Whether approving a withdrawal needs a step-up code: the policy's `withdrawals.step_up_above`
 * for the currency (else its `default`), compared as decimals. Read from the policy passed in,
 * at the moment of use, so a changed policy applies to the next click.
 */
import type { Policy } from '../policy/schema.js';
import { Dec } from '../withdrawals/money.js';

/** The amount above which approving needs a code, or undefined when the policy sets none for this currency. */
export function stepUpAbove(policy: Policy, currency: string): string | undefined {
  const above = policy.withdrawals.step_up_above;
  return above[currency] ?? above.default;
}

export function needsStepUp(policy: Policy, currency: string, amount: string): boolean {
  const above = stepUpAbove(policy, currency);
  return above !== undefined && new Dec(amount).gt(above);
}
