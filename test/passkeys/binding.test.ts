/**
 * The pure parts of passkey approvals: the challenge bound to one withdrawal (canonical JSON,
 * SHA-256, base64url; any bound fact changed gives another challenge), the policy version, and
 * what each threshold asks of an approval (the step_up rule keeps only approvals with the proof
 * the policy in force asks: a passkey above passkey_above, a code or a passkey above step_up_above).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bindingChallenge,
  type BoundFacts,
  boundFacts,
  canonicalJson,
  policyVersion,
} from '../../src/passkeys/binding.js';
import { parsePolicy } from '../../src/policy/load.js';
import { proofMeets, stepUpNeed } from '../../src/stepup/threshold.js';
import { RULES, type RuleFacts } from '../../src/withdrawals/rule-table.js';
import type { Approval, WithdrawalRequest } from '../../src/withdrawals/types.js';

const POLICY_TEXT = `
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE], admins: [U0ERIN] }
withdrawals:
  tiers: { default: [{ approvals: 2 }] }
  step_up_above: { USDT: 1000 }
  passkey_above: { USDT: 10000 }
`;
const POLICY = parsePolicy(POLICY_TEXT);

const FACTS: BoundFacts = {
  requestId: 'r1',
  amount: '2000',
  currency: 'USDT',
  network: 'BSC',
  destination: '0x1111111111111111111111111111111111111111',
  approver: 'U0CAROL',
  policyVersion: 'v1',
  nonce: 'n1',
  expiry: '2030-01-01T00:05:00.000Z',
};

describe('the bound challenge', () => {
  it('is base64url(SHA-256(canonical JSON)) with the keys sorted, whatever their order', () => {
    const text = canonicalJson({ ...FACTS });
    expect(text.startsWith('{"amount":"2000","approver":"U0CAROL","currency":"USDT","destination":')).toBe(true);
    expect(text).toBe(JSON.stringify(Object.fromEntries(Object.entries(FACTS).sort(([a], [b]) => (a < b ? -1 : 1)))));
    const reversed = Object.fromEntries(Object.entries(FACTS).reverse()) as unknown as BoundFacts;
    expect(bindingChallenge(reversed)).toBe(bindingChallenge(FACTS));
    expect(bindingChallenge(FACTS)).toBe(createHash('sha256').update(text).digest('base64url'));
    expect(bindingChallenge(FACTS)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('changes when any one bound fact changes', () => {
    const keys = Object.keys(FACTS) as Array<keyof BoundFacts>;
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.string({ minLength: 1, maxLength: 40 }), (key, value) => {
        fc.pre(value !== FACTS[key]);
        expect(bindingChallenge({ ...FACTS, [key]: value })).not.toBe(bindingChallenge(FACTS));
      }),
    );
  });

  it('binds what the request holds now, and the approver, nonce and expiry given', () => {
    const r = { id: 'r1', amount: '2000', currency: 'USDT', network: 'BSC', destination: FACTS.destination };
    const o = { approver: 'U0CAROL', policyVersion: 'v1', nonce: 'n1', expiresAt: Date.parse(FACTS.expiry) };
    expect(boundFacts(r, o)).toEqual(FACTS);
    expect(bindingChallenge(boundFacts({ ...r, amount: '2000.01' }, o))).not.toBe(bindingChallenge(FACTS));
  });

  it('the policy version: equal for the same policy, another for any change', () => {
    expect(policyVersion(parsePolicy(POLICY_TEXT))).toBe(policyVersion(POLICY));
    const changed = parsePolicy(
      POLICY_TEXT.replace('passkey_above: { USDT: 10000 }', 'passkey_above: { USDT: 20000 }'),
    );
    expect(policyVersion(changed)).not.toBe(policyVersion(POLICY));
  });
});

describe('what an approval needs', () => {
  it('nothing, a code (or a passkey), or a passkey, by amount', () => {
    expect(stepUpNeed(POLICY, 'USDT', '1000')).toBe('none');
    expect(stepUpNeed(POLICY, 'USDT', '1000.01')).toBe('code');
    expect(stepUpNeed(POLICY, 'USDT', '10000.01')).toBe('passkey');
    expect(proofMeets('code', 'verified')).toBe(true);
    expect(proofMeets('code', 'passkey')).toBe(true);
    expect(proofMeets('passkey', 'verified')).toBe(false);
    expect(proofMeets('passkey', undefined)).toBe(false);
    expect(proofMeets('none', undefined)).toBe(true);
  });

  it('the step_up rule keeps only approvals with the proof asked, and says which proof is missing', () => {
    const approvals: Approval[] = [
      { user: 'U0CAROL', at: '2030-01-01T00:00:00.000Z', satisfies: [], stepUp: 'verified' },
      { user: 'U0DAVE', at: '2030-01-01T00:00:00.000Z', satisfies: [], stepUp: 'passkey' },
    ];
    const req = (amount: string) => ({ id: 'r1', amount, currency: 'USDT', approvals }) as unknown as WithdrawalRequest;
    const facts = {
      policy: POLICY,
      valuation: { kind: 'unknown', reason: 'test', since: null },
    } as unknown as RuleFacts;
    const big = RULES.step_up.judge(req('20000'), facts);
    expect(big.kind).toBe('count');
    if (big.kind !== 'count') return;
    expect(approvals.filter(big.keep!).map((a) => a.user)).toEqual(['U0DAVE']);
    expect(big.because).toBe('passkey');
    const mid = RULES.step_up.judge(req('5000'), facts);
    if (mid.kind !== 'count') throw new Error('expected a count');
    expect(approvals.filter(mid.keep!).map((a) => a.user)).toEqual(['U0CAROL', 'U0DAVE']);
    expect(mid.because).toBeUndefined();
  });
});
