/**
 * parseJson (src/wallet/json.ts) reads numbers as lossless-json does, in linear time: on any JSON
 * text within the bounds it yields what lossless-json's own parser yields, and refuses what that
 * parser refuses (bad JSON, duplicate keys).
 */
import fc from 'fast-check';
import { parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { OutOfBoundsJson, parseJson } from '../../src/wallet/json.js';
import { hostileJson, pure } from './config.js';

function both(text: string): [unknown, unknown] {
  let ours: unknown;
  let theirs: unknown;
  try {
    ours = parseJson(text);
  } catch (err) {
    ours = err instanceof OutOfBoundsJson ? 'out of bounds' : 'refused';
  }
  try {
    theirs = parse(text);
  } catch {
    theirs = 'refused';
  }
  return [ours, theirs];
}

const numberLiteral = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.stringMatching(/^-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,8})?([eE][+-]?[0-9]{1,2})?$/),
);

describe('parseJson', () => {
  it('agrees with lossless-json on any JSON text, and on text cut or spliced', () => {
    const text = fc.oneof(
      hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
      fc.tuple(hostileJson, fc.nat(), fc.string({ maxLength: 4 })).map(([v, at, junk]) => {
        const s = JSON.stringify(v) ?? 'null';
        const i = at % (s.length + 1);
        return s.slice(0, i) + junk + s.slice(i);
      }),
      fc
        .array(fc.tuple(fc.constantFrom('a', 'b', 'c'), numberLiteral), { maxLength: 5 })
        .map((kv) => `{${kv.map(([k, n]) => `"${k}":[${n},"${n}"]`).join(',')}}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        const [ours, theirs] = both(t);
        if (ours === 'out of bounds') return;
        expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
      }),
      pure(),
    );
  });
});
