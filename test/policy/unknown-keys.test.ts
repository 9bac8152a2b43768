/**
 * Issue 43: a policy file means what it says. A key the schema does not know, at any depth, is
 * refused like a bad value, named by its path with the nearest known key; never dropped in
 * silence. Through the real loader (parsePolicy) on the example policy. The same through the
 * running app (start, file change, governed proposal): unknown-keys-app.test.ts; random policies:
 * unknown-keys.property.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseApprovedPolicy, parsePolicy, PolicyError } from '../../src/policy/load.js';
import { policySchema } from '../../src/policy/schema.js';
import { formatPath, nearestName } from '../../src/policy/unknown-keys.js';

const example = readFileSync(new URL('../../policy.example.yml', import.meta.url), 'utf8');

/** The loader's refusal of `text`, as the operator reads it. */
function refusal(text: string): string {
  try {
    parsePolicy(text, 'policy.yml');
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyError);
    return (err as Error).message;
  }
  throw new Error('the policy was accepted');
}

/** The example with one text replaced, checking the replaced text is there. */
function exampleWith(from: string, to: string): string {
  expect(example).toContain(from);
  return example.replace(from, to);
}

describe('an unknown key in the policy file', () => {
  it('at the top level, two levels down and in a list item: refused with its path and the key meant', () => {
    const cases: Array<[string, string, string]> = [
      ['\nalerts:\n', '\nalert:\n', 'alert is not a policy key; did you mean alerts?'],
      [
        '  allowlist:\n    mode: warn',
        '  allowlist:\n    mdoe: warn',
        'withdrawals.allowlist.mdoe is not a policy key; did you mean mode?',
      ],
      [
        '{ max: 50000, approvals: 2 }',
        '{ max: 50000, aprovals: 2 }',
        'withdrawals.tiers.value[1].aprovals is not a policy key; did you mean approvals?',
      ],
    ];
    for (const [from, to, line] of cases) expect(refusal(exampleWith(from, to))).toContain(`  - ${line}`);
  });

  it("the issue's examples: a misspelt limit is not an absent limit", () => {
    const msg = refusal(
      exampleWith('daily_limit: { value: 250000 }', 'daily_limt: { value: 1000 }')
        .replace('step_up_above:', 'step_up_abov:')
        .replace('mention_above:', 'mention_abve:')
        .replace('\nwithdrawals:\n', '\nwithdrawls:\n'),
    );
    expect(msg).toContain('withdrawls is not a policy key; did you mean withdrawals?');
    expect(msg).toContain('alerts.mention_abve is not a policy key; did you mean mention_above?');
    // Under the misspelt section nothing is read, so only the section itself is named.
    expect(msg).not.toContain('daily_limt');
    const nested = refusal(exampleWith('daily_limit:', 'daily_limt:').replace('step_up_above:', 'step_up_abov:'));
    expect(nested).toContain('withdrawals.daily_limt is not a policy key; did you mean daily_limit?');
    expect(nested).toContain('withdrawals.step_up_abov is not a policy key; did you mean step_up_above?');
  });

  it('a key nothing known is close to (one that comes later): the keys of that place are listed instead of a guess', () => {
    expect(refusal(`${example}\nlimits: { value: 1000 }\n`)).toContain(
      '  - limits is not a policy key; the keys here are channels, people, withdrawals, policy_changes, alerts, valuation, schedule, retention, exports',
    );
    expect(refusal(exampleWith('  max_age: 5m', '  max_age: 5m\n  sources: [coingecko]'))).toContain(
      'valuation.sources is not a policy key; the keys here are currency, max_age, ids',
    );
  });

  it('one message lists every problem: unknown keys beside bad values', () => {
    const msg = refusal(
      exampleWith('expires_after: 2h', 'expires_after: soon')
        .replace('cooloff: 24h', 'cool_off: 24h')
        .replace('routes:', 'route:'),
    );
    expect(msg.split('\n')).toEqual([
      'policy.yml is invalid:',
      '  - channels.route is not a policy key; did you mean routes?',
      '  - withdrawals.expires_after: "soon" is not a duration; write e.g. 90s, 30m, 2h or 1d',
      '  - withdrawals.allowlist.cool_off is not a policy key; did you mean cooloff?',
    ]);
  });

  it('per-currency keys stay currencies: any case is accepted, an unknown one is refused as a currency', () => {
    const p = parsePolicy(exampleWith('daily_limit: { value: 250000 }', 'daily_limit: { usdt: 5, Btc: 1, value: 9 }'));
    expect(p.withdrawals.daily_limit).toEqual({ USDT: '5', BTC: '1', value: '9' });
    expect(refusal(exampleWith('daily_limit: { value: 250000 }', 'daily_limit: { USTD: 5 }'))).toContain(
      'withdrawals.daily_limit.USTD: unknown currency "USTD"',
    );
    // The one key zod skips in a map without a word (so that it cannot replace a prototype): refused too.
    const proto = refusal(
      exampleWith('daily_limit: { value: 250000 }', 'daily_limit: { value: 9, __proto__: 5 }').replace(
        '  timezone: UTC',
        '  timezone: UTC\n  __proto__: "0 8 * * *"',
      ),
    );
    expect(proto.split('\n')).toEqual(
      expect.arrayContaining([
        '  - withdrawals.daily_limit.__proto__ is not a policy key',
        '  - schedule.__proto__ is not a policy key; the keys here are timezone',
      ]),
    );
  });

  it('the example policy, which the local workspace and the tutorial use, is still valid', () => {
    expect(() => parsePolicy(example)).not.toThrow();
  });
});

