/**
 * A send held by a limit (rule-table.ts) shares the request's one hold with the holds of a repeated
 * payout (hold/): a report or a notification about the earlier request of the same payout must
 * replace a limit hold, or the limit lifting by itself would send a payout that may be paid already.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { decide } from '../../src/withdrawals/decide/index.js';
import { decideHoldRepeat } from '../../src/withdrawals/hold/decide.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { tierFor } from '../../src/withdrawals/value-rules.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const policy = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE, U0ERIN], admins: [U0ERIN] }
withdrawals:
  tiers: { default: [{ approvals: 1 }] }
  daily_limit: { USDT: 1000 }
`);

const request = (id: string, o: Partial<WithdrawalRequest> = {}): WithdrawalRequest => ({
  id,
  merchantReference: `m-${id}`,
  requester: 'U0ALICE',
  amount: '600',
  currency: 'USDT',
  network: 'BSC',
  destination: '0x2222222222222222222222222222222222222222',
  clientEmail: 'c@example.com',
  note: '',
  state: 'approved',
  tier: tierFor(policy, 'USDT', '600', undefined)!,
  approvals: [{ user: 'U0CAROL', at: new Date(T0).toISOString(), satisfies: [] }],
  createdAt: new Date(T0).toISOString(),
  expiresAt: new Date(T0 + 48 * HOUR).toISOString(),
  allowlist: { status: 'off', neverPaidBefore: true },
  history: [],
  ...o,
});

/** The earlier request of the payout ("never executed"), another payout that went today, and the repeat. */
function world() {
  const original = request('a0', { state: 'failed', confirmation: { status: 'CONFIRMED' } as never });
  const other = request('b0', { state: 'completed', destination: '0x3333333333333333333333333333333333333333' });
  const approved = request('a1', { repeatOf: 'a0' });
  // The claim: 600 + 600 crosses the 1,000 USDT daily limit, so the repeat is held by the limit.
  const claim = decide({ type: 'claim-for-sending' }, approved, {
    now: T0 + HOUR,
    policy,
    requests: () => [other, approved],
  });
  if (claim.kind !== 'changed') throw new Error(`expected a limit hold, got ${claim.kind}`);
  expect(claim.next.hold).toMatchObject({ kind: 'limit' });
  return { original, other, held: claim.next };
}

describe('a limit hold meets a report of the payout', () => {
  it.each(['service', 'notice'] as const)(
    'a %s about the earlier request replaces it: no send once the window has room',
    (basis) => {
      const { original, other, held } = world();
      const report = decideHoldRepeat(
        held,
        basis === 'notice' ? { ...original, notice: { status: 'CONFIRMED' } as never } : original,
        new Date(T0 + 2 * HOUR).toISOString(),
        basis,
      );
      expect(report.kind).toBe('changed');
      const after = (report as { next: WithdrawalRequest }).next;
      expect(after.hold?.kind).toBe(basis === 'service' ? 'original_reported_sent' : 'notified');
      // A day later the other payout has left the window: still not sent, an admin decides.
      const later = decide({ type: 'claim-for-sending' }, after, {
        now: T0 + 26 * HOUR,
        policy,
        requests: () => [original, other, after],
      });
      expect(later.kind).toBe('noted');
      expect((later as { audit: { action: string } }).audit.action).toBe('send_held_repeat');
    },
  );
});
