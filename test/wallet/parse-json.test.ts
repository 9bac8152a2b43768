/**
 * parseJson and camelKeys (src/wallet/json.ts), the edges of their fast paths: duplicate keys are
 * found by counting (escaped spellings and keys inside a dropped duplicate included), a key named
 * __proto__ stays data, numbers anywhere (the root, arrays, deep nesting) come back exact.
 */
import { isLosslessNumber } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { camelKeys, parseJson } from '../../src/wallet/json.js';

describe('parseJson', () => {
  it('refuses a duplicate key, however it is spelled and wherever it is', () => {
    for (const text of [
      '{"a":1,"a":2}',
      '{"a":1,"\\u0061":2}',
      '{"x":{"a":{"b":1}},"x":{"c":2}}',
      '[{"k":1},{"k":2,"k":3}]',
      '{"a":{"a":1,"b":2,"b":3}}',
    ])
      expect(() => parseJson(text), text).toThrow(SyntaxError);
  });

  it('accepts equal keys in different objects, and keys that look alike but differ', () => {
    expect(parseJson('[{"k":1},{"k":2}]')).toHaveLength(2);
    expect(Object.keys(parseJson('{"a":1,"A":2,"a ":3}') as object)).toEqual(['a', 'A', 'a ']);
  });

  it('keeps every number exact, at the root, in arrays and deep inside', () => {
    const root = parseJson('0.123456789012345678901234567890');
    expect(isLosslessNumber(root) && root.toString()).toBe('0.123456789012345678901234567890');
    const deep = `${'['.repeat(5000)}1.10${']'.repeat(5000)}`;
    let v: unknown = parseJson(deep);
    for (let i = 0; i < 5000; i++) v = (v as unknown[])[0];
    expect(isLosslessNumber(v) && v.toString()).toBe('1.10');
    const list = parseJson('{"xs":[1,"2",0.30,null,{"y":-4e2}]}') as { xs: unknown[] };
    expect(list.xs.map((x) => (isLosslessNumber(x) ? `n${x.toString()}` : x))).toEqual([
      'n1',
      '2',
      'n0.30',
      null,
      { y: expect.anything() },
    ]);
  });

  it('a key named __proto__ is data: the result keeps its prototype', () => {
    const v = parseJson('{"__proto__":{"polluted":1},"n":5}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    const c = camelKeys(v) as Record<string, unknown>;
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.hasOwn(c, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('camelKeys', () => {
  it('lower-cases first letters (ASCII or not); the camelCase twin wins', () => {
    expect(camelKeys({ Data: { IsSuccessful: true, records: [{ Amount: 1 }] }, Éa: 1, _x: 2 })).toEqual({
      data: { isSuccessful: true, records: [{ amount: 1 }] },
      éa: 1,
      _x: 2,
    });
    expect(camelKeys({ Status: 0, status: 1 })).toEqual({ status: 1 });
    expect(camelKeys({ status: 1, Status: 0 })).toEqual({ status: 1 });
  });
});
