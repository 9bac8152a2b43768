/** The pre-send point while frozen: an approved request is held (audited), never claimed. */
import { describe, expect, it } from 'vitest';
import { decide, type DecideContext } from '../../src/withdrawals/decide/index.js';
import { admitRequest } from '../../src/withdrawals/rules.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { T0, testPolicy, usdt } from '../withdrawals/helpers.js';

const policy = testPolicy();
const ctx = (now = T0): DecideContext => ({ now, policy });

function approvedRequest(): WithdrawalRequest {
  const checked = admitRequest(policy, usdt('10'), true);
  if (!checked.ok) throw new Error(checked.message);
  const made = decide(
    { type: 'request', requester: 'U0ALICE', checked, id: 'w1', merchantReference: 'ref-w1', existing: [] },
    undefined,
    ctx(),
  );
  if (made.kind !== 'changed') throw new Error('not created');
  const approved = decide({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, made.next, ctx());
  if (approved.kind !== 'changed' || approved.next.state !== 'approved') throw new Error('not approved');
  return approved.next;
}

describe('claim-for-sending with the frozen fact', () => {
  it('while frozen: nothing is claimed; the hold is written to the audit log with who froze', () => {
    const d = decide(
      { type: 'claim-for-sending', frozen: { by: 'U0ERIN', reason: 'key leaked' } },
      approvedRequest(),
      ctx(),
    );
    expect(d).toMatchObject({
      kind: 'noted',
      audit: { action: 'send_held', subject: 'w1', details: { reason: 'sends are frozen', frozenBy: 'U0ERIN' } },
    });
  });

  it('not frozen: claimed (approved -> executing), as before', () => {
    const d = decide({ type: 'claim-for-sending' }, approvedRequest(), ctx());
    expect(d.kind === 'changed' && d.next.state).toBe('executing');
  });
});
