/**
 * The pure rules of governed policy in the withdrawal decider: the allowlist cooling-off
 * (an address approved by a change is usable only `cooloff` after the approval; the first
 * policy's at once) and the re-check under the policy in force before a send.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { addressKey } from '../../src/policy/governance/types.js';
import { decide } from '../../src/withdrawals/decide/index.js';
import { missingWords, recheck } from '../../src/withdrawals/recheck.js';
import { checkAllowlist, usableFrom, type AllowlistApprovals } from '../../src/withdrawals/rules.js';
import type { MissingApprovals, WithdrawalRequest } from '../../src/withdrawals/types.js';
import { renderThread } from '../../src/slack/withdrawal/thread.js';
import { encodeThreadLine } from '../../src/slack/withdrawal/thread-ref.js';
import { NETWORKS, lookup } from '../../src/wallet/enums.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const NEW = '0xABab000000000000000000000000000000000001';
const OLD = '0x1111111111111111111111111111111111111111';

const policy = (mode: 'enforce' | 'warn', extra = '') =>
  parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE, U0ERIN], admins: [U0ERIN] }
withdrawals:
  tiers:
    default:
      - { max: 1000, approvals: 1 }
      - { approvals: 2 }
  allowlist:
    mode: ${mode}
    cooloff: 24h
    addresses:
      - { address: "${OLD}", network: BSC, label: "Exchange hot wallet" }
      - { address: "${NEW}", network: BSC, label: "New desk" }
${extra}`);

const approvals: AllowlistApprovals = {
  [addressKey('BSC', OLD)]: { approvedAt: new Date(T0 - 100 * HOUR).toISOString(), initial: true },
  // Approved by a change at T0: usable from T0 + 24 h. Written in other letters than the policy: the same address.
  [addressKey('BSC', NEW.toLowerCase())]: { approvedAt: new Date(T0).toISOString(), initial: false },
};
const bsc = lookup(NETWORKS, 'BSC')!;
const to = (destination: string) => ({ family: 'evm' as const, destination, network: bsc });

describe('allowlist cooling-off (pure rule)', () => {
  it('an address from the first policy is usable at once; one added by a change, cooloff after its approval', () => {
    const p = policy('warn');
    expect(usableFrom(p, { network: 'BSC', address: OLD }, approvals)).toBeUndefined();
    expect(usableFrom(p, { network: 'BSC', address: NEW }, approvals)).toBe(T0 + 24 * HOUR);
    // Nothing governed (a policy given in code): every address is usable at once.
    expect(usableFrom(p, { network: 'BSC', address: NEW }, undefined)).toBeUndefined();
  });

  it('warn: flagged as not yet usable, with the time; listed once the cooling-off is over', () => {
    const p = policy('warn');
    expect(checkAllowlist(p, to(NEW), [], { now: T0 + 23 * HOUR, approvals })).toEqual({
      status: 'unlisted',
      label: 'New desk',
      usableFrom: new Date(T0 + 24 * HOUR).toISOString(),
      neverPaidBefore: true,
    });
    expect(checkAllowlist(p, to(NEW), [], { now: T0 + 24 * HOUR, approvals })).toMatchObject({ status: 'listed' });
    expect(checkAllowlist(p, to(OLD), [], { now: T0, approvals })).toMatchObject({ status: 'listed' });
  });

  it('enforce: refused until the cooling-off is over, saying from when (UTC)', () => {
    const p = policy('enforce');
    const r = checkAllowlist(p, to(NEW), [], { now: T0 + HOUR, approvals });
    expect(r).toMatchObject({ ok: false, rule: 'allowlist' });
    expect((r as { message: string }).message).toContain('usable only from 2030-01-02 00:00 UTC');
    expect(checkAllowlist(p, to(NEW), [], { now: T0 + 25 * HOUR, approvals })).toMatchObject({ status: 'listed' });
  });

  it('the decider refuses a request to a cooling address under enforce, with the approval times as a fact', () => {
    const p = policy('enforce');
    const checked = {
      ok: true as const,
      amount: '10',
      currency: { code: 4, name: 'USDT', aliases: [], decimals: 6 },
      network: bsc,
      family: 'evm' as const,
      destination: NEW,
      clientEmail: 'c@example.com',
      note: '',
      tier: { index: 0, max: '1000', approvals: 1, mustInclude: [] },
    };
    const cmd = {
      type: 'request',
      requester: 'U0ALICE',
      checked,
      id: 'r1',
      merchantReference: 'm1',
      existing: [],
    } as const;
    expect(decide(cmd, undefined, { now: T0 + HOUR, policy: p, allowlistApprovals: approvals })).toMatchObject({
      kind: 'refused',
      reason: 'allowlist',
    });
    expect(decide(cmd, undefined, { now: T0 + 25 * HOUR, policy: p, allowlistApprovals: approvals })).toMatchObject({
      kind: 'changed',
    });
  });
});

const approved = (o: Partial<WithdrawalRequest> = {}): WithdrawalRequest => ({
  id: 'r1',
  merchantReference: 'm1',
  requester: 'U0ALICE',
  amount: '500',
  currency: 'USDT',
  network: 'BSC',
  destination: OLD,
  clientEmail: 'c@example.com',
  note: '',
  state: 'approved',
  tier: { index: 0, max: '1000', approvals: 1, mustInclude: [] },
  approvals: [{ user: 'U0CAROL', at: new Date(T0).toISOString(), satisfies: [] }],
  createdAt: new Date(T0).toISOString(),
  expiresAt: new Date(T0 + 2 * HOUR).toISOString(),
  allowlist: { status: 'listed', label: 'Exchange hot wallet', neverPaidBefore: true },
  history: [],
  ...o,
});
const still = { U0CAROL: { isApprover: true, satisfies: [] } };

describe('re-check under the policy in force (pure)', () => {
  it('passes unchanged when the policy still allows it as approved', () => {
    expect(recheck(approved(), { now: T0, policy: policy('warn') }, still)).toMatchObject({
      kind: 'passes',
      changed: false,
    });
  });

  it('a tier that now needs more approvals or a must_include: waits, saying what is missing', () => {
    const raised = parsePolicy(
      `channels: { approvals: C0A1, alerts: C0A2 }\npeople: { approvers: [U0CAROL, U0ERIN] }\nwithdrawals: { tiers: { default: [ { approvals: 2, must_include: [U0ERIN] } ] }, allowlist: { addresses: [ { address: "${OLD}", network: BSC, label: "Exchange hot wallet" } ] } }`,
    );
    const r = recheck(approved(), { now: T0, policy: raised }, still);
    // What is missing is data (the domain writes no Slack mention); the words are made from it.
    expect(r).toMatchObject({ kind: 'waits', missing: { left: 1, mustInclude: ['U0ERIN'] } });
    const back = decide({ type: 'recheck', facts: still }, approved({ state: 'pending' }), {
      now: T0,
      policy: raised,
    });
    expect(back).toMatchObject({ kind: 'changed' });
    const next = (back as { next: WithdrawalRequest }).next;
    // The history note and the audit entry name people plainly; the thread line names them as mentions.
    expect(next.history.at(-1)?.note).toBe(
      'the policy in force now needs 1 more approval, including the approval of U0ERIN',
    );
    expect(
      renderThread(encodeThreadLine({ kind: 'policy', id: next.id, mentions: [] }), () => next, 'mainnet'),
    ).toEqual({
      text: '🔁 Back to waiting: the policy in force now needs 1 more approval, including the approval of <@U0ERIN>.',
    });
  });

  it('an approver removed from the policy no longer counts', () => {
    const r = recheck(
      approved(),
      { now: T0, policy: policy('warn') },
      { U0CAROL: { isApprover: false, satisfies: [] } },
    );
    expect(r).toMatchObject({ kind: 'waits', missing: { left: 1, mustInclude: [] } });
    expect(missingWords((r as { missing: MissingApprovals }).missing, String)).toBe('1 more approval');
  });

  it('a destination removed from a warn-mode allowlist: approvals given on the "allowlisted" tick count no more', () => {
    const removed = recheck(
      approved({ destination: '0x2222222222222222222222222222222222222222' }),
      { now: T0, policy: policy('warn') },
      still,
    );
    expect(removed).toMatchObject({ kind: 'waits', next: { approvals: [], allowlist: { status: 'unlisted' } } });
    expect(missingWords((removed as { missing: MissingApprovals }).missing, String)).toContain(
      'the destination is no longer on the allowlist',
    );
    // A pending request with no approvals yet: its card must stop saying "allowlisted" (reopened, flag shown).
    const pending = decide(
      { type: 'recheck', facts: {} },
      approved({ destination: '0x2222222222222222222222222222222222222222', state: 'pending', approvals: [] }),
      { now: T0, policy: policy('warn') },
    );
    expect(pending).toMatchObject({ kind: 'changed', next: { allowlist: { status: 'unlisted' } } });
  });

  it('a destination removed from an enforced allowlist, or still cooling off: refused with the reason', () => {
    const gone = recheck(
      approved({ destination: '0x2222222222222222222222222222222222222222' }),
      { now: T0, policy: policy('enforce') },
      still,
    );
    expect(gone).toMatchObject({ kind: 'refused' });
    expect((gone as { reason: string }).reason).toContain('is not on the allowlist');
    const cooling = recheck(
      approved({ destination: NEW }),
      { now: T0, policy: policy('enforce'), allowlistApprovals: approvals },
      still,
    );
    expect((cooling as { reason: string }).reason).toContain('usable only from');
  });

  it('claim-for-sending with the facts: executing, back to pending (reopened), or rejected by the policy', () => {
    const ok = decide({ type: 'claim-for-sending', recheck: still }, approved(), { now: T0, policy: policy('warn') });
    expect(ok).toMatchObject({ kind: 'changed', event: 'executing' });
    const twoNeeded = approved({ amount: '5000' });
    const waits = decide({ type: 'claim-for-sending', recheck: still }, twoNeeded, {
      now: T0 + HOUR,
      policy: policy('warn'),
    });
    expect(waits).toMatchObject({ kind: 'changed', event: 'reopened', audit: { action: 'policy_recheck_waits' } });
    const next = (waits as { next: WithdrawalRequest }).next;
    expect(next.state).toBe('pending');
    expect(next.tier.approvals).toBe(2);
    // Time to gather the missing approval: a fresh expiry from now.
    expect(Date.parse(next.expiresAt)).toBe(T0 + 3 * HOUR);
    const refused = decide(
      { type: 'claim-for-sending', recheck: still },
      approved({ destination: '0x2222222222222222222222222222222222222222' }),
      { now: T0, policy: policy('enforce') },
    );
    expect(refused).toMatchObject({
      kind: 'changed',
      event: 'rejected',
      next: { state: 'rejected', rejection: { user: 'system' } },
    });
    // Without facts about the approvers, the claim still runs the rule table (invariant 17): a request
    // whose tier asks for more than it has goes back to waiting, as recorded approvals count.
    expect(decide({ type: 'claim-for-sending' }, twoNeeded, { now: T0, policy: policy('warn') })).toMatchObject({
      event: 'reopened',
    });
  });
});
