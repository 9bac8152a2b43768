import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePolicy, PolicyError } from '../../src/policy/load.js';
import { hasRole } from '../../src/policy/people.js';

const example = readFileSync(new URL('../../policy.example.yml', import.meta.url), 'utf8');

describe('policy file', () => {
  it('parses the commented example into exact amounts, canonical currencies and durations', () => {
    const p = parsePolicy(example);
    expect(p.withdrawals.expires_after).toBe(2 * 3_600_000);
    expect(p.withdrawals.tiers.default![0]).toEqual({ max: '1000', approvals: 1, must_include: [] });
    expect(p.withdrawals.daily_limit).toEqual({ USDT: '50000' });
    expect(p.withdrawals.note_required_above).toEqual({ USDT: '1000' });
    expect(p.channels.routes[0]).toEqual({ kind: 'deposit', currency: 'USDT', channel: 'C0USDT' });
  });

  it('lists every problem with its path', () => {
    const bad = `
channels: { approvals: general, alerts: C0ALERTS }
people: { approvers: [bob], admins: ["*"] }
withdrawals:
  expires_after: soon
  tiers:
    default:
      - { approvals: 1 }
      - { max: 10, approvals: 2, must_include: [U0NOTAPPROVER] }
`;
    let msg = '';
    try {
      parsePolicy(bad, 'policy.yml');
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyError);
      msg = (err as Error).message;
    }
    expect(msg).toContain('policy.yml is invalid');
    expect(msg).toContain('channels.approvals: must be a Slack channel id');
    expect(msg).toContain('people.approvers.0: must be a Slack user id');
    expect(msg).toContain('withdrawals.expires_after: "soon" is not a duration');
    expect(msg).toContain('withdrawals.tiers.default.0: only the last tier may have no max');
  });

  it('reports YAML syntax errors and must_include people who cannot approve', () => {
    expect(() => parsePolicy('channels: [')).toThrow(/not valid YAML/);
    const p = example.replace('must_include: [U0ERIN]', 'must_include: [U0ZED]');
    expect(() => parsePolicy(p)).toThrow(/U0ZED is in must_include but not in people.approvers/);
  });

  it('matches user ids, user groups and "*", and lets admins view', async () => {
    const p = parsePolicy(example.replace('viewers: ["*"]', 'viewers: [S0FIN]'));
    const groups = { membersOf: async (g: string) => (g === 'S0FIN' ? ['U0GRACE'] : []) };
    expect(await hasRole(p, 'viewers', 'U0GRACE', groups)).toBe(true);
    expect(await hasRole(p, 'viewers', 'U0ERIN', groups)).toBe(true);
    expect(await hasRole(p, 'viewers', 'U0ALICE', groups)).toBe(false);
    expect(await hasRole(p, 'requesters', 'U0ALICE', groups)).toBe(true);
    expect(await hasRole(p, 'approvers', 'U0ALICE', groups)).toBe(false);
  });
});

describe('policy amounts', () => {
  it('keeps every digit written in the file, quoted or not', () => {
    const p = parsePolicy(
      example
        .replace(
          'daily_limit: { USDT: 50000 }',
          'daily_limit: { USDT: 12345678901234567.5, ETH: 0.000000000000000001, BTC: "1.10" }',
        )
        .replace('mention_above: { USDT: 10000 }', 'mention_above: { USDT: 9007199254740993 }'),
    );
    expect(p.withdrawals.daily_limit).toEqual({ USDT: '12345678901234567.5', ETH: '0.000000000000000001', BTC: '1.1' });
    expect(p.alerts.mention_above).toEqual({ USDT: '9007199254740993' });
    expect(p.withdrawals.tiers.default![1]).toMatchObject({ max: '10000', approvals: 2 });
  });
});
