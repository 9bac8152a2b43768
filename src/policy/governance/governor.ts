/**
 * Governed policy: the app enforces the last *approved* policy, kept in the store, never the
 * file as it is now. The first policy ever loaded is accepted (and audited). Afterwards a
 * file whose content differs becomes a proposed change, posted to the approvals channel, and
 * applied once enough admins of the policy in force approved it (effectivePolicyChangeApprovals
 * of the policy in force, not of the proposed one: a change cannot lower its own bar). Any admin
 * can reject it; a newer file supersedes it. An invalid file changes nothing; the admins are told.
 *
 * `current()` is read at the moment of use by everything that needs the policy (deps.policy is
 * a getter over it), so an applied change takes effect at once without rebuilding anything.
 */
import { createHash, randomUUID } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { configure } from 'safe-stable-stringify';
import { appendAudit } from '../../audit/log.js';
import type { Logger } from '../../log.js';
import type { Outbox } from '../../outbox/index.js';
import type { Store, Tx } from '../../store/index.js';
import { PolicyError, parsePolicy } from '../load.js';
import { hasRole, type GroupResolver } from '../people.js';
import { effectivePolicyChangeApprovals, type Policy } from '../schema.js';
import { describePolicyChange } from './describe.js';
import {
  IN_FORCE_ID,
  POLICY_FILE_PROBLEMS,
  POLICY_FILE_SEEN,
  POLICY_IN_FORCE,
  POLICY_PROPOSALS,
  SEEN_ID,
  addressKey,
  type AddressApproval,
  type PolicyFileProblem,
  type PolicyInForce,
  type PolicyProposal,
} from './types.js';

export const POLICY_CHANGE_RENDERER = 'policy-change';
export const POLICY_PROBLEM_RENDERER = 'policy-file-problem';
export const policyChangeKey = (id: string) => `policy-change:${id}`;

const SYSTEM = 'system';
const canonical = configure({ deterministic: true });

/** The parsed policy's identity: the same rules give the same hash whatever the comments and layout. */
export function policyHash(p: Policy): string {
  return createHash('sha256')
    .update(canonical(p) ?? '')
    .digest('hex');
}

export type CheckResult =
  | { kind: 'unchanged' }
  | { kind: 'in-force' }
  | { kind: 'invalid'; error: string }
  | { kind: 'proposed'; proposal: PolicyProposal };

export type ChangeDecision = { ok: true; proposal: PolicyProposal; applied: boolean } | { ok: false; message: string };

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
  /** After an approved change is durable and in force: e.g. re-evaluate pending withdrawals. Must not throw. */
  onApplied?: (policy: Policy) => unknown;
  /** How often the file is read even if no file-system event came (editors and network disks miss some). */
  pollMs?: number;
  /**
   * What the schema cannot know (e.g. that each `schedule:` name is a job of the table): the
   * problems found, each in words; a file with any is unusable like an invalid one.
   */
  check?: (policy: Policy) => string[];
}

export interface PolicyGovernor {
  /** The policy in force: read it at the moment of use, never keep a copy. */
  current(): Policy;
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
  const iso = () => new Date(o.now()).toISOString();
  let policy: Policy | undefined = o.fixed;
  // One check at a time: a file event during a check queues one more, never two interleaved.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };

  const current = (): Policy => {
    if (!policy) throw new Error('the policy is not loaded yet');
    return policy;
  };
  const inForce = () => store.get(POLICY_IN_FORCE, IN_FORCE_ID);
  const pending = () => store.find(POLICY_PROPOSALS, (p) => p.state === 'pending').at(-1);

  /** When each address of `next` was approved: kept for addresses already listed, now for the others. */
  function addressTimes(next: Policy, before: PolicyInForce | undefined, at: string): Record<string, AddressApproval> {
    const out: Record<string, AddressApproval> = {};
    for (const e of next.withdrawals.allowlist.addresses) {
      const key = addressKey(e.network, e.address);
      out[key] = before?.addresses[key] ?? { approvedAt: at, initial: !before };
    }
    return out;
  }

