/**
 * What every part of the service is given, built once by index.ts in dependency order (the
 * shell, then the sender and the reconciler that use it): passed in explicitly, never a
 * mutable object filled in later.
 */
import type { Logger } from '../../log.js';
import { hasRole, matches, type GroupResolver } from '../../policy/people.js';
import type { Policy } from '../../policy/schema.js';
import type { PolicySource } from '../../policy/source.js';
import type { PriceSnapshot, Valuation } from '../../prices/types.js';
import type { Store } from '../../store/index.js';
import type { WithdrawalScreening } from '../../screening/types.js';
import { recoveryAction, type RecoveryAction } from '../decide/index.js';
import type { RecheckFacts } from '../recheck.js';
import type { Reconciler } from '../reconcile.js';
import { selectTier, type Refused } from '../rules.js';
import { mustIncludeEntries } from '../value-rules.js';
import type { Sender } from '../sender.js';
import type { Shell } from '../shell.js';
import type { BalanceSource, DecisionOutcome, DecisionReason, WithdrawalHooks, WithdrawalRequest } from '../types.js';

export interface ServiceDeps {
  store: Store;
  shell: Shell;
  sender: Sender;
  reconciler: Reconciler;
  policy: PolicySource;
  now: () => number;
  groups: GroupResolver | undefined;
  logger: Logger;
  hooks: WithdrawalHooks;
  balances: BalanceSource | undefined;
  prices: (() => PriceSnapshot) | undefined;
  screening: WithdrawalScreening | undefined;
}

export const refusalOutcome = (r: Refused<DecisionReason>): DecisionOutcome => ({
  ok: false,
  reason: r.reason,
  message: r.message,
});

/**
 * The requests left for `action` at `now` (recoveryAction decides): one in flight in this
 * process is never a leftover. Shared by recover() and sendApproved().
 */
export const due =
  (sender: Pick<Sender, 'inFlight'>, now: number, action: RecoveryAction) =>
  (r: WithdrawalRequest): boolean =>
    // A batch's rows are sent by its paced runner (src/batches/runner.ts), never all at once here.
    !sender.inFlight(r.id) && recoveryAction(r, now) === action && !(action === 'send' && r.batch);

/** Who of the request's approvers is still an approver, and whom the policy in force's tier must include. */
export async function recheckFacts(
  p: Policy,
  groups: GroupResolver | undefined,
  r: WithdrawalRequest,
  valuation?: Valuation,
): Promise<RecheckFacts> {
  // The tier chosen by value, and every other of the list: a limit may raise the request to the top tier.
  // A batch row is judged at its batch's tier (rule-table.ts): whom that tier must include counts too.
  const must = new Set([
    ...(selectTier(p, r.currency, r.amount, valuation ?? r.sendValuation ?? r.valuation)?.mustInclude ?? []),
    ...mustIncludeEntries(p, r.currency),
    ...(r.batch ? r.tier.mustInclude : []),
  ]);
  const facts: Record<string, { isApprover: boolean; satisfies: string[]; satisfiesFor: Record<string, string[]> }> =
    {};
  for (const a of r.approvals) {
    const satisfies: string[] = [];
    const satisfiesFor: Record<string, string[]> = {};
    // A delegate's approval counts within the groups and tiers of whom they stood in for (src/away): each
    // recorded delegation's places apart (recheck.ts counts them only while it stands); older approvals as one.
    const recorded = new Set((a.delegations ?? []).map((d) => d.user));
    const own = [a.user, ...(a.for ?? []).filter((u) => !recorded.has(u))];
    for (const entry of must) {
      for (const who of own)
        if (await matches([entry], who, groups)) {
          satisfies.push(entry);
          break;
        }
      for (const who of recorded)
        if (await matches([entry], who, groups)) satisfiesFor[who] = [...(satisfiesFor[who] ?? []), entry];
    }
    let isApprover = false;
    for (const who of own) if (!isApprover) isApprover = await hasRole(p, 'approvers', who, groups);
    facts[a.user] = { isApprover, satisfies, satisfiesFor };
  }
  return facts;
}
