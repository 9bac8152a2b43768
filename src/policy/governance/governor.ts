/**
 * Governed policy's shell: the app enforces the last *approved* policy, kept in the store, never
 * the file as it is now. The rules are decide.ts's (pure); the file is file-source.ts's (read,
 * validated, watched); the policy in force, loaded before this and read by every part, is
 * in-force.ts's. This file reads the state, resolves the facts, writes each decision in one
 * store commit with its notices, and acts on it once it is committed (an approved change is put
 * in force through `inForce.apply`, which tells its subscribers).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { Outbox } from '../../outbox/index.js';
import type { Store, Tx } from '../../store/index.js';
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
import { createPolicyFileSource } from './file-source.js';
import { writeDecision, type PolicyInForcePart } from './in-force.js';
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
  /** The policy in force (loaded before Slack and the outbox exist); an approved change is applied to it. */
  inForce: PolicyInForcePart;
  /** Only enqueue, inside the governor's commits. */
  outbox: Pick<Outbox, 'enqueue'>;
  logger: Logger;
  now: () => number;
  groups?: GroupResolver;
  /** The policy file. Without it, the policy in force was given in code and nothing is governed. */
  path?: string | undefined;
  /** How often the file is read even if no file-system event came (editors and network disks miss some). */
  pollMs?: number;
  /**
   * What the schema cannot know (e.g. that each `schedule:` name is a job of the table): the
   * problems found, each in words; a file with any is unusable like an invalid one.
   */
  check?: (policy: Policy) => string[];
  /** A change in words for its proposal (Slack's words: the app passes src/slack/policy-change-words.ts). */
  describe: (from: Policy, to: Policy) => string[];
  /** Why an address may not be allowlisted (sanctioned: src/screening), or undefined. */
  sanctioned?: (address: string) => string | undefined;
}

/** Proposals, approvals and the file watch; the policy itself is read from the PolicySource (in-force.ts). */
export interface PolicyGovernor {
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
  const { store, outbox, logger, inForce: policy } = o;
  const log = logger.child({ component: 'policy' });
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

  const inForce = () => store.get(POLICY_IN_FORCE, IN_FORCE_ID);
  const pending = () => store.find(POLICY_PROPOSALS, (p) => p.state === 'pending').at(-1);
  const facts = (): GovernanceFacts => ({
    now: o.now(),
    newId: randomUUID(),
    describe: o.describe,
    ...(o.sanctioned ? { sanctioned: o.sanctioned } : {}),
  });
  /** The state as seen by `reads`: the store, or a commit's tx (`pending` needs find, which only the store has). */
  const stateOf = (reads: Pick<Tx, 'get'>): GovernanceState => ({
    policy: policy.current(),
    inForce: reads.get(POLICY_IN_FORCE, IN_FORCE_ID),
    pending: pending(),
    seenHash: reads.get(POLICY_FILE_SEEN, SEEN_ID)?.hash,
  });

  /** Everything a decision writes, its notices included, inside the caller's commit. */
  function write(tx: Tx, d: GovernanceDecision<unknown>): void {
    writeDecision(tx, d);
    for (const n of d.notices) outbox.enqueue(tx, n);
  }
  const writesAnything = (d: GovernanceDecision<unknown>) =>
    d.writes.seen !== undefined ||
    d.writes.problem !== undefined ||
    d.writes.inForce !== undefined ||
    d.writes.proposals.length > 0 ||
    d.audit.length > 0 ||
    d.notices.length > 0;

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
    const isAdmin = await hasRole(policy.current(), 'admins', user, o.groups);
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
      log.info({ id: proposalId }, 'policy change applied');
      source?.checkSoon();
      await policy.apply(d.applied);
    }
    return d.result;
  }

  async function reject(proposalId: string, user: string): Promise<ChangeDecision> {
    return (await decideOn(proposalId, user, 'reject')).result;
  }

  return {
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
