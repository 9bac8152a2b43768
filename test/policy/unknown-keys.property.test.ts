/**
 * Issue 43, as a property: random valid policies, each given one unknown key at a random place
 * (the top level, a section, a list item, a per-currency map, the schedule), are all refused, and
 * the refusal names the place. A key is unknown when the schema does not know it there: not one of
 * the object's keys, not a currency in a per-currency map, not a job in `schedule`. Refused as the
 * app refuses a file at every entry: the schema (parsePolicy), then the job names (scheduleProblems).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify as yaml } from 'yaml';
import { JOBS, scheduleProblems } from '../../src/jobs/table.js';
import { parsePolicy } from '../../src/policy/load.js';
import { policySchema } from '../../src/policy/schema.js';
import { formatPath, knownKeysAt } from '../../src/policy/unknown-keys.js';
import { CURRENCIES, lookup } from '../../src/wallet/enums.js';
import { pure } from '../fuzz/config.js';

/** Text of these characters (fc.stringMatching is slow enough to dominate the run). */
const word = (chars: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...chars), minLength, maxLength });
const id = (prefix: string) => word('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 2, 8).map((s) => prefix + s);
const user = id('U');
const channel = id('C');
const duration = fc.constantFrom('90s', '30m', '2h', '1d');
const amount = fc.oneof(
  fc.integer({ min: 1, max: 10 ** 9 }),
  fc.integer({ min: 1, max: 10 ** 6 }).map((n) => `${n}.5`),
);
const perCurrency = fc.dictionary(fc.constantFrom('USDT', 'usdt', 'BTC', 'ETH', 'value', 'default'), amount, {
  maxKeys: 3,
});
/** `daily_limit` takes native entries and `value` only (`default` would mean nothing there). */
const dailyLimit = fc.dictionary(fc.constantFrom('USDT', 'usdt', 'BTC', 'ETH', 'value'), amount, { maxKeys: 3 });
/** `valuation.pegs` and `floor` take currencies only. */
const perAsset = fc.dictionary(fc.constantFrom('USDT', 'DAI', 'BTC', 'ETH'), amount, { maxKeys: 2 });
const optional = <T>(arbs: { [K in keyof T]: fc.Arbitrary<T[K]> }) => fc.record(arbs, { requiredKeys: [] });

/** A policy the schema accepts: tiers in increasing order, must_include among the approvers, a quorum the admins can meet. */
const validPolicy = fc
  .record({
    approvers: fc.uniqueArray(user, { minLength: 1, maxLength: 4 }),
    admins: fc.uniqueArray(user, { minLength: 1, maxLength: 3 }),
  })
  .chain(({ approvers, admins }) => {
    const tiers = fc
      .tuple(
        fc.uniqueArray(fc.integer({ min: 1, max: 10 ** 7 }), { maxLength: 3 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 4, maxLength: 4 }),
        fc.subarray(approvers, { maxLength: 1 }),
      )
      .map(([maxes, approvals, must]) => [
        ...maxes.sort((a, b) => a - b).map((max, i) => ({ max, approvals: approvals[i]! })),
        { approvals: approvals[3]!, ...(must.length ? { must_include: must } : {}) },
      ]);
    const route = fc.record(
      {
        kind: fc.constantFrom('deposit', 'withdrawal', 'any'),
        currency: fc.constantFrom('USDT', 'BTC'),
        network: fc.constantFrom('BSC', 'TRON'),
        channel,
      },
      { requiredKeys: ['channel'] },
    );
    const address = fc.record({
      address: fc.constantFrom('0x1111111111111111111111111111111111111111', 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'),
      network: fc.constantFrom('BSC', 'ETH', 'TRON'),
      label: fc.constantFrom('Exchange hot wallet', 'desk'),
    });
    return fc.record(
      {
        channels: fc.record(
          { approvals: channel, alerts: channel, routes: fc.array(route, { maxLength: 2 }) },
          { requiredKeys: ['approvals', 'alerts'] },
        ),
        people: fc.record(
          {
            viewers: fc.constant(['*']),
            requesters: fc.array(user, { maxLength: 2 }),
            approvers: fc.constant(approvers),
            admins: fc.constant(admins),
          },
          { requiredKeys: ['approvers', 'admins'] },
        ),
        withdrawals: fc.record(
          {
            expires_after: duration,
            remind_before: duration,
            not_found_grace: fc.constantFrom('1m', '10m'),
            tiers: optional({ value: tiers, default: tiers, USDT: tiers }).filter(
              (t) => 'value' in t || 'default' in t,
            ),
            daily_limit: dailyLimit,
            note_required_above: perCurrency,
            step_up_above: perCurrency,
            allowlist: optional({
              mode: fc.constantFrom('enforce', 'warn', 'off'),
              cooloff: duration,
              addresses: fc.array(address, { maxLength: 2 }),
            }),
          },
          { requiredKeys: ['tiers'] },
        ),
        policy_changes: optional({ approvals: fc.integer({ min: 1, max: admins.length }) }),
        alerts: optional({ mention_above: perCurrency, low_balance: perCurrency, verify_grace: duration }),
        valuation: optional({
          currency: fc.constant('USD'),
          max_age: duration,
          ids: fc.dictionary(fc.constantFrom('BTC', 'XEND'), fc.constantFrom('bitcoin', 'xend-finance')),
          lookback: fc.constantFrom('1h', '7d', '30d'),
          pegs: perAsset,
          floor: perAsset,
        }),
        schedule: optional({
          timezone: fc.constantFrom('UTC', 'Europe/Berlin'),
          digest: fc.constant('0 8 * * *'),
          'store.prune': fc.constant('0 4 * * *'),
        }),
        retention: optional({ days: fc.integer({ min: 1, max: 3650 }) }),
        exports: optional({ monthly: fc.constantFrom('csv', 'xero', 'off') }),
      },
      { requiredKeys: ['channels', 'people', 'withdrawals'] },
    );
  });

type Place = { path: Array<string | number>; node: Record<string, unknown> };

/** Every object of the policy, with its path: sections, list items, per-currency maps, the schedule. */
function places(v: unknown, path: Array<string | number> = []): Place[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => places(x, [...path, i]));
  if (v === null || typeof v !== 'object') return [];
  const node = v as Record<string, unknown>;
  return [{ path, node }, ...Object.entries(node).flatMap(([k, x]) => places(x, [...path, k]))];
}

const JOB_NAMES = new Set(['timezone', ...JOBS.flatMap((r) => [r.name, ...(r.alias ? [r.alias] : [])])]);

/** Whether the schema knows `key` at this place (then it is not an unknown key). */
function known(place: Place, key: string): boolean {
  if (place.path.length === 1 && place.path[0] === 'schedule') return JOB_NAMES.has(key);
  const keys = knownKeysAt(policySchema, place.path);
  if (keys.length) return keys.includes(key);
  return key === 'value' || key === 'default' || lookup(CURRENCIES, key) !== undefined; // a per-currency map
}

/** A typo of `word`: one letter dropped, doubled, swapped with the next, or replaced. */
const typo = (word: string) =>
  fc
    .tuple(
      fc.nat({ max: Math.max(0, word.length - 1) }),
      fc.constantFrom('drop', 'double', 'swap', 'replace'),
      fc.string({ minLength: 1, maxLength: 1 }),
    )
    .map(([i, how, c]) =>
      how === 'drop'
        ? word.slice(0, i) + word.slice(i + 1)
        : how === 'double'
          ? word.slice(0, i + 1) + word.slice(i)
          : how === 'swap'
            ? word.slice(0, i) + (word[i + 1] ?? '') + word[i] + word.slice(i + 2)
            : word.slice(0, i) + c + word.slice(i + 1),
    );

const unknownKeyCase = validPolicy.chain((policy) =>
  fc.constantFrom(...places(policy)).chain((place) => {
    const near = [...Object.keys(place.node), ...knownKeysAt(policySchema, place.path)];
    return fc.record({
      policy: fc.constant(policy),
      place: fc.constant(place),
      key: fc.oneof(
        ...(near.length ? [fc.constantFrom(...near).chain(typo)] : []),
        word('abcdefghijklmnopqrstuvwxyz_', 1, 14),
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.constantFrom('limits', 'lookback', 'pegs', 'floor', 'constructor', '__proto__', 'toString'),
      ),
      value: fc.oneof(
        fc.integer(),
        fc.string({ maxLength: 8 }),
        fc.boolean(),
        fc.constant(null),
        fc.constant({}),
        fc.array(fc.integer(), { maxLength: 2 }),
      ),
    });
  }),
);

/** What the app says of the file: the schema's refusal, else the job table's, else nothing (accepted). */
function refusal(text: string): string | undefined {
  try {
    const problems = scheduleProblems(parsePolicy(text, 'policy.yml').schedule);
    return problems.length ? problems.join('\n') : undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('property: one unknown key anywhere', () => {
  it('random valid policies load', () => {
    fc.assert(
      fc.property(validPolicy, (policy) => {
        expect(refusal(yaml(policy))).toBeUndefined();
      }),
      pure(300),
    );
  });

  it('with one unknown key inserted at a random depth, every one is refused, naming the place', () => {
    fc.assert(
      fc.property(unknownKeyCase, ({ policy, place, key, value }) => {
        fc.pre(!Object.hasOwn(place.node, key) && !known(place, key));
        // On a copy (fast-check may show the generated policy again), found again by its path.
        const copy = structuredClone(policy) as unknown;
        const node = place.path.reduce((o, k) => (o as Record<PropertyKey, unknown>)[k], copy) as object;
        // defineProperty: "__proto__" must be a key of the file, not a change of the object's prototype.
        Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
        const msg = refusal(yaml(copy));
        expect(msg, `${formatPath([...place.path, key])} was accepted`).toBeDefined();
        expect(msg).toContain(formatPath([...place.path, key]));
        if (knownKeysAt(policySchema, place.path).length && place.path[0] !== 'schedule')
          expect(msg).toContain(`${formatPath([...place.path, key])} is not a policy key; `);
      }),
      pure(1_000),
    );
  });
});
