import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePolicy, PolicyError } from '../../src/policy/load.js';
import { effectivePolicyChangeApprovals } from '../../src/policy/schema.js';
import { hasRole } from '../../src/policy/people.js';

const example = readFileSync(new URL('../../policy.example.yml', import.meta.url), 'utf8');

describe('policy file', () => {
  it('parses the commented example into exact amounts, canonical currencies and durations', () => {
    const p = parsePolicy(example);
    expect(p.withdrawals.expires_after).toBe(2 * 3_600_000);
    // Issue 24: the example limits value (USD) across every currency.
    expect(p.withdrawals.tiers.value![0]).toEqual({ max: '1000', approvals: 1, must_include: [] });
    expect(p.withdrawals.daily_limit).toEqual({ value: '250000' });
    expect(p.withdrawals.note_required_above).toEqual({ value: '1000' });
    expect(p.valuation).toEqual({
      currency: 'USD',
      max_age: 5 * 60_000,
      ids: {},
      lookback: 7 * 86_400_000,
      pegs: { USDT: '1', USDC: '1', DAI: '1', BUSD: '1' },
      floor: {},
    });
    expect(p.channels.routes[0]).toEqual({ kind: 'deposit', currency: 'USDT', channel: 'C0USDT' });
  });

  it('reads the gates, schedule, retention and export sections with their defaults', () => {
    const p = parsePolicy(example);
    expect(p.withdrawals.step_up_above).toEqual({ value: '10000' });
    expect(p.withdrawals.allowlist.cooloff).toBe(24 * 3_600_000);
    expect(p.alerts.low_balance).toEqual({ value: '5000' });
    expect(p.schedule).toEqual({ timezone: 'UTC', digest: '0 8 * * *' });
    expect(p.retention.days).toBe(30);
    expect(p.exports.monthly).toBe('csv');
    // The example lists two admins (so a freeze can be lifted out of the box): both approve a change of the policy.
    expect(p.people.admins).toEqual(['U0ERIN', 'U0DAVE']);
    expect(effectivePolicyChangeApprovals(p)).toBe(2);
    const bare = parsePolicy(
      'channels: { approvals: C0A1, alerts: C0A2 }\npeople: { admins: [U0A, U0B, U0C] }\nwithdrawals: { tiers: { default: [{ approvals: 1 }] } }\n',
    );
    expect(effectivePolicyChangeApprovals(bare)).toBe(2);
    expect(bare.withdrawals.allowlist.cooloff).toBe(24 * 3_600_000);
    expect(bare.schedule.timezone).toBe('UTC');
  });

  it('refuses a bad time zone, a bad cron expression and a change quorum larger than the admins', () => {
    const text = `
channels: { approvals: C0A1, alerts: C0A2 }
people: { admins: [U0A] }
withdrawals: { tiers: { default: [{ approvals: 1 }] } }
policy_changes: { approvals: 2 }
schedule: { timezone: Mars/Olympus, digest: "every morning" }
`;
    expect(() => parsePolicy(text, 'policy.yml')).toThrow(/schedule\.timezone: must be an IANA time zone/);
    expect(() => parsePolicy(text, 'policy.yml')).toThrow(/schedule\.digest: must be a cron expression/);
    expect(() => parsePolicy(text, 'policy.yml')).toThrow(/policy_changes\.approvals: needs 2 admins/);
  });

  it('refuses a not-found grace under a minute, saying why; a minute is enough', () => {
    const policy = (grace: string) => `
channels: { approvals: C0A1, alerts: C0A2 }
people: { admins: [U0A] }
withdrawals: { not_found_grace: ${grace}, tiers: { default: [{ approvals: 1 }] } }
`;
    expect(() => parsePolicy(policy('0m'), 'policy.yml')).toThrow(
      /withdrawals\.not_found_grace: must be at least 1m: the wallet service may not have recorded/,
    );
    expect(() => parsePolicy(policy('59s'), 'policy.yml')).toThrow(/not_found_grace: must be at least 1m/);
    expect(parsePolicy(policy('1m')).withdrawals.not_found_grace).toBe(60_000);
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
    expect(msg).toContain('people.approvers[0]: must be a Slack user id');
    expect(msg).toContain('withdrawals.expires_after: "soon" is not a duration');
    expect(msg).toContain('withdrawals.tiers.default[0]: only the last tier may have no max');
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
          'daily_limit: { value: 250000 }',
          'daily_limit: { USDT: 12345678901234567.5, ETH: 0.000000000000000001, BTC: "1.10" }',
        )
        .replace('mention_above: { value: 10000 }', 'mention_above: { USDT: 9007199254740993 }'),
    );
    expect(p.withdrawals.daily_limit).toEqual({ USDT: '12345678901234567.5', ETH: '0.000000000000000001', BTC: '1.1' });
    expect(p.alerts.mention_above).toEqual({ USDT: '9007199254740993' });
    expect(p.withdrawals.tiers.value![1]).toMatchObject({ max: '50000', approvals: 2 });
  });
});
