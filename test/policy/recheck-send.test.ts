/**
 * Re-check before sending, through the real withdrawal service and the sandbox over HTTP: a
 * request approved under one policy is judged under the policy in force when it is claimed
 * for sending. The policy changes between the approval (durable) and the claim, through the
 * service's own test seam, as a change applied at that moment would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import type { Policy } from '../../src/policy/schema.js';
import { recentAudit } from '../../src/audit/index.js';
import { testPolicy, usdt, world, type World } from '../withdrawals/helpers.js';
import { changingPolicy } from '../helpers/policy-source.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const raisedTier = (): Policy =>
  parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people:
  requesters: [U0ALICE]
  approvers: [U0CAROL, U0DAVE, U0ERIN]
  admins: [U0ERIN]
withdrawals:
  tiers:
    default:
      - { max: 1000, approvals: 2, must_include: [U0ERIN] }
      - { approvals: 3 }
`);

describe('re-check before sending', () => {
  it('approved under the old policy, tier raised before the claim: not sent, waits for the extra approval, then sent once', async () => {
    let policy = testPolicy();
    let raiseOnce = true;
    w = await world({
      service: {
        policy: changingPolicy(() => policy),
        hooks: {
          afterApprovalDurable: (r) => {
            if (r.state === 'approved' && raiseOnce) {
              raiseOnce = false;
              policy = raisedTier();
            }
          },
        },
      },
    });
    const req = await w.service.request(usdt('500'), 'U0ALICE');
    if (!req.ok) throw new Error(req.message);
    const first = await w.service.approve(req.request.id, 'U0CAROL');
    expect(first.ok && first.execution).toBeTruthy();
    const after = await (first as { execution: Promise<unknown> }).execution;
    expect(after).toMatchObject({ state: 'pending', tier: { approvals: 2, mustInclude: ['U0ERIN'] } });
    expect(w.posts()).toBe(0);
    const audit = recentAudit(w.store, 20).map((e) => e.action);
    expect(audit).toContain('policy_recheck_waits');
    expect(audit).not.toContain('send');
    expect(w.events.map((e) => e.type)).toContain('reopened');

    // Dave is not who the tier must include: refused; Erin is.
    const dave = await w.service.approve(req.request.id, 'U0DAVE');
    expect(dave).toMatchObject({ ok: false, reason: 'must_include_required' });
    const erin = await w.service.approve(req.request.id, 'U0ERIN');
    const sent = await (erin as { execution: Promise<{ state: string; merchantReference: string }> }).execution;
    expect(sent.state).toBe('completed');
    expect(w.posts()).toBe(1);
    expect(w.sandboxWithdrawals(sent.merchantReference)).toBe(1);
  });

  it('step_up_above lowered before the claim: an approval given without a code no longer counts; one with a code does', async () => {
    let policy = testPolicy();
    let lowerOnce = true;
    w = await world({
      service: {
        policy: changingPolicy(() => policy),
        hooks: {
          afterApprovalDurable: (r) => {
            if (r.state === 'approved' && lowerOnce) {
              lowerOnce = false;
              policy = { ...policy, withdrawals: { ...policy.withdrawals, step_up_above: { USDT: '100' } } };
            }
          },
        },
      },
    });
    const req = await w.service.request(usdt('500'), 'U0ALICE');
    if (!req.ok) throw new Error(req.message);
    const first = await w.service.approve(req.request.id, 'U0CAROL');
    const after = await (first as { execution: Promise<{ state: string; approvals: unknown[] }> }).execution;
    // Not sent: back to waiting, Carol's code-less approval dropped, and the reason says a code is needed.
    expect(after).toMatchObject({ state: 'pending', approvals: [] });
    expect(w.posts()).toBe(0);
    const waits = recentAudit(w.store, 20).find((e) => e.action === 'policy_recheck_waits');
    expect(String(waits?.details.missing)).toContain('given with an authenticator code');
    // The plain path is refused now; an approval with a verified code is recorded with it and the request is sent once.
    expect(await w.service.approve(req.request.id, 'U0DAVE')).toMatchObject({ ok: false, reason: 'step_up_required' });
    const withCode = await w.service.approve(req.request.id, 'U0DAVE', { stepUp: 'verified' });
    const sent = await (withCode as { execution: Promise<{ state: string; approvals: Array<{ stepUp?: string }> }> })
      .execution;
    expect(sent.state).toBe('completed');
    expect(sent.approvals[0]!.stepUp).toBe('verified');
    expect(w.posts()).toBe(1);
  });

  it('destination removed from an enforced allowlist before the claim: refused, with the reason on the request', async () => {
    let policy = testPolicy({ allowlist: 'warn' });
    w = await world({
      service: {
        policy: changingPolicy(() => policy),
        hooks: {
          afterApprovalDurable: () => {
            policy = testPolicy({ allowlist: 'enforce' });
          },
        },
      },
    });
    const req = await w.service.request(usdt('500'), 'U0ALICE');
    if (!req.ok) throw new Error(req.message);
    const first = await w.service.approve(req.request.id, 'U0CAROL');
    const after = (await (first as { execution: Promise<unknown> }).execution) as {
      state: string;
      rejection: { user: string; reason: string };
    };
    expect(after.state).toBe('rejected');
    expect(after.rejection.user).toBe('system');
    expect(after.rejection.reason).toContain('No longer allowed by the treasury policy in force');
    expect(after.rejection.reason).toContain('not on the allowlist');
    expect(w.posts()).toBe(0);
    expect(recentAudit(w.store, 20).map((e) => e.action)).toContain('policy_recheck_refused');
  });

  it('a request created under the policy in force is not judged again: a group look-up failing closed (Slack down) drops no approval', async () => {
    let slackUp = true;
    const groups = {
      membersOf: async (id: string) => (slackUp && id === 'S0TREASURY' ? ['U0GRACE'] : []),
    };
    const sendOnce = async (policyInForceSince?: () => number) => {
      w = await world({
        service: {
          groups,
          ...(policyInForceSince ? { policyInForceSince } : {}),
          hooks: {
            afterApprovalDurable: () => {
              slackUp = false;
            },
          },
        },
      });
      slackUp = true;
      const req = await w.service.request(usdt('500'), 'U0ALICE');
      if (!req.ok) throw new Error(req.message);
      const approved = await w.service.approve(req.request.id, 'U0GRACE');
      const after = (await (approved as { execution: Promise<unknown> }).execution) as { state: string };
      await w.close();
      w = undefined;
      return after.state;
    };
    // In force since before the request: sent as approved.
    expect(await sendOnce(() => 0)).toBe('completed');
    // Unknown since when (judged again): the group member's approval no longer reads as an approver's.
    expect(await sendOnce()).toBe('pending');
  });
});
