/** Who may decide, distinct approvers, must_include, rejection, expiry, reminders, concurrency. */
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION, recentAudit, verifyAudit, type AuditEntry } from '../../src/audit/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { T0, usdt, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function requested(input: ReturnType<typeof usdt>, by = 'U0ALICE'): Promise<WithdrawalRequest> {
  const r = await w!.service.request(input, by);
  if (!r.ok) throw new Error(`${r.rule}: ${r.message}`);
  return r.request;
}

const denied = (o: { ok: boolean; reason?: string; message?: string }, reason: string) => {
  expect(o.ok, JSON.stringify(o)).toBe(false);
  expect(o.reason).toBe(reason);
  expect(o.message).toBeTruthy();
};

/** A refused decision must change nothing: same record, no audit entry. */
async function deniedWithoutChange(p: Promise<{ ok: boolean; reason?: string }>, id: string, reason: string) {
  const before = w!.service.get(id);
  const auditBefore = w!.store.count(AUDIT_COLLECTION);
  denied(await p, reason);
  expect(w!.service.get(id)).toEqual(before);
  expect(w!.store.count(AUDIT_COLLECTION)).toBe(auditBefore);
}

describe('approvals', () => {
  it('the requester cannot approve their own request, even as an approver', async () => {
    w = await world();
    const r = await requested(usdt('10'));
    await deniedWithoutChange(w.service.approve(r.id, 'U0ALICE'), r.id, 'own_request');
    await deniedWithoutChange(w.service.reject(r.id, 'U0ALICE', 'changed my mind'), r.id, 'own_request');
    expect(w.posts()).toBe(0);
  });

  it('someone who is not an approver cannot decide; unknown ids are refused', async () => {
    w = await world();
    const r = await requested(usdt('10'));
    await deniedWithoutChange(w.service.approve(r.id, 'U0BOB'), r.id, 'not_approver');
    await deniedWithoutChange(w.service.reject(r.id, 'U0BOB', 'no'), r.id, 'not_approver');
    denied(await w.service.approve('nope', 'U0CAROL'), 'not_found');
    expect(w.service.get(r.id)?.state).toBe('pending');
  });

  it('approvals must be distinct: a second approval by the same person does not count', async () => {
    w = await world();
    const r = await requested(usdt('5000')); // 2 approvals
    const first = await w.service.approve(r.id, 'U0CAROL');
    expect(first.ok && first.execution).toBeUndefined();
    await deniedWithoutChange(w.service.approve(r.id, 'U0CAROL'), r.id, 'already_approved');
    expect(w.service.get(r.id)?.state).toBe('pending');
    expect(w.posts()).toBe(0);
    const second = await w.service.approve(r.id, 'U0DAVE');
    if (!second.ok) throw new Error(second.message);
    expect(second.request.state).toBe('approved');
    const done = await second.execution!;
    expect(done.state).toBe('completed');
    expect(done.approvals.map((a) => a.user)).toEqual(['U0CAROL', 'U0DAVE']);
    expect(w.posts()).toBe(1);
    await deniedWithoutChange(w.service.approve(r.id, 'U0ERIN'), r.id, 'not_pending');
  });

  it("the tier's must_include (a user) must be among the approvers", async () => {
    w = await world({ policy: { dailyLimit: {} } });
    const r = await requested(usdt('20000')); // 3 approvals incl. U0ERIN
    expect((await w.service.approve(r.id, 'U0CAROL')).ok).toBe(true);
    expect((await w.service.approve(r.id, 'U0DAVE')).ok).toBe(true);
    // The last slot is reserved for Erin.
    await deniedWithoutChange(w.service.approve(r.id, 'U0FRANK'), r.id, 'must_include_required');
    expect(w.posts()).toBe(0);
    const last = await w.service.approve(r.id, 'U0ERIN');
    if (!last.ok) throw new Error(last.message);
    expect((await last.execution!).state).toBe('completed');
    expect(w.posts()).toBe(1);
  });

  it("must_include may name a user group: a member's approval satisfies it", async () => {
    w = await world();
    const r = await requested({ ...usdt('50'), currency: 'ETH', network: 'ETH' }); // 2 approvals incl. S0TREASURY
    expect((await w.service.approve(r.id, 'U0CAROL')).ok).toBe(true);
    await deniedWithoutChange(w.service.approve(r.id, 'U0DAVE'), r.id, 'must_include_required');
    const grace = await w.service.approve(r.id, 'U0GRACE'); // member of S0TREASURY
    if (!grace.ok) throw new Error(grace.message);
    expect(grace.request.approvals[1]).toMatchObject({ user: 'U0GRACE', satisfies: ['S0TREASURY'] });
    expect((await grace.execution!).state).toBe('completed');
  });

  it('two approvers, a double click and a retried interaction at the same moment send exactly once', async () => {
    w = await world();
    const r = await requested(usdt('5000')); // 2 approvals
    const clicks = [
      'U0CAROL',
      'U0DAVE',
      'U0CAROL',
      'U0DAVE',
      'U0ERIN',
      'U0CAROL',
      'U0DAVE',
      'U0FRANK',
      'U0ERIN',
      'U0DAVE',
    ];
    const results = await Promise.all(clicks.map((u) => w!.service.approve(r.id, u)));
    const oks = results.filter((x) => x.ok);
    expect(oks).toHaveLength(2);
    const executions = results.flatMap((x) => (x.ok && x.execution ? [x.execution] : []));
    expect(executions).toHaveLength(1);
    const done = await executions[0]!;
    expect(done.state).toBe('completed');
    expect(done.approvals).toHaveLength(2);
    expect(new Set(done.approvals.map((a) => a.user)).size).toBe(2);
    expect(w.posts()).toBe(1);
    expect(w.sandboxWithdrawals(r.merchantReference)).toBe(1);
    for (const x of results) if (!x.ok) expect(['already_approved', 'not_pending']).toContain(x.reason);
  });

  it('one rejection with a reason ends the request; nothing is sent', async () => {
    w = await world();
    const r = await requested(usdt('5000'));
    expect((await w.service.approve(r.id, 'U0CAROL')).ok).toBe(true);
    await deniedWithoutChange(w.service.reject(r.id, 'U0DAVE', '   '), r.id, 'reason_required');
    const rej = await w.service.reject(r.id, 'U0DAVE', 'unknown payee');
    if (!rej.ok) throw new Error(rej.message);
    expect(rej.request.state).toBe('rejected');
    expect(rej.request.rejection).toMatchObject({ user: 'U0DAVE', reason: 'unknown payee' });
    await deniedWithoutChange(w.service.approve(r.id, 'U0ERIN'), r.id, 'not_pending');
    await deniedWithoutChange(w.service.reject(r.id, 'U0ERIN', 'again'), r.id, 'not_pending');
    expect(w.posts()).toBe(0);
    expect(w.events.map((e) => e.type)).toEqual(['requested', 'approval-recorded', 'rejected']);
  });

  it('expiry: no decision after expires_after; expireDue expires it once', async () => {
    w = await world();
    const r = await requested(usdt('5000'));
    w.clock.now = Date.parse(r.expiresAt);
    await deniedWithoutChange(w.service.approve(r.id, 'U0CAROL'), r.id, 'expired');
    expect(w.service.get(r.id)?.state).toBe('pending');
    const expired = await w.service.expireDue();
    expect(expired.map((x) => x.id)).toEqual([r.id]);
    expect(w.service.get(r.id)?.state).toBe('expired');
    expect(await w.service.expireDue()).toEqual([]);
    await deniedWithoutChange(w.service.approve(r.id, 'U0CAROL'), r.id, 'not_pending');
    expect(w.posts()).toBe(0);
    expect(w.store.all<AuditEntry>(AUDIT_COLLECTION).filter((e) => e.action === 'expire')).toHaveLength(1);
  });

  it('a reminder is due remind_before ahead of expiry and recorded once', async () => {
    w = await world({ policy: { expiresAfter: '2h', remindBefore: '30m' } });
    const r = await requested(usdt('10'));
    w.clock.now = T0 + 89 * 60_000;
    expect(await w.service.remindersDue()).toEqual([]);
    w.clock.now = T0 + 90 * 60_000;
    const due = await w.service.remindersDue();
    expect(due.map((x) => x.id)).toEqual([r.id]);
    expect(due[0]?.reminderSentAt).toBe(new Date(w.clock.now).toISOString());
    w.clock.now += 60_000;
    expect(await w.service.remindersDue()).toEqual([]);
    expect(w.events.filter((e) => e.type === 'reminder')).toHaveLength(1);
    expect(recentAudit(w.store, 1)[0]?.action).toBe('remind');
    // Past expiry nothing is reminded, it is expired.
    const late = await requested(usdt('10'), 'U0BOB');
    w.clock.now = Date.parse(late.expiresAt) + 1;
    expect(await w.service.remindersDue()).toEqual([]);
  });

  it('a settled, expired, missing or own request is refused without any group lookup (a Slack API call)', async () => {
    // U0ZED is in no list, so only a group lookup could make them an approver: every lookup here throws.
    const lookups: string[] = [];
    w = await world({
      service: {
        groups: {
          membersOf: async (id) => {
            lookups.push(id);
            throw new Error('usergroups.users.list is unavailable');
          },
        },
      },
    });
    const settled = await requested(usdt('5000'));
    expect((await w.service.reject(settled.id, 'U0DAVE', 'unknown payee')).ok).toBe(true);
    const own = await requested(usdt('5000'));
    for (const kind of ['approve', 'reject'] as const) {
      expect(await w.service.checkDecision(settled.id, 'U0ZED', kind)).toMatchObject({
        ok: false,
        reason: 'not_pending',
      });
      expect(await w.service.checkDecision('nope', 'U0ZED', kind)).toMatchObject({ ok: false, reason: 'not_found' });
      expect(await w.service.checkDecision(own.id, 'U0ALICE', kind)).toMatchObject({
        ok: false,
        reason: 'own_request',
      });
    }
    await deniedWithoutChange(w.service.approve(settled.id, 'U0ZED'), settled.id, 'not_pending');
    await deniedWithoutChange(w.service.reject(settled.id, 'U0ZED', 'no'), settled.id, 'not_pending');
    await deniedWithoutChange(w.service.approve(own.id, 'U0ALICE'), own.id, 'own_request');
    w.clock.now = Date.parse(own.expiresAt);
    expect(await w.service.checkDecision(own.id, 'U0ZED', 'approve')).toMatchObject({ ok: false, reason: 'expired' });
    await deniedWithoutChange(w.service.approve(own.id, 'U0ZED'), own.id, 'expired');
    // Nothing open to decide on: no lookup either.
    expect(await w.service.awaitingDecisionBy('U0ZED')).toEqual([]);
    expect(lookups).toEqual([]);
    // The control: on an open request the same user's role does need the lookup (and here it fails).
    w.clock.now = T0;
    const open = await requested(usdt('5000'));
    await expect(w.service.checkDecision(open.id, 'U0ZED', 'approve')).rejects.toThrow('usergroups');
    expect(lookups).toContain('S0TREASURY');
  });

  it('a failing change hook cannot break the domain', async () => {
    w = await world();
    w.rebuild({
      onChange: () => {
        throw new Error('slack is down');
      },
    });
    const r = await requested(usdt('10'));
    const a = await w.service.approve(r.id, 'U0CAROL');
    expect(a.ok && (await a.execution!).state).toBe('completed');
    // Failing only once the quorum is complete: the send still goes out and is recorded.
    w.rebuild({
      onChange: (e) => {
        if (e.type === 'approved' || e.type === 'executing') throw new Error('failure mid-way');
      },
    });
    const r2 = await requested(usdt('10'));
    const a2 = await w.service.approve(r2.id, 'U0CAROL');
    expect(a2.ok && (await a2.execution!).state).toBe('completed');
    expect(verifyAudit(w.store).ok).toBe(true);
  });
});