  function notifyAdmins(tx: Tx, problemId: string): void {
    // The admins of the policy in force, by DM; user groups cannot be messaged directly, so with
    // no admin named as a user the notice goes to the approvals channel instead.
    const users = current().people.admins.filter((a) => /^[UW]/.test(a));
    if (!users.length)
      outbox.enqueue(tx, {
        op: 'post',
        renderer: POLICY_PROBLEM_RENDERER,
        ref: problemId,
        key: `policy-file-problem:${problemId}`,
        channel: current().channels.approvals,
      });
    for (const admin of users)
      outbox.enqueue(tx, {
        op: 'dm',
        renderer: POLICY_PROBLEM_RENDERER,
        ref: problemId,
        user: admin,
        key: `policy-file-problem:${problemId}:${admin}`,
      });
  }

  function supersede(tx: Tx, p: PolicyProposal, reason: string, by?: string): void {
    const at = iso();
    tx.put(POLICY_PROPOSALS, p.id, { ...p, state: 'superseded', superseded: { at, reason, ...(by ? { by } : {}) } });
    appendAudit(tx, { at, actor: SYSTEM, action: 'policy_supersede', subject: p.id, details: { reason, by } });
    outbox.enqueue(tx, { op: 'update', renderer: POLICY_CHANGE_RENDERER, ref: p.id, key: policyChangeKey(p.id) });
  }

