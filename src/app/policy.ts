/**
 * The policy, in two parts built apart (see src/policy/governance/in-force.ts for why):
 * - the policy in force, loaded first: the app's one PolicySource, needing only the store;
 * - the governor, built once the outbox and Slack's groups exist: proposals, approvals, the
 *   file watch, and its notices to the admins.
 * Both check a file's `schedule:` names against the job table; the governor words a change as
 * Slack shows it to the admins (src/slack/policy-change-words.ts: the rules do not know Slack).
 */
import { scheduleProblems } from '../jobs/table.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import { createPolicyGovernor, type PolicyGovernor } from '../policy/governance/governor.js';
import { loadPolicyInForce, type PolicyInForcePart } from '../policy/governance/in-force.js';
import type { GroupResolver } from '../policy/people.js';
import type { Policy } from '../policy/schema.js';
import { describePolicyChange } from '../slack/policy-change-words.js';
import type { Store } from '../store/index.js';
import type { CleanupStack } from './cleanup.js';

const check = (p: Policy) => scheduleProblems(p.schedule);

export interface PolicyPlace {
  /** A policy given in code (nothing governed), else the file at `path`. */
  fixed: Policy | undefined;
  path: string | undefined;
}

export function loadPolicy(o: { store: Store; logger: Logger; now: () => number } & PolicyPlace) {
  return loadPolicyInForce({ store: o.store, logger: o.logger, now: o.now, fixed: o.fixed, path: o.path, check });
}

export function buildGovernor(
  o: {
    store: Store;
    policy: PolicyInForcePart;
    outbox: Pick<Outbox, 'enqueue'>;
    groups: GroupResolver;
    logger: Logger;
    now: () => number;
    path: string | undefined;
    /** Screening: why an address may not be allowlisted (sanctioned), or undefined. */
    screening?: { sanctioned(address: string): string | undefined };
  },
  cleanup: CleanupStack,
): PolicyGovernor {
  const governor = createPolicyGovernor({
    store: o.store,
    inForce: o.policy,
    outbox: o.outbox,
    logger: o.logger,
    now: o.now,
    groups: o.groups,
    path: o.path,
    check,
    describe: describePolicyChange,
    ...(o.screening ? { sanctioned: o.screening.sanctioned } : {}),
  });
  cleanup.push(async () => governor.stop());
  return governor;
}
