/**
 * What approving a withdrawal needs beyond the click, from the policy passed in (read at the
 * moment of use, so a changed policy applies to the next click):
 * - above `withdrawals.passkey_above`: a passkey or security key, confirmed on a page that shows
 *   the withdrawal and signs a challenge bound to it (src/passkeys/);
 * - else above `withdrawals.step_up_above`: a code from an authenticator app, or a passkey (it
 *   proves more: it also binds the approval to this withdrawal);
 * - else nothing.
 * Each map is per currency (native), else `value` (USD; an unknown value counts as above),
 * else `default` (native).
 */
import type { Policy } from '../policy/schema.js';
import type { Valuation } from '../money/value.js';
import { entryFor, isAbove } from '../policy/entries.js';

export type StepUpNeed = 'none' | 'code' | 'passkey';
/** How an approval was confirmed: a code, or a passkey (src/withdrawals/types.ts `Approval.stepUp`). */
export type StepUpProof = 'verified' | 'passkey';

/** The threshold that applies to this currency (native text, or USD with `basis: 'value'`), or undefined when none. */
export function stepUpAbove(policy: Policy, currency: string): string | undefined {
  return entryFor(policy.withdrawals.step_up_above, currency)?.entry;
}

export function stepUpNeed(policy: Policy, currency: string, amount: string, valuation?: Valuation): StepUpNeed {
  if (isAbove(policy.withdrawals.passkey_above, currency, amount, valuation)) return 'passkey';
  if (isAbove(policy.withdrawals.step_up_above, currency, amount, valuation)) return 'code';
  return 'none';
}

/** Whether approving needs a code or a passkey at all. */
export function needsStepUp(policy: Policy, currency: string, amount: string, valuation?: Valuation): boolean {
  return stepUpNeed(policy, currency, amount, valuation) !== 'none';
}

/** Whether an approval confirmed this way meets the need: a passkey meets both, a code only a code's. */
export function proofMeets(need: StepUpNeed, proof: StepUpProof | undefined): boolean {
  if (need === 'none') return true;
  if (need === 'passkey') return proof === 'passkey';
  return proof === 'verified' || proof === 'passkey';
}
