/** The pure cores of the verification callback: the verdict and the checksum. */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceCode } from '../../src/slack/verification-notice.js';
import { refusalKind, shortReference } from '../../src/verification/alerts.js';
import { constantTimeEqual, verificationChecksum } from '../../src/verification/checksum.js';
import { CALL_FIELDS } from '../../src/verification/fields.js';
import { verdict, type VerdictFacts } from '../../src/verification/verdict.js';
import type { WithdrawalState } from '../../src/withdrawals/index.js';

const KEY = 'sk_sandbox_0123456789abcdef';
const REF = '3f2a9c1e-0000-4000-8000-000000000001';
const DEST = '0x2222222222222222222222222222222222222222';

describe('verificationChecksum', () => {
  it('is HEX(SHA512(HEX(SHA512(secretKey)) + reference + ":" + destination)), upper-case', () => {
    // Computed outside this code base (Python hashlib) for these inputs.
    expect(verificationChecksum(KEY, REF, DEST)).toBe(
      'B375188E0A7547E93D8491AF1DFC979527B43BC183F5739DC3A5C717EFC9A2C713C2D67724059A090F3BAD29BE0A72CAD37F5B69114DF23D281C7CDAD1C41B1C',
    );
  });

  it('agrees with node:crypto written out step by step, for any inputs', () => {
    const hex = (s: string) => createHash('sha512').update(Buffer.from(s, 'utf8')).digest('hex').toUpperCase();
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (k, r, d) => {
        expect(verificationChecksum(k, r, d)).toBe(hex(`${hex(k)}${r}:${d}`));
      }),
    );
  });

  it('changes with the key, the reference and the destination', () => {
    const base = verificationChecksum(KEY, REF, DEST);
    expect(verificationChecksum(`${KEY}x`, REF, DEST)).not.toBe(base);
    expect(verificationChecksum(KEY, `${REF}x`, DEST)).not.toBe(base);
    expect(verificationChecksum(KEY, REF, DEST.replace(/2$/, '3'))).not.toBe(base);
  });

  it('constantTimeEqual compares whole strings of any length', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });
});

describe('verdict', () => {
  const facts = (o: Partial<VerdictFacts> & { state?: WithdrawalState }): VerdictFacts => ({
    referenceValid: true,
    request: { state: o.state ?? 'executing' },
    frozen: false,
    mismatches: [],
    ...o,
  });

  it('verifies only an executing request, not frozen, with no field other than approved', () => {
    expect(verdict(facts({}))).toEqual({ isVerified: true, reason: 'verified' });
  });

  it('refuses every other case, with its reason', () => {
    expect(verdict(facts({ referenceValid: false, request: undefined })).reason).toBe('invalid_reference');
    expect(verdict(facts({ request: undefined })).reason).toBe('unknown_reference');
    expect(verdict(facts({ frozen: true })).reason).toBe('frozen');
    for (const field of CALL_FIELDS) expect(verdict(facts({ mismatches: [field] })).reason).toBe(`${field}_mismatch`);
    // The first field that differs names the reason; a mismatch outranks the state and the freeze (it alarms).
    expect(verdict(facts({ mismatches: ['amount', 'network'] })).reason).toBe('amount_mismatch');
    expect(verdict(facts({ mismatches: ['currency'], frozen: true, state: 'completed' })).reason).toBe(
      'currency_mismatch',
    );
    for (const state of ['pending', 'approved', 'rejected', 'expired', 'completed', 'failed', 'unknown'] as const)
      expect(verdict(facts({ state })), state).toEqual({ isVerified: false, reason: 'not_executing' });
  });

  it('never verifies unless every condition holds', () => {
    const states = fc.constantFrom<WithdrawalState>(
      'pending',
      'approved',
      'executing',
      'completed',
      'failed',
      'rejected',
      'expired',
      'unknown',
    );
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.option(states, { nil: undefined }),
        fc.boolean(),
        fc.subarray([...CALL_FIELDS]),
        (referenceValid, state, frozen, mismatches) => {
          const v = verdict({
            referenceValid,
            request: state ? { state } : undefined,
            frozen,
            mismatches,
          });
          const should = referenceValid && state === 'executing' && !frozen && mismatches.length === 0;
          expect(v.isVerified).toBe(should);
        },
      ),
    );
  });
});

describe('refusalKind: alarm or plain notice', () => {
  it('alarms for what the quorum never approved (or ours sent elsewhere); a plain notice for our approved ones', () => {
    expect(refusalKind('invalid_reference', undefined)).toBe('alarm');
    expect(refusalKind('unknown_reference', undefined)).toBe('alarm');
    for (const state of ['pending', 'rejected', 'expired'] as const)
      expect(refusalKind('not_executing', state), state).toBe('alarm');
    expect(refusalKind('frozen', 'pending')).toBe('alarm');
    for (const field of CALL_FIELDS)
      for (const state of ['executing', 'completed', undefined] as const)
        expect(refusalKind(`${field}_mismatch`, state), `${field} ${state}`).toBe('alarm');
    for (const state of ['approved', 'completed', 'failed', 'unknown'] as const)
      expect(refusalKind('not_executing', state), state).toBe('notice');
    expect(refusalKind('frozen', 'executing')).toBe('notice');
    expect(refusalKind('frozen', 'approved')).toBe('notice');
  });
});

describe('references shown in Slack', () => {
  it('any text becomes one short code span: no mention, link, or early end', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (raw) => {
        const shown = referenceCode(shortReference(raw));
        expect(shown.startsWith('`') && shown.endsWith('`')).toBe(true);
        const inner = shown.slice(1, -1);
        expect(inner).not.toMatch(/[`<>]/);
        expect(inner).not.toMatch(/[\p{Cc}\p{Cf}]/u);
        expect(Array.from(inner.replace(/&(amp|lt|gt);/g, '_')).length).toBeLessThanOrEqual(64);
      }),
    );
    expect(shortReference('x'.repeat(500))).toHaveLength(120);
    expect(shortReference('réf-42')).toBe('réf-42');
  });
});
