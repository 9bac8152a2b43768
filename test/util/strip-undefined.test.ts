import { describe, expect, it } from 'vitest';
import { stripUndefined } from '../../src/util/strip-undefined.js';

describe('stripUndefined', () => {
  it('deletes only the keys that hold undefined, in place', () => {
    const o: Record<string, unknown> = { a: 1, b: undefined, c: null, d: 0, e: '', f: false };
    const out = stripUndefined(o);
    expect(out).toBe(o);
    expect(Object.keys(out)).toEqual(['a', 'c', 'd', 'e', 'f']);
  });

  it('leaves nested objects as they are (one level, as every caller needs)', () => {
    const nested = { x: undefined };
    expect(stripUndefined({ n: nested, u: undefined })).toStrictEqual({ n: { x: undefined } });
  });
});
