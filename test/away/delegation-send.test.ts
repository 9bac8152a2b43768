/**
 * A delegation ended between the approval given under it and the send (issue 39): through the
 * real withdrawal and away services on one store, and the sandbox over HTTP. The approval counts
 * for the delegator's must_include place only while the delegation it was given under stands.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAwayService } from '../../src/away/service.js';
import { parsePolicy } from '../../src/policy/load.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { usdt, world, type World } from '../withdrawals/helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const policy = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE, U0ERIN], admins: [U0ERIN] }
withdrawals:
  tiers:
    default:
      - { approvals: 2, must_include: [U0ERIN] }
`);
const facts = {
  actorIsAdmin: false,
  targetIsApprover: true,
  delegateIsApprover: true,
  admins: [],
  name: (u: string) => u,
};

describe('a delegation ended before the send', () => {
  for (const end of ['back', 'none'] as const)
    it(`${end === 'back' ? '/treasury back between the approval and the send: the delegate no longer fills the place' : 'still in force at the send: the delegate fills the place'}`, async () => {
      let backOnce = end === 'back';
      w = await world({
        service: {
          policy: fixedPolicy(policy),
          hooks: {
            afterApprovalDurable: async (r) => {
              if (r.state === 'approved' && backOnce) {
                backOnce = false;
                expect((await away.back({ actor: 'U0ERIN', target: 'U0ERIN' }, facts)).ok).toBe(true);
              }
            },
          },
        },
      });
      const away = createAwayService({ store: w.store, now: () => w!.clock.now });
      const set = await away.setAway(
        { actor: 'U0ERIN', target: 'U0ERIN', until: w.clock.now + 86_400_000, delegate: 'U0CAROL' },
        facts,
      );
      expect(set.ok).toBe(true);
      const req = await w.service.request(usdt('500'), 'U0ALICE');
      if (!req.ok) throw new Error(req.message);
      const carol = await w.service.approve(req.request.id, 'U0CAROL');
      expect(carol).toMatchObject({ ok: true });
      expect(w.service.get(req.request.id)!.approvals).toEqual([
        expect.objectContaining({
          user: 'U0CAROL',
          for: ['U0ERIN'],
          satisfies: ['U0ERIN'],
          delegations: [expect.objectContaining({ user: 'U0ERIN', setAt: set.ok ? set.record.at : '' })],
        }),
      ]);
      const dave = await w.service.approve(req.request.id, 'U0DAVE');
      const after = await (dave as { execution: Promise<{ state: string }> }).execution;
      if (end === 'none') {
        expect(after.state).toBe('completed');
        expect(w.posts()).toBe(1);
        return;
      }
      // Erin is back: Carol's approval counts as Carol's alone, so Erin's place is open again; nothing sent.
      expect(after).toMatchObject({ state: 'pending' });
      expect(w.posts()).toBe(0);
      const erin = await w.service.approve(req.request.id, 'U0ERIN');
      expect(erin).toMatchObject({ ok: true });
      const sent = await (erin as { execution: Promise<{ state: string }> }).execution;
      expect(sent.state).toBe('completed');
      expect(w.posts()).toBe(1);
    });
});
