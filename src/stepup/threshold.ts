/**
 * Whether approving a withdrawal needs a step-up code: the policy's `withdrawals.step_up_above`
 * for the currency (native), else its `value` (USD; an unknown value needs a code), else its
 * `default` (native). Read from the policy passed in, at the moment of use, so a changed
 * policy applies to the next click.
 */
import type { Policy } from '../policy/schema.js';
import type { Valuation } from '../money/value.js';
import { entryFor, isAbove } from '../policy/entries.js';

/** The threshold that applies to this currency (native text, or USD with `basis: 'value'`), or undefined when none. */
export function stepUpAbove(policy: Policy, currency: string): string | undefined {
  return entryFor(policy.withdrawals.step_up_above, currency)?.entry;
}

export function needsStepUp(policy: Policy, currency: string, amount: string, valuation?: Valuation): boolean {
  return isAbove(policy.withdrawals.step_up_above, currency, amount, valuation);
}
