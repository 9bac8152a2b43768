import { describe, expect, it } from 'vitest';
import { outside, outsideCell, outsideCode, outsidePlain } from '../../src/format/outside.js';

describe('outside: the one escape for text from outside', () => {
  it('turns a mention and a link into text', () => {
    const s = outside('<!channel> <https://evil.example/login|Re-authorise your wallet>');
    expect(s).not.toMatch(/[<>]/);
    expect(s).toBe('&lt;!channel&gt; &lt;https://evil.example/login|Re-authorise your wallet&gt;');
  });
  it('keeps one line: newlines, tabs, Unicode line breaks and direction marks become spaces', () => {
    expect(outside('Exchange\n• fake bullet\u2028x\u202Ey')).toBe('Exchange • fake bullet x y');
    expect(outsidePlain('a\r\nb')).toBe('a b');
  });
  it('neutralises formatting marks at a word edge, keeps them inside a word', () => {
    expect(outside('*bold* _it_ ~s~ `c`')).toBe('＊bold＊ ＿it＿ ～s～ ｀c｀');
    expect(outside('ada_okafor@acme.test')).toBe('ada_okafor@acme.test');
  });
  it('cuts to the stated length before escaping, so no entity is cut in half', () => {
    expect(outside('<<<<<<', 4)).toBe('&lt;&lt;&lt;…');
    expect(Array.from(outsidePlain('x'.repeat(500))).length).toBe(200);
  });
  it('outsideCode: a code span that cannot be closed early, with entities and one line', () => {
    expect(outsideCode('0xabc')).toBe('`0xabc`');
    expect(outsideCode('a`b <!here>\nc')).toBe('`aˋb &lt;!here&gt; c`');
    expect(outsideCode('*_~')).toBe('`*_~`');
  });
  it('outsideCell: readable (no entities), one line, cut, formulas guarded', () => {
    expect(outsideCell('a & <b>')).toBe('a & <b>');
    expect(outsideCell('line one\r\nline two')).toBe('line one line two');
    for (const f of ['=1+1', '+1', '-x', '@SUM(A1)', '\t=1', ' =1']) expect(outsideCell(f).startsWith("'")).toBe(true);
    expect(Array.from(outsideCell('x'.repeat(50), 10)).length).toBe(10);
  });
});
