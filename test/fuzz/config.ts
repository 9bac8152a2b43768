/**
 * Fuzzing settings. CI runs a fixed seed (reproducible); FUZZ_SEED picks another and
 * FUZZ_RUNS multiplies the number of cases: `FUZZ_RUNS=100000 npx vitest run test/fuzz`.
 * FUZZ_RUNS is the count for the pure targets; the HTTP targets run a fiftieth of it.
 */
import fc from 'fast-check';

export const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const PURE = Number(process.env.FUZZ_RUNS ?? 2_000);

/** Options for a pure target (thousands of cases by default). */
export function pure(runs = PURE): fc.Parameters<unknown> {
  return { seed: SEED, numRuns: runs, endOnFailure: true };
}

/** Options for a target that goes through real HTTP (a few dozen to hundreds of cases). */
export function http(defaultRuns: number): fc.Parameters<unknown> {
  const runs = process.env.FUZZ_RUNS ? Math.max(defaultRuns, Math.floor(PURE / 50)) : defaultRuns;
  return { seed: SEED, numRuns: runs, endOnFailure: true };
}

/** Keys that trip code that looks things up on plain objects. */
export const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
];

/** Strings a careless or hostile user types: prototype keys, control characters, huge, unicode, Slack escapes. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(...PROTO_KEYS),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\n\n',
    '`',
    '<!here>',
    '<@U0ERIN001>',
    '&lt;&gt;&amp;',
    '=',
    '==',
    '=x',
    'x=',
    '\u202e',
    '\ud800',
    '😀'.repeat(30),
  ),
  fc.integer({ min: 1_000, max: 60_000 }).map((n) => 'x'.repeat(n)),
  fc
    .tuple(fc.constantFrom(...PROTO_KEYS, 'currency', 'network', 'status', 'page', 'size', 'from', 'hash'), fc.string())
    .map(([k, v]) => `${k}=${v}`),
);

/** Space-separated words built from hostile pieces. */
export const commandText: fc.Arbitrary<string> = fc.array(hostileString, { maxLength: 8 }).map((ws) => ws.join(' '));

/** JSON-ish values with hostile keys, nulls and wrong types anywhere. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    hostileString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        fc.string(),
        fc.constantFrom(...PROTO_KEYS, 'type', 'user', 'actions', 'view', 'state', 'values', 'value', 'id'),
      ),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;