describe('the schema refuses unknown keys everywhere', () => {
  it('every object in it is strict, or takes every other key as something it checks (schedule: job names)', () => {
    const loose: string[] = [];
    const walk = (s: z.ZodType, path: string) => {
      const def = s.def as unknown as Record<string, unknown>;
      if (s instanceof z.ZodObject) {
        if (!s.def.catchall) loose.push(path || '(top level)');
        for (const [k, v] of Object.entries(s.shape)) walk(v as z.ZodType, path ? `${path}.${k}` : k);
      }
      const below = {
        innerType: path,
        in: path,
        out: path,
        element: `${path}[]`,
        valueType: `${path}.<key>`,
        catchall: `${path}.<key>`,
      };
      for (const [k, at] of Object.entries(below)) if (def[k] instanceof z.ZodType) walk(def[k], at);
      for (const o of (def.options as z.ZodType[] | undefined) ?? []) walk(o, path);
    };
    walk(policySchema, '');
    // A section added later with z.object would silently drop its misspelt keys: use z.strictObject.
    expect(loose).toEqual([]);
  });
});

describe('the words', () => {
  it('suggests only a near key: a third of its letters at most, case and dashes aside', () => {
    expect(nearestName('daily_limt', ['daily_limit', 'tiers'])).toBe('daily_limit');
    expect(nearestName('Daily-Limit', ['daily_limit'])).toBe('daily_limit');
    expect(nearestName('mx', ['max', 'approvals'])).toBe('max');
    expect(nearestName('digset', ['digest', 'store.prune'])).toBe('digest'); // two letters swapped: one edit
    expect(nearestName('limits', ['tiers', 'daily_limit'])).toBeUndefined();
    expect(nearestName('x'.repeat(10_000), ['max'])).toBeUndefined();
  });

  it('writes paths as the file is written: list items in brackets, odd keys quoted, long ones cut', () => {
    expect(formatPath(['withdrawals', 'tiers', 'value', 1, 'aprovals'])).toBe('withdrawals.tiers.value[1].aprovals');
    expect(formatPath(['people', 'a b'])).toBe('people["a b"]');
    expect(formatPath(['x'.repeat(100)])).toBe(`${'x'.repeat(60)}…`);
  });
});

describe('an approved policy kept from before unknown keys were refused', () => {
  it('reads as it was enforced, its unknown keys named; anything else wrong is still refused', () => {
    const old = exampleWith('daily_limit:', 'daily_limt:');
    const { policy, ignored } = parseApprovedPolicy(old, 'The approved policy in the store');
    expect(policy.withdrawals.daily_limit).toEqual({}); // what the older version enforced: no limit
    expect(ignored).toEqual(['withdrawals.daily_limt is not a policy key; did you mean daily_limit?']);
    expect(parseApprovedPolicy(example, 'x')).toEqual({ policy: parsePolicy(example), ignored: [] });
    expect(() => parseApprovedPolicy(old.replace('expires_after: 2h', 'expires_after: soon'), 'x')).toThrow(
      /withdrawals\.expires_after: "soon" is not a duration/,
    );
  });
});

describe('"default" and "value" are refused where they mean nothing', () => {
  const base = `
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL], admins: [U0ERIN] }
withdrawals:
  tiers: { value: [{ approvals: 1 }] }
`;
  it.each([
    ['withdrawals.daily_limit.default', '  daily_limit: { default: 1000 }'],
    ['valuation.pegs.default', 'valuation: { pegs: { default: 1 } }'],
    ['valuation.floor.value', 'valuation: { floor: { value: 20000 } }'],
    ['valuation.ids.value', 'valuation: { ids: { value: bitcoin } }'],
  ])('%s is refused, naming what it would have been read as', (path, extra) => {
    expect(() => parsePolicy(`${base}${extra}\n`)).toThrow(
      new RegExp(`${path.replace(/\./g, '\\.')}: "(default|value)" means nothing here`),
    );
  });
  it('where they mean something they are kept', () => {
    const p = parsePolicy(`${base}  daily_limit: { value: 1000 }\n  note_required_above: { default: 5, value: 100 }\n`);
    expect(p.withdrawals.daily_limit.value).toBe('1000');
    expect(p.withdrawals.note_required_above.default).toBe('5');
  });
});
