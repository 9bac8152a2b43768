/**
 * The team's queue as data (src/withdrawals/queue.ts) and the reminder's pure rules
 * (src/withdrawals/reminders.ts): given requests built by the decider, what each still needs
 * (ids, never words), in which order, and who a reminder DM is for. No store, no Slack.
 */
import { describe, expect, it } from 'vitest';
import { decide, type WithdrawalCommand } from '../../src/withdrawals/decide/index.js';
import { stillNeeds, teamQueue } from '../../src/withdrawals/queue.js';
import { approverReminderDue, reminderRecipients } from '../../src/withdrawals/reminders.js';
import { admitRequest } from '../../src/withdrawals/rules.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { DEST, T0, testPolicy } from './helpers.js';

const policy = testPolicy();
const MIN = 60_000;

function made(amount: string, o: { id?: string; by?: string; currency?: string; at?: number } = {}): WithdrawalRequest {
  const checked = admitRequest(
    policy,
    {
      amount,
      currency: o.currency ?? 'USDT',
      network: o.currency === 'ETH' ? 'ETH' : 'BSC',
      destination: DEST,
      clientEmail: 'c@example.com',
      note: 'n',
    },
    true,
  );
  if (!checked.ok) throw new Error(checked.message);
  const d = decide(
    {
      type: 'request',
      requester: o.by ?? 'U0ALICE',
      checked,
      id: o.id ?? 'w1',
      merchantReference: `ref-${o.id ?? 'w1'}`,
      existing: [],
    },
    undefined,
    { now: o.at ?? T0, policy },
  );
  if (d.kind !== 'changed') throw new Error('not made');
  return d.next;
}

function then(r: WithdrawalRequest, c: WithdrawalCommand, now = T0 + MIN): WithdrawalRequest {
  const d = decide(c, r, { now, policy });
  if (d.kind !== 'changed') throw new Error(`${c.type}: ${JSON.stringify(d)}`);
  return d.next;
}
const approve = (user: string, satisfies: string[] = []): WithdrawalCommand => ({
  type: 'approve',
  user,
  isApprover: true,
  satisfies,
});

describe('what a request still needs', () => {
  it("names every approver who may still approve (not the requester, not who approved), with the tier's must_include", () => {
    // Alice is both requester and approver here: never asked to approve her own request.
    const r = made('20000');
    expect(stillNeeds(r, policy, false)).toEqual({
      kind: 'approvals',
      more: 3,
      from: ['U0CAROL', 'U0DAVE', 'U0ERIN', 'U0FRANK', 'S0TREASURY'],
      mustInclude: ['U0ERIN'],
      onlyFrom: false,
    });
    const one = then(r, approve('U0CAROL'));
    expect(stillNeeds(one, policy, false)).toMatchObject({
      more: 2,
      from: ['U0DAVE', 'U0ERIN', 'U0FRANK', 'S0TREASURY'],
    });
    // The last slot is reserved for Erin: only she may give it (the decider refuses anyone else).
    const two = then(one, approve('U0DAVE'));
    expect(stillNeeds(two, policy, false)).toEqual({
      kind: 'approvals',
      more: 1,
      from: ['U0ERIN'],
      mustInclude: ['U0ERIN'],
      onlyFrom: true,
    });
    const refused = decide(approve('U0FRANK'), two, { now: T0 + MIN, policy });
    expect(refused.kind).toBe('refused');
  });

  it('a group in must_include is reserved as the group', () => {
    const r = then(made('50', { currency: 'ETH' }), approve('U0CAROL'));
    expect(stillNeeds(r, policy, false)).toEqual({
      kind: 'approvals',
      more: 1,
      from: ['S0TREASURY'],
      mustInclude: ['S0TREASURY'],
      onlyFrom: true,
    });
  });

  it('anyone ("*") stays anyone', () => {
    const open = { ...policy, people: { ...policy.people, approvers: ['*'] } };
    expect(stillNeeds(made('10'), open, false)).toMatchObject({ from: ['*'], more: 1 });
  });

  it('after the approvals: being sent, waiting for an unfreeze, or for an admin (a hold, an unknown outcome)', () => {
    const approved = then(made('10'), approve('U0CAROL'));
    expect(approved.state).toBe('approved');
    expect(stillNeeds(approved, policy, false)).toEqual({ kind: 'sending' });
    expect(stillNeeds(approved, policy, true)).toEqual({ kind: 'unfreeze', who: ['U0ERIN'] });
    const held = {
      ...approved,
      hold: { kind: 'retyped' as const, original: 'w0', status: '', at: new Date(T0).toISOString() },
    };
    expect(stillNeeds(held, policy, true)).toEqual({ kind: 'admin', why: 'hold', who: ['U0ERIN'] });
    expect(stillNeeds({ ...approved, state: 'unknown' }, policy, false)).toEqual({
      kind: 'admin',
      why: 'unknown',
      who: ['U0ERIN'],
    });
  });
});

describe('the team queue', () => {
  it('holds the open requests only, the one expiring first on top, with age, time left and marks', () => {
    const older = made('10', { id: 'a', at: T0 });
    const newer = made('20', { id: 'b', at: T0 + 10 * MIN });
    const rejected = then(made('30', { id: 'c' }), { type: 'reject', user: 'U0CAROL', isApprover: true, reason: 'no' });
    const sent = { ...then(made('40', { id: 'd' }), approve('U0CAROL')), state: 'completed' as const };
    const q = teamQueue([newer, rejected, sent, older], policy, T0 + 30 * MIN, true);
    expect(q.map((e) => e.request.id)).toEqual(['a', 'b']);
    expect(q[0]).toMatchObject({ ageMs: 30 * MIN, leftMs: 90 * MIN, frozen: true, held: false });
    expect(q[1]).toMatchObject({ ageMs: 20 * MIN, leftMs: 100 * MIN });
    // Past its expiry but not yet expired by the job: time left is 0, never negative.
    expect(teamQueue([older], policy, T0 + 3 * 60 * MIN, false)[0]!.leftMs).toBe(0);
  });
});

describe('the reminder DM', () => {
  it('is due past 75% of the time between request and expiry, while pending and not expired', () => {
    const r = made('20000');
    expect(approverReminderDue(r, T0 + 89 * MIN)).toBe(false);
    expect(approverReminderDue(r, T0 + 90 * MIN)).toBe(true);
    expect(approverReminderDue(r, T0 + 120 * MIN)).toBe(false);
    const rejected = then(r, { type: 'reject', user: 'U0CAROL', isApprover: true, reason: 'no' });
    expect(approverReminderDue(rejected, T0 + 100 * MIN)).toBe(false);
  });

  it('goes to the people still needed, groups as their members, never the requester nor who approved', () => {
    const r = then(made('20000', { by: 'U0BOB' }), approve('U0CAROL'));
    const members = (g: string) => (g === 'S0TREASURY' ? ['U0GRACE', 'U0BOB', 'U0CAROL'] : []);
    expect(reminderRecipients(r, policy, members).sort()).toEqual([
      'U0ALICE',
      'U0DAVE',
      'U0ERIN',
      'U0FRANK',
      'U0GRACE',
    ]);
    // Reserved for Erin: only she is reminded.
    const two = then(r, approve('U0DAVE'));
    expect(reminderRecipients(two, policy, members)).toEqual(['U0ERIN']);
    // Anyone may approve: nobody by DM (the card's thread reminder reaches the channel).
    expect(reminderRecipients(r, { ...policy, people: { ...policy.people, approvers: ['*'] } }, members)).toEqual([]);
  });
});
