/**
 * The policy part: the governor (src/policy/governance), loaded, as the app's PolicySource.
 * It checks a file's `schedule:` names against the job table, and words a change as Slack
 * shows it to the admins (src/slack/policy-change-words.ts: the rules do not know Slack).
 */
import { scheduleProblems } from '../jobs/table.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import { createPolicyGovernor, type PolicyGovernor } from '../policy/governance/governor.js';
import type { GroupResolver } from '../policy/people.js';
import type { Policy } from '../policy/schema.js';
import { describePolicyChange } from '../slack/policy-change-words.js';
import type { Store } from '../store/index.js';
import type { CleanupStack } from './cleanup.js';

export async function buildPolicy(
  o: {
    store: Store;
    outbox: Pick<Outbox, 'enqueue'>;
    groups: GroupResolver;
    logger: Logger;
    now: () => number;
    /** A policy given in code (nothing governed), else the file at `path`. */
    fixed: Policy | undefined;
    path: string | undefined;
  },
  cleanup: CleanupStack,
): Promise<PolicyGovernor> {
  const governor = createPolicyGovernor({
    store: o.store,
    outbox: o.outbox,
    logger: o.logger,
    now: o.now,
    groups: o.groups,
    path: o.path,
    fixed: o.fixed,
    check: (p) => scheduleProblems(p.schedule),
    describe: describePolicyChange,
  });
  await governor.load();
  cleanup.push(async () => governor.stop());
  return governor;
}
