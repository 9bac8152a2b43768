/**
 * The repeat hold through the real withdrawal service, store and sandbox (no Slack): a held
 * request that a policy re-check approves is still refused by the send claim.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recentAudit } from '../../src/audit/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import type { Policy } from '../../src/policy/schema.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import { testPolicy, usdt, world, type World } from './helpers.js';
import { changingPolicy } from '../helpers/policy-source.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** The test policy, but 5000 USDT needs one approval instead of two. */
const lowered = (): Policy =>
  parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people:
  requesters: [U0ALICE]
  approvers: [U0CAROL, U0DAVE, U0ERIN]
  admins: [U0ERIN]
withdrawals:
  tiers:
    default:
      - { max: 10000, approvals: 1 }
      - { approvals: 3 }
`);

describe('a held request and the policy in force', () => {
  it('approved by a policy re-check while held: the claim refuses it, nothing is sent', async () => {
    let policy = testPolicy();
    w = await world({ service: { policy: changingPolicy(() => policy) } });
    const first = await w.service.request(usdt('5000'), 'U0ALICE');
    if (!first.ok) throw new Error(first.message);
    // The first request, found never executed (as reconciliation records it).
    const original = {
      ...first.request,
      state: 'failed' as const,
      sendStartedAt: new Date(w.clock.now).toISOString(),
      error: { kind: 'never_executed' as const, message: 'Not sent: the wallet service has no record of it.' },
    };
    await w.store.commit((tx) => tx.put(WITHDRAWALS, original.id, original));
    const again = await w.service.request({ ...usdt('5000'), repeatOf: original.id }, 'U0ALICE');
    if (!again.ok) throw new Error(again.message);
    expect(again.request.tier.approvals).toBe(2);

    await w.service.onWithdrawalEvent({ merchantReference: original.merchantReference, status: 'PENDING' });
    expect(w.service.get(again.request.id)?.hold).toMatchObject({ original: original.id, status: 'PENDING' });
    expect((await w.service.approve(again.request.id, 'U0CAROL')).ok).toBe(true);

    policy = lowered();
    await w.service.recheckPending();
    await w.service.idle();
    expect(w.service.get(again.request.id)).toMatchObject({ state: 'approved', hold: { original: original.id } });
    const actions = recentAudit(w.store, 50)
      .filter((e) => e.subject === again.request.id)
      .map((e) => e.action);
    expect(actions).toContain('policy_recheck_approved');
    expect(actions).toContain('send_held_repeat');
    expect(actions).not.toContain('send');
    expect(w.posts()).toBe(0);
  });

  it('two repeats of one payout submitted at once: one is accepted, the other refused in its own commit; a retyped one held', async () => {
    w = await world();
    const first = await w.service.request(usdt('50'), 'U0ALICE');
    if (!first.ok) throw new Error(first.message);
    const original = {
      ...first.request,
      state: 'failed' as const,
      sendStartedAt: new Date(w.clock.now).toISOString(),
      error: { kind: 'never_executed' as const, message: 'Not sent: the wallet service has no record of it.' },
    };
    await w.store.commit((tx) => tx.put(WITHDRAWALS, original.id, original));
    const outcomes = await Promise.all([
      w.service.request({ ...usdt('50'), repeatOf: original.id }, 'U0ALICE'),
      w.service.request({ ...usdt('50'), repeatOf: original.id }, 'U0BOB'),
      // Retyped by hand, at the same moment: the same payout too.
      w.service.request(usdt('50.00'), 'U0ALICE'),
    ]);
    // The retyped one is never refused (it may be a separate payout); made while
    // another request of this payout is under way, it is made on hold. One request is free to be sent.
    expect(outcomes[2]!.ok).toBe(true);
    expect(outcomes.slice(0, 2).filter((o) => o.ok).length).toBeLessThanOrEqual(1);
    for (const o of outcomes.filter((x) => !x.ok))
      expect(o).toMatchObject({ ok: false, rule: 'repeat', message: expect.stringContaining('already exists') });
    const made = w.service.list().filter((r) => r.id !== original.id);
    expect(made).toHaveLength(2);
    expect(made.filter((r) => !r.hold)).toHaveLength(1);
  });
});
