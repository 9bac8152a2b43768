/**
 * Governed policy's rules without a store, a file or a clock: `decide(state, command, facts)`
 * gives the records to write, the audit entries and the outbox entries. Given / when / then.
 * The same rules end to end (the real store, the file, Slack) are in governed.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { decide, type GovernanceState } from '../../src/policy/governance/decide.js';
import { policyHash, textHash, type FileReading, type UsableReading } from '../../src/policy/governance/file-source.js';
import { POLICY_CHANGE_RENDERER, POLICY_PROBLEM_RENDERER } from '../../src/policy/governance/notices.js';
import { addressKey, type PolicyInForce, type PolicyProposal } from '../../src/policy/governance/types.js';
import { parsePolicy } from '../../src/policy/load.js';
import { describePolicyChange } from '../../src/slack/policy-change-words.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const AT = new Date(T0).toISOString();
const ADDR = '0x1111111111111111111111111111111111111111';
const NEW_ADDR = '0x2222222222222222222222222222222222222222';

const yaml = (o: { limit?: string; admins?: string; addresses?: string[] } = {}) => `
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE], admins: ${o.admins ?? '[U0ERIN, U0FRANK]'} }
withdrawals:
  tiers:
    default:
      - { approvals: 1 }
  daily_limit: { USDT: ${o.limit ?? '1000'} }
  allowlist:
    mode: warn
    addresses:
${(o.addresses ?? [ADDR]).map((a) => `      - { address: "${a}", network: BSC, label: "desk" }`).join('\n')}
policy_changes: { approvals: 2 }
`;

const usable = (text: string): UsableReading => {
  const policy = parsePolicy(text);
  return { ok: true, text, rawHash: textHash(text), policy, hash: policyHash(policy) };
};

const BASE = usable(yaml());
const inForce: PolicyInForce = {
  text: BASE.text,
  hash: BASE.hash,
  approvedAt: '2029-12-01T00:00:00.000Z',
  approvedBy: ['system'],
  addresses: { [addressKey('BSC', ADDR)]: { approvedAt: '2029-12-01T00:00:00.000Z', initial: true } },
};
const given = (over: Partial<GovernanceState> = {}): GovernanceState => ({
  policy: BASE.policy,
  inForce,
  pending: undefined,
  seenHash: BASE.rawHash,
  ...over,
});
const facts = { now: T0, newId: 'id-1', describe: describePolicyChange };

const CHANGED = usable(yaml({ limit: '5000', addresses: [ADDR, NEW_ADDR] }));
const proposal = (over: Partial<PolicyProposal> = {}): PolicyProposal => ({
  id: 'p-1',
  text: CHANGED.text,
  hash: CHANGED.hash,
  baseHash: inForce.hash,
  proposedAt: AT,
  lines: ['a change'],
  state: 'pending',
  approvals: [],
  ...over,
});
const vote = (type: 'approve' | 'reject', user: string, p: PolicyProposal | undefined, isAdmin = true) =>
  ({ type, proposalId: 'p-1', proposal: p, user, isAdmin }) as const;

describe('governance decide: the first policy', () => {
  it('given no approved policy, when the first file is accepted, then it is in force at once, audited, every address usable', () => {
    const d = decide(
      given({ policy: undefined, inForce: undefined, seenHash: undefined }),
      {
        type: 'accept-first',
        file: '/etc/policy.yml',
        reading: BASE,
      },
      facts,
    );
    expect(d.writes.inForce).toMatchObject({
      text: BASE.text,
      hash: BASE.hash,
      approvedAt: AT,
      approvedBy: ['system'],
    });
    expect(d.writes.inForce!.addresses[addressKey('BSC', ADDR)]).toEqual({ approvedAt: AT, initial: true });
    expect(d.writes.seen).toEqual({ hash: BASE.rawHash, at: AT });
    expect(d.audit.map((a) => a.action)).toEqual(['policy_accept_first']);
    expect(d.audit[0]!.details).toMatchObject({ file: '/etc/policy.yml', hash: BASE.hash });
    expect(d.notices).toEqual([]);
    expect(d.applied).toBe(BASE.policy);
  });
});

describe('governance decide: the file changed', () => {
  it('given the file as last read, when it is read again, then nothing is written', () => {
    const d = decide(given(), { type: 'file-changed', reading: BASE }, facts);
    expect(d.result).toEqual({ kind: 'unchanged' });
    expect(d.writes).toEqual({ proposals: [] });
    expect(d.audit).toEqual([]);
    expect(d.notices).toEqual([]);
  });

  it('given the policy in force, when the file differs in rules, then one proposal, audited, posted to approvals', () => {
    const d = decide(given(), { type: 'file-changed', reading: CHANGED }, facts);
    expect(d.result.kind).toBe('proposed');
    expect(d.writes.proposals).toHaveLength(1);
    const p = d.writes.proposals[0]!;
    expect(p).toMatchObject({
      id: 'id-1',
      hash: CHANGED.hash,
      baseHash: inForce.hash,
      state: 'pending',
      approvals: [],
    });
    expect(p.lines.length).toBeGreaterThan(0);
    expect(d.writes.seen).toEqual({ hash: CHANGED.rawHash, at: AT });
    expect(d.audit).toEqual([expect.objectContaining({ action: 'policy_propose', subject: 'id-1' })]);
    expect(d.audit[0]!.details).toMatchObject({ required: 2 });
    expect(d.notices).toEqual([
      expect.objectContaining({ op: 'post', renderer: POLICY_CHANGE_RENDERER, ref: 'id-1', channel: 'C0APPROVALS' }),
    ]);
    expect(d.writes.inForce).toBeUndefined(); // nothing changes before the admins approve
  });

  it('given only comments changed, when read, then the policy is in force and nothing is proposed', () => {
    const d = decide(given(), { type: 'file-changed', reading: usable(`# a comment\n${BASE.text}`) }, facts);
    expect(d.result).toEqual({ kind: 'in-force' });
    expect(d.writes.proposals).toEqual([]);
    expect(d.notices).toEqual([]);
  });

  it('given an open proposal, when the file goes back to the policy in force, then the proposal is superseded', () => {
    const open = proposal();
    const d = decide(
      given({ pending: open, seenHash: CHANGED.rawHash }),
      { type: 'file-changed', reading: BASE },
      facts,
    );
    expect(d.result).toEqual({ kind: 'in-force' });
    expect(d.writes.proposals).toEqual([expect.objectContaining({ id: 'p-1', state: 'superseded' })]);
    expect(d.audit.map((a) => a.action)).toEqual(['policy_supersede']);
    expect(d.notices).toEqual([expect.objectContaining({ op: 'update', ref: 'p-1' })]);
  });

  it('given an open proposal, when a newer file comes, then it is superseded by the new proposal, in that order', () => {
    const newer = usable(yaml({ limit: '9000' }));
    const d = decide(
      given({ pending: proposal(), seenHash: CHANGED.rawHash }),
      { type: 'file-changed', reading: newer },
      facts,
    );
    expect(d.writes.proposals.map((p) => [p.id, p.state])).toEqual([
      ['p-1', 'superseded'],
      ['id-1', 'pending'],
    ]);
    expect(d.writes.proposals[0]!.superseded).toMatchObject({ by: 'id-1' });
    expect(d.audit.map((a) => a.action)).toEqual(['policy_supersede', 'policy_propose']);
    expect(d.notices.map((n) => n.op)).toEqual(['update', 'post']);
  });

  it('given an open proposal, when the same change is only reformatted, then it stays open', () => {
    const reformatted = usable(`${CHANGED.text}\n# reformatted\n`);
    const d = decide(
      given({ pending: proposal(), seenHash: CHANGED.rawHash }),
      { type: 'file-changed', reading: reformatted },
      facts,
    );
    expect(d.result).toEqual({ kind: 'unchanged' });
    expect(d.writes).toEqual({ proposals: [], seen: { hash: reformatted.rawHash, at: AT } });
    expect(d.audit).toEqual([]);
  });

  it('given admins who are people, when the file is unusable, then a problem record, an audit entry and a DM to each admin', () => {
    const reading: FileReading = { ok: false, rawHash: 'raw-bad', error: 'The policy file is invalid: x' };
    const d = decide(given(), { type: 'file-changed', reading }, facts);
    expect(d.result).toEqual({ kind: 'invalid', error: reading.error });
    expect(d.writes).toEqual({
      proposals: [],
      seen: { hash: 'raw-bad', at: AT },
      problem: { id: 'id-1', at: AT, error: reading.error },
    });
    expect(d.audit.map((a) => a.action)).toEqual(['policy_invalid']);
    expect(d.notices.map((n) => [n.op, n.renderer, n.user])).toEqual([
      ['dm', POLICY_PROBLEM_RENDERER, 'U0ERIN'],
      ['dm', POLICY_PROBLEM_RENDERER, 'U0FRANK'],
    ]);
  });

  it('given admins that are only a user group, when the file is unusable, then the notice goes to the approvals channel', () => {
    const groupAdmins = usable(yaml({ admins: '[S0ADMINS]' })).policy;
    const reading: FileReading = { ok: false, rawHash: 'raw-bad', error: 'bad' };
    const d = decide(given({ policy: groupAdmins }), { type: 'file-changed', reading }, facts);
    expect(d.notices).toEqual([expect.objectContaining({ op: 'post', channel: 'C0APPROVALS' })]);
  });

  it('given the same unusable file as last read, when read again, then the admins are not told twice', () => {
    const reading: FileReading = { ok: false, rawHash: 'raw-bad', error: 'bad' };
    const d = decide(given({ seenHash: 'raw-bad' }), { type: 'file-changed', reading }, facts);
    expect(d.result).toEqual({ kind: 'unchanged' });
    expect(d.notices).toEqual([]);
  });
});

describe('governance decide: approve and reject', () => {
  it('given no such proposal, when approved, then refused and nothing written', () => {
    const d = decide(given(), vote('approve', 'U0ERIN', undefined), facts);
    expect(d.result).toEqual({ ok: false, message: 'There is no such policy change.' });
    expect(d.audit).toEqual([]);
  });

  it('given a non-admin, when they approve, then refused and the refusal audited', () => {
    const d = decide(given(), vote('approve', 'U0ALICE', proposal(), false), facts);
    expect(d.result).toMatchObject({ ok: false });
    expect(d.audit).toEqual([expect.objectContaining({ actor: 'U0ALICE', action: 'policy_approve_refused' })]);
    expect(d.writes.proposals).toEqual([]);
  });

  it('given a proposal needing two, when the first admin approves, then counted and the message updated, nothing applied', () => {
    const d = decide(given(), vote('approve', 'U0ERIN', proposal()), facts);
    expect(d.result).toMatchObject({ ok: true, applied: false });
    expect(d.writes.proposals[0]!.approvals).toEqual([{ user: 'U0ERIN', at: AT }]);
    expect(d.writes.inForce).toBeUndefined();
    expect(d.audit).toEqual([
      expect.objectContaining({ action: 'policy_approve', details: { approvals: 1, required: 2 } }),
    ]);
    expect(d.notices).toEqual([expect.objectContaining({ op: 'update', ref: 'p-1' })]);
    expect(d.applied).toBeUndefined();
  });

  it('given one approval, when the same admin approves again, then refused (a double click counts once)', () => {
    const d = decide(given(), vote('approve', 'U0ERIN', proposal({ approvals: [{ user: 'U0ERIN', at: AT }] })), facts);
    expect(d.result).toMatchObject({ ok: false });
    expect(d.writes.proposals).toEqual([]);
  });

  it('given one approval, when a second admin approves, then the change applies: in force, new addresses timed from now', () => {
    const p = proposal({ approvals: [{ user: 'U0ERIN', at: '2029-12-31T00:00:00.000Z' }] });
    const d = decide(given(), vote('approve', 'U0FRANK', p), facts);
    expect(d.result).toMatchObject({ ok: true, applied: true, proposal: { state: 'applied', appliedAt: AT } });
    expect(d.writes.inForce).toMatchObject({
      hash: CHANGED.hash,
      approvedBy: ['U0ERIN', 'U0FRANK'],
      proposalId: 'p-1',
    });
    // The address already listed keeps its approval time; the new one is approved now (its cooling-off starts).
    expect(d.writes.inForce!.addresses).toEqual({
      [addressKey('BSC', ADDR)]: inForce.addresses[addressKey('BSC', ADDR)],
      [addressKey('BSC', NEW_ADDR)]: { approvedAt: AT, initial: false },
    });
    expect(d.writes.seen).toBeNull(); // the file is compared with the new policy at the next check
    expect(d.audit.map((a) => a.action)).toEqual(['policy_approve', 'policy_apply']);
    expect(d.applied?.withdrawals.daily_limit).toEqual(CHANGED.policy.withdrawals.daily_limit);
  });

  it('given a proposal made against an older policy, when approved, then it is superseded and the file forgotten', () => {
    const d = decide(given(), vote('approve', 'U0ERIN', proposal({ baseHash: 'an-older-policy' })), facts);
    expect(d.result).toMatchObject({ ok: false });
    expect(d.writes.proposals).toEqual([expect.objectContaining({ state: 'superseded' })]);
    expect(d.writes.seen).toBeNull();
    expect(d.writes.inForce).toBeUndefined();
  });

  it('given a proposal made before unknown keys were refused, when approved, then refused with the key, superseded, nothing applied', () => {
    // Only an older version could have proposed it: this one refuses such a file before anyone is asked.
    const text = CHANGED.text.replace('daily_limit:', 'daily_limt:');
    const d = decide(given(), vote('approve', 'U0ERIN', proposal({ text })), facts);
    expect(d.result).toMatchObject({ ok: false });
    expect(d.result.ok || d.result.message).toContain(
      'withdrawals.daily_limt is not a policy key; did you mean daily_limit?',
    );
    expect(d.writes.proposals).toEqual([expect.objectContaining({ id: 'p-1', state: 'superseded' })]);
    expect(d.writes.seen).toBeNull(); // the file is read again, and the admins told what is wrong with it
    expect(d.writes.inForce).toBeUndefined();
    expect(d.applied).toBeUndefined();
    expect(d.audit.map((a) => a.action)).toEqual(['policy_supersede']);
  });

  it('given a pending proposal, when an admin rejects it, then rejected with who and when', () => {
    const d = decide(given(), vote('reject', 'U0ERIN', proposal({ approvals: [{ user: 'U0FRANK', at: AT }] })), facts);
    expect(d.result).toMatchObject({
      ok: true,
      applied: false,
      proposal: { state: 'rejected', rejection: { user: 'U0ERIN', at: AT } },
    });
    expect(d.audit).toEqual([
      expect.objectContaining({
        action: 'policy_reject',
        details: expect.objectContaining({ approvalsBefore: ['U0FRANK'] }),
      }),
    ]);
  });

  it('given a proposal already decided, when anyone approves or rejects, then refused with what became of it', () => {
    for (const [state, words] of [
      ['applied', 'already applied'],
      ['rejected', 'rejected'],
      ['superseded', 'replaced by a newer version of the file'],
    ] as const) {
      const d = decide(given(), vote('reject', 'U0ERIN', proposal({ state })), facts);
      expect(d.result).toEqual({
        ok: false,
        message: `This policy change is no longer waiting for decisions: it was ${words}.`,
      });
      expect(d.audit).toEqual([]);
    }
  });
});

describe('a sanctioned address added to the allowlist (issue 36)', () => {
  const sanctioned = (a: string) => (a === NEW_ADDR ? 'it is on the OFAC sanctions list of 2026-11-27' : undefined);

  it('cannot be proposed: the file is refused as unusable, the admins told, nothing proposed', () => {
    const d = decide(given(), { type: 'file-changed', reading: CHANGED }, { ...facts, sanctioned });
    expect(d.result).toMatchObject({ kind: 'invalid' });
    expect(d.writes.proposals).toEqual([]);
    expect(d.writes.problem?.error).toContain(
      `${NEW_ADDR} (desk) cannot be allowlisted: it is on the OFAC sanctions list`,
    );
    expect(d.audit.map((a) => a.action)).toEqual(['policy_invalid']);
    expect(d.notices.length).toBeGreaterThan(0);
    // An address already allowlisted is not judged again here (the rule table refuses withdrawals to it).
    const kept = decide(
      given(),
      { type: 'file-changed', reading: usable(yaml({ limit: '5000' })) },
      {
        ...facts,
        sanctioned: (a) => (a === ADDR ? 'listed' : undefined),
      },
    );
    expect(kept.result).toMatchObject({ kind: 'proposed' });
  });

  it('listed after it was proposed: the approval is refused and the proposal set aside', () => {
    const d = decide(given({ pending: proposal() }), vote('approve', 'U0ERIN', proposal()), { ...facts, sanctioned });
    expect(d.result).toMatchObject({ ok: false, message: expect.stringContaining('cannot be allowlisted') });
    expect(d.writes.proposals.map((p) => p.state)).toEqual(['superseded']);
    expect(d.applied).toBeUndefined();
  });
});