  async function readFileText(): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
    try {
      return { ok: true, text: await readFile(o.path!, 'utf8') };
    } catch (err) {
      return {
        ok: false,
        error: `The policy file ${o.path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
      };
    }
  }

  function checked(p: Policy, source: string): Policy {
    const problems = o.check?.(p) ?? [];
    if (problems.length) throw new PolicyError(`${source} is invalid:\n${problems.map((m) => `  - ${m}`).join('\n')}`);
    return p;
  }

  async function acceptFirst(): Promise<void> {
    const read = await readFileText();
    if (!read.ok) throw new PolicyError(read.error);
    const first = checked(parsePolicy(read.text, o.path), o.path ?? 'policy'); // no approved policy to fall back on: an invalid file stops the start
    const hash = policyHash(first);
    const at = iso();
    await store.commit((tx) => {
      tx.put(POLICY_IN_FORCE, IN_FORCE_ID, {
        text: read.text,
        hash,
        approvedAt: at,
        approvedBy: [SYSTEM],
        addresses: addressTimes(first, undefined, at),
      });
      tx.put(POLICY_FILE_SEEN, SEEN_ID, { hash: textHash(read.text), at });
      appendAudit(tx, {
        at,
        actor: SYSTEM,
        action: 'policy_accept_first',
        subject: hash.slice(0, 12),
        details: { file: o.path, hash, reason: 'no approved policy yet: the first policy loaded is accepted as it is' },
      });
    });
    policy = first;
    log.info({ hash }, 'first policy accepted');
  }

  async function checkPolicyFile(): Promise<CheckResult> {
    if (!o.path) return { kind: 'unchanged' };
    return serial(async () => {
      const read = await readFileText();
      const raw = read.ok ? textHash(read.text) : `unreadable:${read.error}`;
      if (store.get(POLICY_FILE_SEEN, SEEN_ID)?.hash === raw) return { kind: 'unchanged' } as const;
      const at = iso();
      let next: Policy;
      try {
        if (!read.ok) throw new PolicyError(read.error);
        next = checked(parsePolicy(read.text, 'The policy file'), 'The policy file');
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        const id = randomUUID();
        await store.commit((tx) => {
          tx.put(POLICY_FILE_SEEN, SEEN_ID, { hash: raw, at });
          tx.put(POLICY_FILE_PROBLEMS, id, { id, at, error });
          appendAudit(tx, {
            at,
            actor: SYSTEM,
            action: 'policy_invalid',
            subject: id,
            details: { error, reason: 'the policy file cannot be used; the policy in force is unchanged' },
          });
          notifyAdmins(tx, id);
        });
        log.warn({ error }, 'the policy file is invalid; the policy in force is unchanged');
        return { kind: 'invalid', error } as const;
      }
      const hash = policyHash(next);
      const base = inForce()!;
      const open = pending();
      if (hash === base.hash) {
        await store.commit((tx) => {
          tx.put(POLICY_FILE_SEEN, SEEN_ID, { hash: raw, at });
          if (open) supersede(tx, open, 'the file is back to the policy in force');
        });
        return { kind: 'in-force' } as const;
      }
      if (open?.hash === hash) {
        await store.commit((tx) => tx.put(POLICY_FILE_SEEN, SEEN_ID, { hash: raw, at }));
        return { kind: 'unchanged' } as const;
      }
      const proposal: PolicyProposal = {
        id: randomUUID(),
        text: read.ok ? read.text : '',
        hash,
        baseHash: base.hash,
        proposedAt: at,
        lines: describePolicyChange(current(), next),
        state: 'pending',
        approvals: [],
      };
      await store.commit((tx) => {
        tx.put(POLICY_FILE_SEEN, SEEN_ID, { hash: raw, at });
        if (open) supersede(tx, open, 'a newer version of the file replaced it', proposal.id);
        tx.put(POLICY_PROPOSALS, proposal.id, proposal);
        appendAudit(tx, {
          at,
          actor: SYSTEM,
          action: 'policy_propose',
          subject: proposal.id,
          details: { hash, changes: proposal.lines, required: effectivePolicyChangeApprovals(current()) },
        });
        outbox.enqueue(tx, {
          op: 'post',
          renderer: POLICY_CHANGE_RENDERER,
          ref: proposal.id,
          key: policyChangeKey(proposal.id),
          channel: current().channels.approvals,
        });
      });
      log.info({ id: proposal.id, changes: proposal.lines.length }, 'policy change proposed');
      return { kind: 'proposed', proposal } as const;
    });
  }

  const stateWords: Record<PolicyProposal['state'], string> = {
    pending: 'waiting for approval',
    applied: 'already applied',
    rejected: 'rejected',
    superseded: 'replaced by a newer version of the file',
  };

  async function decideOn(
    proposalId: string,
    user: string,
    kind: 'approve' | 'reject',
  ): Promise<ChangeDecision & { nextPolicy?: Policy }> {
    // Admins of the policy in force decide (group membership may ask Slack: resolved before the commit).
    const isAdmin = await hasRole(current(), 'admins', user, o.groups);
    return store.commit((tx) => {
      const p = tx.get(POLICY_PROPOSALS, proposalId);
      if (!p) return { ok: false, message: 'There is no such policy change.' };
      const at = iso();
      if (!isAdmin) {
        appendAudit(tx, {
          at,
          actor: user,
          action: `policy_${kind}_refused`,
          subject: p.id,
          details: { reason: 'not an admin of the policy in force' },
        });
        return { ok: false, message: 'Only treasury admins can approve or reject a policy change.' };
      }
      if (p.state !== 'pending')
        return {
          ok: false,
          message: `This policy change is no longer waiting for decisions: it was ${stateWords[p.state]}.`,
        };
      const update = () =>
        outbox.enqueue(tx, { op: 'update', renderer: POLICY_CHANGE_RENDERER, ref: p.id, key: policyChangeKey(p.id) });
      if (kind === 'reject') {
        const next: PolicyProposal = { ...p, state: 'rejected', rejection: { user, at } };
        tx.put(POLICY_PROPOSALS, p.id, next);
        appendAudit(tx, {
          at,
          actor: user,
          action: 'policy_reject',
          subject: p.id,
          details: { changes: p.lines, approvalsBefore: p.approvals.map((a) => a.user) },
        });
        update();
        return { ok: true, proposal: next, applied: false };
      }
      // A double click, or the same admin twice, counts once.
      if (p.approvals.some((a) => a.user === user))
        return { ok: false, message: 'You have already approved this policy change; it needs another admin.' };
      const base = tx.get(POLICY_IN_FORCE, IN_FORCE_ID);
      if (p.baseHash !== base?.hash) {
        // Proposed against a policy that is no longer in force (a check raced an approval): its lines would lie.
        supersede(tx, p, 'the policy in force changed since it was proposed');
        tx.delete(POLICY_FILE_SEEN, SEEN_ID);
        return {
          ok: false,
          message: 'The policy in force changed since this was proposed; the file will be proposed again.',
        };
      }
      const required = effectivePolicyChangeApprovals(current());
      const approvals = [...p.approvals, { user, at }];
      appendAudit(tx, {
        at,
        actor: user,
        action: 'policy_approve',
        subject: p.id,
        details: { approvals: approvals.length, required },
      });
      if (approvals.length < required) {
        const next = { ...p, approvals };
        tx.put(POLICY_PROPOSALS, p.id, next);
        update();
        return { ok: true, proposal: next, applied: false };
      }
      const nextPolicy = parsePolicy(p.text, 'The proposed policy');
      // The file is compared with the new policy in force at the next check.
      tx.delete(POLICY_FILE_SEEN, SEEN_ID);
      const applied: PolicyProposal = { ...p, approvals, state: 'applied', appliedAt: at };
      tx.put(POLICY_PROPOSALS, p.id, applied);
      tx.put(POLICY_IN_FORCE, IN_FORCE_ID, {
        text: p.text,
        hash: p.hash,
        approvedAt: at,
        approvedBy: approvals.map((a) => a.user),
        proposalId: p.id,
        addresses: addressTimes(nextPolicy, base!, at),
      });
      appendAudit(tx, {
        at,
        actor: user,
        action: 'policy_apply',
        subject: p.id,
        details: { hash: p.hash, previousHash: base?.hash, approvedBy: approvals.map((a) => a.user), changes: p.lines },
      });
      update();
      return { ok: true, proposal: applied, applied: true, nextPolicy };
    });
  }

  async function approve(proposalId: string, user: string): Promise<ChangeDecision> {
    const r = await decideOn(proposalId, user, 'approve');
    if (r.ok && r.nextPolicy) {
      policy = r.nextPolicy;
      log.info({ id: proposalId }, 'policy change applied');
      checkSoon();
      try {
        await o.onApplied?.(policy);
      } catch (err) {
        log.error({ err }, 'after a policy change: re-evaluating what it affects failed');
      }
    }
    if (!r.ok) return r;
    return { ok: true, proposal: r.proposal, applied: r.applied };
  }

  async function reject(proposalId: string, user: string): Promise<ChangeDecision> {
    const r = await decideOn(proposalId, user, 'reject');
    return r.ok ? { ok: true, proposal: r.proposal, applied: false } : r;
  }

  let watcher: FSWatcher | undefined;
  let poll: NodeJS.Timeout | undefined;
  let debounce: NodeJS.Timeout | undefined;
  const checkSoon = () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => {
      checkPolicyFile().catch((err: unknown) => log.error({ err }, 'checking the policy file failed'));
    }, 300);
    debounce.unref();
  };

  return {
    current,
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
    watch() {
      if (!o.path || watcher || poll) return;
      const file = basename(o.path);
      try {
        // The directory, not the file: editors replace the file (a rename), which ends a watch on it.
        watcher = watch(dirname(o.path), (_event, name) => {
          if (!name || name === file) checkSoon();
        });
        watcher.on('error', (err) => log.warn({ err: err.message }, 'watching the policy file failed; polling only'));
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'cannot watch the policy file; polling only');
      }
      poll = setInterval(checkSoon, o.pollMs ?? 60_000);
      poll.unref();
    },
    stop() {
      watcher?.close();
      clearInterval(poll);
      clearTimeout(debounce);
      watcher = undefined;
      poll = undefined;
    },
  };
}

function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
