/**
 * Governed policy's shell: the app enforces the last *approved* policy, kept in the store, never
 * the file as it is now. The rules are decide.ts's (pure); the file is file-source.ts's (read,
 * validated, watched). This file reads the state, resolves the facts, writes each decision in
 * one store commit and acts on it once it is committed.
 *
 * `current()` is read at the moment of use by everything that needs the policy (deps.policy is
 * a getter over it), so an applied change takes effect at once without rebuilding anything.
 */
import { randomUUID } from 'node:crypto';
import { appendAudit } from '../../audit/log.js';
import type { Logger } from '../../log.js';
import type { Outbox } from '../../outbox/index.js';
import type { Store, Tx } from '../../store/index.js';
import { PolicyError, parsePolicy } from '../load.js';
import { hasRole, type GroupResolver } from '../people.js';
import type { Policy } from '../schema.js';
import {
  decide,
  type ChangeDecision,
  type CheckResult,
  type GovernanceDecision,
  type GovernanceFacts,
  type GovernanceState,
} from './decide.js';
import type { PolicySource } from '../source.js';
import { createPolicyFileSource } from './file-source.js';
import {
  IN_FORCE_ID,
  POLICY_FILE_PROBLEMS,
  POLICY_FILE_SEEN,
  POLICY_IN_FORCE,
  POLICY_PROPOSALS,
  SEEN_ID,
  type AddressApproval,
  type PolicyFileProblem,
  type PolicyInForce,
  type PolicyProposal,
} from './types.js';

// The answers of PolicyGovernor's methods, for its callers.
export type { ChangeDecision, CheckResult } from './decide.js';

export interface PolicyGovernorOptions {
  store: Store;
  /** Only enqueue, inside the governor's commits (the app's outbox is built after the policy is loaded). */
  outbox: Pick<Outbox, 'enqueue'>;
  logger: Logger;
  now: () => number;
  groups?: GroupResolver;
  /** The policy file. Without it, `fixed` is the policy for good (a policy given in code: nothing is governed). */
  path?: string;
  fixed?: Policy;
  /** How often the file is read even if no file-system event came (editors and network disks miss some). */
  pollMs?: number;
  /**
   * What the schema cannot know (e.g. that each `schedule:` name is a job of the table): the
   * problems found, each in words; a file with any is unusable like an invalid one.
   */
  check?: (policy: Policy) => string[];
  /** A change in words for its proposal (Slack's words: the app passes src/slack/policy-change-words.ts). */
  describe: (from: Policy, to: Policy) => string[];
}

/** The governor is the app's PolicySource: `current()` is the policy in force, `onApplied` hears approved changes. */
export interface PolicyGovernor extends PolicySource {
  /**
   * The policy in force: the approved one from the store, or (none yet) the file's, accepted
   * and audited. Throws only when there is no usable policy at all. Then call checkPolicyFile().
   */
  load(): Promise<void>;
  /** Reads the file now; debounced file-system events and the poll call this too. */
  checkPolicyFile(): Promise<CheckResult>;
  approve(proposalId: string, user: string): Promise<ChangeDecision>;
  reject(proposalId: string, user: string): Promise<ChangeDecision>;
  inForce(): PolicyInForce | undefined;
  pending(): PolicyProposal | undefined;
  proposal(id: string): PolicyProposal | undefined;
  /** A file that could not be used (its notice to the admins). */
  problem(id: string): PolicyFileProblem | undefined;
  /** When each allowlisted address was approved (for the cooling-off); undefined when nothing is governed. */
  addressApprovals(): Readonly<Record<string, AddressApproval>> | undefined;
  /** Watches the file (fs.watch on its directory, debounced, plus a slow poll). */
  watch(): void;
  stop(): void;
}

