/**
 * The policy's `value` entries in the decider (issue 24): tiers, daily limit, note and step-up
 * by USD value across currencies; a currency's own native entry wins; an unknown value is the
 * strictest case; before the send the value at a fresh price re-checks the request.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { decide, type DecideContext, type WithdrawalCommand } from '../../src/withdrawals/decide/index.js';
import { admitRequest } from '../../src/withdrawals/rules.js';
import { needsStepUp } from '../../src/stepup/threshold.js';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { valueAt } from '../../src/prices/value.js';
import type { RequestInput, WithdrawalRequest } from '../../src/withdrawals/types.js';
import { DEST, T0 } from './helpers.js';

const policy = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people:
  requesters: [U0ALICE]
  approvers: [U0CAROL, U0DAVE, U0ERIN]
  admins: [U0ERIN, U0DAVE]
withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { max: 50000, approvals: 2 }
      - { approvals: 3, must_include: [U0ERIN] }
    USDT:
      - { approvals: 1 }
  daily_limit: { value: 100000 }
  note_required_above: { value: 1000 }
  step_up_above: { value: 10000 }
valuation: { max_age: 5m }
`);
const ctx = (now = T0): DecideContext => ({ now, policy });
const at = (ms: number) => new Date(ms).toISOString();
const prices = (btc: string | undefined, now = T0, quotedAt = now): PriceSnapshot => ({
  now,
  maxAgeMs: 300_000,
  quotes: btc ? { ETH: { price: btc, at: at(quotedAt), source: 'test' } } : {},
});
const input = (amount: string, currency = 'ETH', note = 'payroll'): RequestInput => ({
  amount,
  currency,
  network: 'BSC',
  destination: DEST,
  clientEmail: 'client@example.com',
  note,
});

function request(i: RequestInput, snap: PriceSnapshot, existing: WithdrawalRequest[] = [], id = 'w1') {
  const checked = admitRequest(policy, i, true, snap);
  if (!checked.ok) return { refused: checked.message };
  const command: WithdrawalCommand = {
    type: 'request',
    requester: 'U0ALICE',
    checked,
    id,
    merchantReference: `ref-${id}`,
    existing,
    prices: snap,
  };
  const d = decide(command, undefined, ctx(snap.now));
  return d.kind === 'changed'
    ? { req: d.next, audit: d.audit }
    : { refused: d.kind === 'refused' ? d.message : d.kind };
}

describe('policy by value', () => {
  it('picks the tier by USD value and records the price, its source and time on the request and its audit line', () => {
    const r = request(input('0.01'), prices('64000'));
    expect(r.req?.tier).toMatchObject({ index: 0, approvals: 1, basis: 'value' });
    expect(r.req?.valuation).toMatchObject({ kind: 'known', usd: '640.00', price: '64000', source: 'test' });
    expect(r.audit?.details.value).toEqual(r.req?.valuation);
    expect(request(input('0.5'), prices('64000')).req?.tier).toMatchObject({ index: 1, approvals: 2 });
    const big = admitRequest(policy, input('12'), true, prices('64000'));
    expect(big.ok && big.tier).toMatchObject({ index: 2, approvals: 3 });
  });

  it('treats an unknown value as the strictest case: the top tier, a note needed, over the daily value limit', () => {
    // No price at all, and a price older than max_age.
    for (const snap of [prices(undefined), prices('64000', T0 + 300_001, T0)]) {
      const checked = admitRequest(policy, input('0.0001'), true, snap);
      expect(checked.ok && checked.tier).toMatchObject({ index: 2, approvals: 3, mustInclude: ['U0ERIN'] });
      const noNote = admitRequest(policy, input('0.0001', 'ETH', ''), true, snap);
      expect(!noNote.ok && noNote.message).toMatch(
        /A note is required above \$1,000\.00 \(its value is unknown: no price/,
      );
      expect(request(input('0.0001'), snap).refused).toMatch(/value cannot be known now/);
    }
    expect(needsStepUp(policy, 'ETH', '0.0001', valueAt(prices(undefined), 'ETH', '0.0001'))).toBe(true);
    expect(needsStepUp(policy, 'ETH', '0.0001', valueAt(prices('64000'), 'ETH', '0.0001'))).toBe(false);
  });

  it("lets a currency's own native entry win over the value entries", () => {
    const r = request(input('1000000', 'USDT'), prices(undefined));
    // USDT has its own tiers (1 approval, any amount), but no daily limit of its own: the value limit applies.
    expect(r.refused).toMatch(/value cannot be known/);
    const checked = admitRequest(policy, input('1000000', 'USDT'), true, prices(undefined));
    expect(checked.ok && checked.tier).toMatchObject({ approvals: 1 });
    expect(checked.ok && checked.tier.basis).toBeUndefined();
  });

  it('sums the daily value limit across every currency over a rolling 24 h', () => {
    const first = request(input('1'), prices('60000')).req!;
    expect(request(input('0.7'), prices('60000'), [first], 'w2').refused).toMatch(
      /daily limit is \$100,000\.00 in value.*\$60,000\.00 is already requested, so at most \$40,000\.00 more/,
    );
    expect(request(input('0.6'), prices('60000'), [first], 'w2').req).toBeDefined();
    expect(request(input('0.7'), prices('60000', T0 + 24 * 3_600_000 + 1), [first], 'w2').req).toBeDefined();
  });

  it('re-checks the value at a fresh price before sending: a move into a higher tier waits for the approvals it now needs', () => {
    const made = request(input('0.01'), prices('64000')).req!;
    const approved = decide({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, made, ctx(T0 + 1));
    expect(approved.kind === 'changed' && approved.next.state).toBe('approved');
    const req = approved.kind === 'changed' ? approved.next : made;
    // ETH doubled: 0.01 ETH is now worth $1,280, in the 2-approval tier.
    const up = decide(
      { type: 'claim-for-sending', valuation: valueAt(prices('128000'), 'ETH', '0.01') },
      req,
      ctx(T0 + 2),
    );
    expect(up.kind === 'changed' && up.event).toBe('reopened');
    expect(up.kind === 'changed' && up.next).toMatchObject({ state: 'pending', tier: { approvals: 2 } });
    expect(up.kind === 'changed' && up.audit.details.missing).toMatch(
      /1 more approval: its value rose into a higher tier/,
    );
    // No fresh price: the top tier.
    const unknown = decide(
      { type: 'claim-for-sending', valuation: valueAt(prices(undefined), 'ETH', '0.01') },
      req,
      ctx(T0 + 2),
    );
    expect(unknown.kind === 'changed' && unknown.next.tier).toMatchObject({ approvals: 3 });
    // The same tier: sent, with the value at send recorded.
    const same = decide(
      { type: 'claim-for-sending', valuation: valueAt(prices('65000'), 'ETH', '0.01') },
      req,
      ctx(T0 + 2),
    );
    expect(same.kind === 'changed' && same.event).toBe('executing');
    expect(same.kind === 'changed' && same.next.sendValuation).toMatchObject({ usd: '650.00' });
  });
});
