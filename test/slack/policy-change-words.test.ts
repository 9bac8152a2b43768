/** describePolicyChange: every section of the schema in plain words, one line per difference. */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { describePolicyChange, durationWords } from '../../src/slack/policy-change-words.js';
import type { Policy } from '../../src/policy/schema.js';

const BASE = `
channels:
  approvals: C0APPROVALS
  alerts: C0ALERTS
  routes:
    - { kind: deposit, currency: USDT, channel: C0USDT }
people:
  viewers: ["*"]
  requesters: [U0ALICE]
  approvers: [U0CAROL, U0DAVE, U0ERIN]
  admins: [U0ERIN, U0DAVE]
withdrawals:
  expires_after: 2h
  tiers:
    default:
      - { max: 1000, approvals: 1 }
      - { max: 10000, approvals: 2 }
      - { approvals: 3, must_include: [U0ERIN] }
  daily_limit: { USDT: 50000 }
  note_required_above: { USDT: 1000 }
  allowlist:
    mode: warn
    addresses:
      - { address: "0x1111111111111111111111111111111111111111", network: BSC, label: "Exchange hot wallet" }
alerts:
  mention_above: { USDT: 10000 }
`;

const base = () => parsePolicy(BASE);
/** The base policy with `edit` applied to its YAML text. */
const edited = (from: string, to: string): Policy => {
  expect(BASE).toContain(from);
  return parsePolicy(BASE.replace(from, to));
};
const diff = (from: string, to: string) => describePolicyChange(base(), edited(from, to));