export function createPolicyGovernor(o: PolicyGovernorOptions): PolicyGovernor {
  const { store, outbox, logger } = o;
  const log = logger.child({ component: 'policy' });
  let policy: Policy | undefined = o.fixed;
  const source =
    o.path === undefined
      ? undefined
      : createPolicyFileSource({
          path: o.path,
          logger: log,
          ...(o.check ? { check: o.check } : {}),
          ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
          onChange: () => checkPolicyFile(),
        });
  // One check at a time: a file event during a check queues one more, never two interleaved.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };

  const applied: Array<(policy: Policy) => unknown> = [];
  const current = (): Policy => {
    if (!policy) throw new Error('the policy is not loaded yet');
    return policy;
  };
  const inForce = () => store.get(POLICY_IN_FORCE, IN_FORCE_ID);
  const pending = () => store.find(POLICY_PROPOSALS, (p) => p.state === 'pending').at(-1);
  const facts = (): GovernanceFacts => ({ now: o.now(), newId: randomUUID(), describe: o.describe });
  /** The state as seen by `reads`: the store, or a commit's tx (`pending` needs find, which only the store has). */
  const stateOf = (reads: Pick<Tx, 'get'>): GovernanceState => ({
    policy,
    inForce: reads.get(POLICY_IN_FORCE, IN_FORCE_ID),
    pending: pending(),
    seenHash: reads.get(POLICY_FILE_SEEN, SEEN_ID)?.hash,
  });

  /** Everything a decision writes, inside the caller's commit. */
  function write(tx: Tx, d: GovernanceDecision<unknown>): void {
    const w = d.writes;
    if (w.seen === null) tx.delete(POLICY_FILE_SEEN, SEEN_ID);
    else if (w.seen) tx.put(POLICY_FILE_SEEN, SEEN_ID, w.seen);
    if (w.problem) tx.put(POLICY_FILE_PROBLEMS, w.problem.id, w.problem);
    for (const p of w.proposals) tx.put(POLICY_PROPOSALS, p.id, p);
    if (w.inForce) tx.put(POLICY_IN_FORCE, IN_FORCE_ID, w.inForce);
    for (const a of d.audit) appendAudit(tx, a);
    for (const n of d.notices) outbox.enqueue(tx, n);
  }
  const writesAnything = (d: GovernanceDecision<unknown>) =>
    d.writes.seen !== undefined ||
    d.writes.problem !== undefined ||
    d.writes.inForce !== undefined ||
    d.writes.proposals.length > 0 ||
    d.audit.length > 0 ||
    d.notices.length > 0;

  async function acceptFirst(): Promise<void> {
    // No approved policy to fall back on: an unusable file stops the start (readFirst throws).
    const reading = await source!.readFirst();
    const d = decide(stateOf(store), { type: 'accept-first', file: o.path, reading }, facts());
    await store.commit((tx) => write(tx, d));
    policy = d.applied;
    log.info({ hash: reading.hash }, 'first policy accepted');
  }

  async function checkPolicyFile(): Promise<CheckResult> {
    if (!source) return { kind: 'unchanged' };
    return serial(async () => {
      const reading = await source.read();
      // Decided on the state read outside a commit (checks are serial; an approval that races
      // one is caught by its baseHash), so an unchanged file, every poll, opens no commit.
      const d = decide(stateOf(store), { type: 'file-changed', reading }, facts());
      if (writesAnything(d)) await store.commit((tx) => write(tx, d));
      const r = d.result;
      if (r.kind === 'invalid')
        log.warn({ error: r.error }, 'the policy file is invalid; the policy in force is unchanged');
      if (r.kind === 'proposed')
        log.info({ id: r.proposal.id, changes: r.proposal.lines.length }, 'policy change proposed');
      return r;
    });
  }

  async function decideOn(proposalId: string, user: string, type: 'approve' | 'reject') {
    // Admins of the policy in force decide (group membership may ask Slack: resolved before the commit).
    const isAdmin = await hasRole(current(), 'admins', user, o.groups);
    const f = facts();
    return store.commit((tx) => {
      const proposal = tx.get(POLICY_PROPOSALS, proposalId);
      const d = decide(stateOf(tx), { type, proposalId, proposal, user, isAdmin }, f);
      write(tx, d);
      return d;
    });
  }

  async function approve(proposalId: string, user: string): Promise<ChangeDecision> {
    const d = await decideOn(proposalId, user, 'approve');
    if (d.applied) {
      policy = d.applied;
      log.info({ id: proposalId }, 'policy change applied');
      source?.checkSoon();
      // Each subscriber in turn; one failing is logged and does not keep the others from their turn.
      for (const fn of [...applied])
        try {
          await fn(policy);
        } catch (err) {
          log.error({ err }, 'after a policy change: re-evaluating what it affects failed');
        }
    }
    return d.result;
  }

  async function reject(proposalId: string, user: string): Promise<ChangeDecision> {
    return (await decideOn(proposalId, user, 'reject')).result;
  }

  return {
    current,
    onApplied(fn) {
      applied.push(fn);
      return () => {
        const i = applied.indexOf(fn);
        if (i >= 0) applied.splice(i, 1);
      };
    },
    async load() {
      if (!o.path) return;
      const stored = inForce();
      if (!stored) return acceptFirst();
      try {
        policy = parsePolicy(stored.text, 'The approved policy in the store');
      } catch (err) {
        throw new PolicyError(`${(err as Error).message}\n(the approved policy kept in the store no longer reads)`);
      }
    },
    checkPolicyFile,
    approve,
    reject,
    inForce,
    pending,
    proposal: (id) => store.get(POLICY_PROPOSALS, id),
    problem: (id) => store.get(POLICY_FILE_PROBLEMS, id),
    addressApprovals: () => (o.path ? inForce()?.addresses : undefined),
    watch: () => source?.watch(),
    stop: () => source?.stop(),
  };
}
