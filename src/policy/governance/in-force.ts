/**
 * The policy in force as a part of its own, the app's one PolicySource: loaded at start (the
 * approved policy kept in the store or, none yet, the file's, accepted and audited), read with
 * `current()` at the moment of use, and changed only by `apply` (the governor, once an approved
 * change is durable), which tells the `onApplied` subscribers.
 *
 * Why apart from the governor: loading notifies no one (accepting the first policy queues no
 * message), so this part needs only the store and exists before Slack and the outbox. What does
 * notify (proposals, unusable files) and asks Slack (admins in user groups) is the governor's,
 * built after the outbox with the policy in force given to it. The app is then built in
 * dependency order: policy in force → Slack (the local workspace reads the policy) → outbox →
 * governor, with nothing bound late.
 */
import { randomUUID } from 'node:crypto';
import { appendAudit } from '../../audit/log.js';
import type { Logger } from '../../log.js';
import type { Store, Tx } from '../../store/index.js';
import { PolicyError, parseApprovedPolicy } from '../load.js';
import type { Policy } from '../schema.js';
import type { PolicySource } from '../source.js';
import { decide, type GovernanceDecision } from './decide.js';
import { readFirstPolicy } from './file-source.js';
import {
  IN_FORCE_ID,
  POLICY_FILE_PROBLEMS,
  POLICY_FILE_SEEN,
  POLICY_IN_FORCE,
  POLICY_PROPOSALS,
  SEEN_ID,
} from './types.js';

export interface PolicyInForcePart extends PolicySource {
  /** Puts an approved policy in force, then calls the subscribers in order (one failing is logged). */
  apply(policy: Policy): Promise<void>;
}

/** Everything a decision records, inside the caller's commit (its outbox notices are the governor's). */
export function writeDecision(tx: Tx, d: GovernanceDecision<unknown>): void {
  const w = d.writes;
  if (w.seen === null) tx.delete(POLICY_FILE_SEEN, SEEN_ID);
  else if (w.seen) tx.put(POLICY_FILE_SEEN, SEEN_ID, w.seen);
  if (w.problem) tx.put(POLICY_FILE_PROBLEMS, w.problem.id, w.problem);
  for (const p of w.proposals) tx.put(POLICY_PROPOSALS, p.id, p);
  if (w.inForce) tx.put(POLICY_IN_FORCE, IN_FORCE_ID, w.inForce);
  for (const a of d.audit) appendAudit(tx, a);
}

export async function loadPolicyInForce(o: {
  store: Store;
  logger: Logger;
  now: () => number;
  /** The policy file. Without it, `fixed` is the policy for good (a policy given in code: nothing is governed). */
  path?: string | undefined;
  fixed?: Policy | undefined;
  /** What the schema cannot know (e.g. that each `schedule:` name is a job of the table). */
  check?: (policy: Policy) => string[];
}): Promise<PolicyInForcePart> {
  const log = o.logger.child({ component: 'policy' });
  let policy = o.fixed ?? (o.path === undefined ? undefined : await loadGoverned(o.store, o.path, o));
  if (!policy) throw new PolicyError('No policy: neither a policy file nor a policy given in code.');
  const applied: Array<(policy: Policy) => unknown> = [];

  return {
    current: () => policy!,
    onApplied(fn) {
      applied.push(fn);
      return () => {
        const i = applied.indexOf(fn);
        if (i >= 0) applied.splice(i, 1);
      };
    },
    async apply(next) {
      policy = next;
      // Each subscriber in turn; one failing is logged and does not keep the others from their turn.
      for (const fn of [...applied])
        try {
          await fn(next);
        } catch (err) {
          log.error({ err }, 'after a policy change: re-evaluating what it affects failed');
        }
    },
  };

  async function loadGoverned(store: Store, path: string, g: typeof o): Promise<Policy> {
    const stored = store.get(POLICY_IN_FORCE, IN_FORCE_ID);
    if (stored) {
      let read: ReturnType<typeof parseApprovedPolicy>;
      try {
        read = parseApprovedPolicy(stored.text, 'The approved policy in the store');
      } catch (err) {
        throw new PolicyError(`${(err as Error).message}\n(the approved policy kept in the store no longer reads)`);
      }
      if (read.ignored.length) {
        // Approved before unknown keys were refused: enforced as it was then (those keys meant
        // nothing). The file is read afresh at this start, so the admins are told what to fix.
        log.warn({ ignored: read.ignored }, 'the approved policy has keys this version does not know; ignored');
        await store.commit((tx) => tx.delete(POLICY_FILE_SEEN, SEEN_ID));
      }
      return read.policy;
    }
    // No approved policy to fall back on: an unusable file stops the start (readFirstPolicy throws).
    const reading = await readFirstPolicy(path, g.check);
    // Accepting the first policy describes no change (`describe` is for proposals).
    const d = decide(
      { policy: undefined, inForce: undefined, pending: undefined, seenHash: undefined },
      { type: 'accept-first', file: path, reading },
      { now: g.now(), newId: randomUUID(), describe: () => [] },
    );
    await store.commit((tx) => writeDecision(tx, d));
    log.info({ hash: reading.hash }, 'first policy accepted');
    return d.applied!;
  }
}