describe('describePolicyChange', () => {
  it('says nothing for the same rules, whatever the comments and layout', () => {
    expect(describePolicyChange(base(), parsePolicy(`# a comment\n${BASE}\n# another`))).toEqual([]);
  });

  it('tiers: approvals, max, must_include, added and removed tiers, per-currency lists', () => {
    expect(diff('{ max: 10000, approvals: 2 }', '{ max: 10000, approvals: 1 }')).toEqual([
      'tier 2 (up to 10,000): approvals 2 → 1',
    ]);
    expect(diff('{ max: 1000, approvals: 1 }', '{ max: 500, approvals: 1 }')).toEqual([
      'tier 1: up to 1,000 → up to 500',
    ]);
    expect(diff('must_include: [U0ERIN]', 'must_include: [U0DAVE]')).toEqual([
      'tier 3 (above 10,000) must include: + <@U0DAVE>',
      'tier 3 (above 10,000) must include: − <@U0ERIN>',
    ]);
    expect(diff('      - { approvals: 3, must_include: [U0ERIN] }\n', '')).toEqual([
      'tier 3 removed (was above 10,000, 3 approvals, including <@U0ERIN>)',
    ]);
    expect(
      diff(
        '      - { approvals: 3, must_include: [U0ERIN] }\n',
        '      - { max: 50000, approvals: 3, must_include: [U0ERIN] }\n      - { approvals: 3 }\n',
      ),
    ).toEqual(['tier 3: above 10,000 → up to 50,000', 'tier 4 added: above 50,000, 3 approvals']);
    expect(diff('    default:\n', '    USDT:\n      - { approvals: 2 }\n    default:\n')).toEqual([
      'USDT tiers: added (any amount: 2 approvals)',
    ]);
  });

  it('allowlist: addresses added, removed, renamed (whole address), mode and cooling-off', () => {
    const listed =
      '      - { address: "0x1111111111111111111111111111111111111111", network: BSC, label: "Exchange hot wallet" }\n';
    expect(
      diff(
        listed,
        `${listed}      - { address: "0xabCD000000000000000000000000000000000000", network: ETH, label: "Cold <store>" }\n`,
      ),
    ).toEqual(['allowlist: + `0xabCD000000000000000000000000000000000000` on ETH, Cold &lt;store&gt;']);
    expect(describePolicyChange(base(), edited(`    addresses:\n${listed}`, '    addresses: []\n'))).toEqual([
      'allowlist: − `0x1111111111111111111111111111111111111111` on BSC, Exchange hot wallet',
    ]);
    expect(diff('label: "Exchange hot wallet"', 'label: "Binance"')).toEqual([
      'allowlist: `0x1111111111111111111111111111111111111111` on BSC renamed Exchange hot wallet → Binance',
    ]);
    // The same address in other letters is the same entry (hex is case-insensitive).
    const entry = (a: string) => `${listed}      - { address: "${a}", network: ETH, label: "Cold" }\n`;
    const lower = edited(listed, entry('0xabcd000000000000000000000000000000000000'));
    const upper = edited(listed, entry('0xABCD000000000000000000000000000000000000'));
    expect(describePolicyChange(lower, upper)).toEqual([]);
    expect(diff('mode: warn', 'mode: enforce\n    cooloff: 48h')).toEqual([
      'allowlist mode: warn → enforce',
      'allowlist cooling-off: 1 d → 2 d',
    ]);
  });

  it('people: each role, users and groups, + and −', () => {
    expect(diff('approvers: [U0CAROL, U0DAVE, U0ERIN]', 'approvers: [U0CAROL, U0ERIN, U0FRANK, S0TEAM]')).toEqual([
      'approvers: + <@U0FRANK>',
      'approvers: + <!subteam^S0TEAM>',
      'approvers: − <@U0DAVE>',
    ]);
    expect(diff('viewers: ["*"]', 'viewers: [U0VIEW]')).toEqual(['viewers: + <@U0VIEW>', 'viewers: − everyone']);
    expect(diff('requesters: [U0ALICE]', 'requesters: []')).toEqual(['requesters: − <@U0ALICE>']);
  });

  it('per-currency amounts: daily limit, note, step-up, mentions, low balance (none ↔ amount)', () => {
    expect(diff('daily_limit: { USDT: 50000 }', 'daily_limit: { USDT: 80000, BTC: 2.5 }')).toEqual([
      'daily limit USDT: 50,000 → 80,000',
      'daily limit BTC: none → 2.5',
    ]);
    expect(diff('note_required_above: { USDT: 1000 }', 'step_up_above: { USDT: 10000 }')).toEqual([
      'note required above USDT: 1,000 → none',
      'step-up above USDT: none → 10,000',
    ]);
    expect(
      diff('mention_above: { USDT: 10000 }', 'mention_above: { USDT: 5000 }\n  low_balance: { default: 100 }'),
    ).toEqual(['@here on deposits above USDT: 10,000 → 5,000', 'low-balance alert below other currencies: none → 100']);
  });

  it('channels, routes, durations, policy-change quorum, schedule, retention, exports', () => {
    expect(diff('approvals: C0APPROVALS', 'approvals: C0NEWAPPR')).toEqual([
      'approvals channel: <#C0APPROVALS> → <#C0NEWAPPR>',
    ]);
    expect(
      diff(
        '    - { kind: deposit, currency: USDT, channel: C0USDT }',
        '    - { kind: deposit, currency: USDT, channel: C0OTHER }',
      ),
    ).toEqual(['alert routes: + deposits USDT → <#C0OTHER>', 'alert routes: − deposits USDT → <#C0USDT>']);
    expect(diff('expires_after: 2h', 'expires_after: 90m\n  remind_before: 10m')).toEqual([
      'requests expire after: 2 h → 1 h 30 min',
      'reminder before expiry: 30 min → 10 min',
    ]);
    expect(diff('alerts:\n', 'policy_changes: { approvals: 1 }\nalerts:\n')).toEqual([
      'admins needed to approve a policy change: 2 → 1',
    ]);
    // The default quorum follows the admins: one admin left means one approval.
    expect(diff('admins: [U0ERIN, U0DAVE]', 'admins: [U0ERIN]')).toEqual([
      'admins: − <@U0DAVE>',
      'admins needed to approve a policy change: 2 → 1',
    ]);
    expect(
      diff(
        'alerts:\n',
        'schedule: { timezone: Europe/Berlin, digest: "0 9 * * *" }\nretention: { days: 60 }\nexports: { monthly: xero }\nalerts:\n',
      ),
    ).toEqual([
      'schedule time zone: UTC → Europe/Berlin',
      'schedule of digest: default → "0 9 * * *"',
      'events and alerts kept for: 30 days → 60 days',
      'monthly export: csv → xero',
    ]);
  });

  it('describes a section it has no phrase for generically, by path: a change is never silent', () => {
    const a = base();
    const b = { ...base(), future_section: { knob: 3 } } as unknown as Policy;
    expect(describePolicyChange(a, b)).toEqual(['future_section: none → {"knob":3}']);
    const c = { ...base(), withdrawals: { ...base().withdrawals, new_rule: 'x' } } as unknown as Policy;
    expect(describePolicyChange(a, c)).toEqual(['withdrawals.new_rule: none → x']);
  });

  it('writes durations in words', () => {
    expect([durationWords(90_000), durationWords(86_400_000 + 6 * 3_600_000), durationWords(0)]).toEqual([
      '1 min 30 s',
      '1 d 6 h',
      '0 s',
    ]);
  });
});
