/**
 * The step-up rules alone: RFC 6238 codes with one step of drift, single use per time step,
 * the lockout, sealing at rest, the SECRETS_KEY format, and decide() refusing a large approval
 * without a verified code. Pure functions, no store, no clock.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkCode } from '../../src/stepup/decide.js';
import { parseSecretsKey } from '../../src/stepup/key.js';
import { open, seal, SealError } from '../../src/stepup/seal.js';
import { needsStepUp } from '../../src/stepup/threshold.js';
import { codeAt, matchedStep, newTotpSecret, otpauthUri, timeStep } from '../../src/stepup/totp.js';
import { LOCK_MS, type Enrolment } from '../../src/stepup/types.js';
import { lockedWords, wrongCodeWords } from '../../src/stepup/words.js';
import { decide, type WithdrawalCommand } from '../../src/withdrawals/decide/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { newRequest } from '../helpers/withdrawal-request.js';
import { T0, testPolicy, usdt } from '../withdrawals/helpers.js';

// A moment in the middle of a 30 s step, so ±30 s lands in the neighbouring steps.
const NOW = Math.floor(T0 / 30_000) * 30_000 + 15_000;
const SECRET = newTotpSecret();
const enrolment = (over: Partial<Enrolment> = {}): Enrolment => ({
  user: 'U0CAROL',
  status: 'active',
  secret: { v: 1, iv: '', tag: '', data: '' },
  startedAt: new Date(T0).toISOString(),
  failures: 0,
  ...over,
});
const wrongCode = (at: number) => String((Number(codeAt(SECRET, at)) + 1) % 1_000_000).padStart(6, '0');

describe('TOTP codes (RFC 6238: SHA1, 6 digits, 30 s)', () => {
  it('accepts the current code and one step of drift either way, refuses two', () => {
    expect(matchedStep(SECRET, codeAt(SECRET, NOW), NOW)).toBe(timeStep(NOW));
    expect(matchedStep(SECRET, codeAt(SECRET, NOW - 30_000), NOW)).toBe(timeStep(NOW) - 1);
    expect(matchedStep(SECRET, codeAt(SECRET, NOW + 30_000), NOW)).toBe(timeStep(NOW) + 1);
    expect(matchedStep(SECRET, codeAt(SECRET, NOW - 60_000), NOW)).toBeNull();
    expect(matchedStep(SECRET, codeAt(SECRET, NOW + 60_000), NOW)).toBeNull();
  });

  it('matches the RFC 6238 SHA1 test vector (its secret, 59 s, last 6 digits)', () => {
    // RFC 6238 appendix B: secret "12345678901234567890", T = 59 -> 94287082 (8 digits).
    const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(codeAt(rfcSecret, 59_000)).toBe('287082');
  });

  it('refuses anything that is not six digits', () => {
    for (const code of ['', '12345', '1234567', 'abcdef', ' 12345']) expect(matchedStep(SECRET, code, NOW)).toBeNull();
  });

  it('builds an otpauth:// URI for the Treasury issuer with the person as label', () => {
    const uri = otpauthUri(SECRET, 'U0CAROL');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Treasury:U0CAROL\?/);
    expect(uri).toContain(`secret=${SECRET}`);
    expect(uri).toContain('period=30');
    expect(uri).toContain('digits=6');
    expect(uri).toContain('algorithm=SHA1');
  });
});

describe('checking a code against an enrolment', () => {
  it('accepts a code once: the same code again, or an older one, is a replay', () => {
    const first = checkCode(enrolment(), SECRET, codeAt(SECRET, NOW), NOW);
    expect(first.kind).toBe('verified');
    if (first.kind !== 'verified') return;
    const again = checkCode(first.next, SECRET, codeAt(SECRET, NOW), NOW + 5_000);
    expect(again).toMatchObject({ kind: 'wrong', why: 'replayed', failures: 1 });
    const older = checkCode(first.next, SECRET, codeAt(SECRET, NOW - 30_000), NOW + 5_000);
    expect(older).toMatchObject({ kind: 'wrong', why: 'replayed' });
    // The next step's code is fresh.
    expect(checkCode(first.next, SECRET, codeAt(SECRET, NOW + 30_000), NOW + 30_000).kind).toBe('verified');
  });

  it('locks for 15 minutes at the fifth wrong code in a row; a correct code is refused meanwhile; then it works', () => {
    let e = enrolment();
    for (let i = 1; i <= 4; i++) {
      const c = checkCode(e, SECRET, wrongCode(NOW), NOW);
      expect(c).toMatchObject({ kind: 'wrong', failures: i });
      if (c.kind === 'wrong') e = c.next;
    }
    const fifth = checkCode(e, SECRET, wrongCode(NOW), NOW);
    expect(fifth).toMatchObject({ kind: 'locked-now', until: NOW + LOCK_MS });
    if (fifth.kind !== 'locked-now') return;
    e = fifth.next;
    const during = NOW + LOCK_MS - 1;
    expect(checkCode(e, SECRET, codeAt(SECRET, during), during)).toEqual({ kind: 'locked', until: NOW + LOCK_MS });
    const after = NOW + LOCK_MS;
    const ok = checkCode(e, SECRET, codeAt(SECRET, after), after);
    expect(ok.kind).toBe('verified');
    if (ok.kind === 'verified') expect(ok.next).toMatchObject({ failures: 0 });
    if (ok.kind === 'verified') expect(ok.next.lockedUntil).toBeUndefined();
  });

  it('a good code resets the count of wrong ones', () => {
    let e = enrolment({ failures: 4 });
    const ok = checkCode(e, SECRET, codeAt(SECRET, NOW), NOW);
    expect(ok.kind).toBe('verified');
    if (ok.kind === 'verified') e = ok.next;
    expect(checkCode(e, SECRET, wrongCode(NOW + 30_000), NOW + 30_000)).toMatchObject({ kind: 'wrong', failures: 1 });
  });
});

describe('what a refused code says', () => {
  it('counts down the tries left before the lockout, then says until when it is locked', () => {
    expect(wrongCodeWords('wrong', 1)).toMatch(
      /^That code is not valid\..* 4 tries left before your codes are locked for 15 minutes\.$/,
    );
    expect(wrongCodeWords('replayed', 4)).toMatch(/^That code was already used\..* 1 try left before/);
    const until = Date.UTC(2026, 10, 23, 23, 59, 30);
    expect(lockedWords(until, until - LOCK_MS)).toBe(
      'Your authenticator codes are locked after 5 wrong codes in a row, until 2026-11-23 23:59 UTC (in 15 minutes). The admins have been told.',
    );
    expect(lockedWords(until, until - 20_000)).toContain('(in 1 minute)');
  });
});

describe('secrets at rest', () => {
  const key = randomBytes(32);

  it('round-trips, and the sealed form does not contain the secret', () => {
    const sealed = seal(key, SECRET, 'U0CAROL');
    expect(JSON.stringify(sealed)).not.toContain(SECRET);
    expect(open(key, sealed, 'U0CAROL')).toBe(SECRET);
  });

  it('refuses with a clear error under another key or for another person, never garbage', () => {
    const sealed = seal(key, SECRET, 'U0CAROL');
    expect(() => open(randomBytes(32), sealed, 'U0CAROL')).toThrow(SealError);
    expect(() => open(key, sealed, 'U0DAVE')).toThrow(SealError);
    expect(() => open(randomBytes(32), sealed, 'U0CAROL')).toThrow(/SECRETS_KEY/);
  });

  it('takes SECRETS_KEY as 64 hex characters or base64 of 32 bytes, nothing else', () => {
    const raw = randomBytes(32);
    expect(parseSecretsKey(raw.toString('hex'))).toEqual(raw);
    expect(parseSecretsKey(raw.toString('base64'))).toEqual(raw);
    expect(parseSecretsKey(raw.toString('base64url'))).toEqual(raw);
    expect(parseSecretsKey('short')).toBeUndefined();
    expect(parseSecretsKey(randomBytes(16).toString('hex'))).toBeUndefined();
    expect(parseSecretsKey(randomBytes(31).toString('base64'))).toBeUndefined();
  });
});

describe('decide(): a large approval needs a verified code', () => {
  const base = testPolicy();
  const policy = { ...base, withdrawals: { ...base.withdrawals, step_up_above: { USDT: '10000' } } };
  const ctx = { now: T0 + 60_000, policy };

  function pending(amount: string): WithdrawalRequest {
    return newRequest({ policy, input: usdt(amount), now: T0, merchantReference: 'ref-w1' });
  }
  const approve = (user: string, stepUp?: 'verified' | 'not-needed'): WithdrawalCommand => ({
    type: 'approve',
    user,
    isApprover: true,
    satisfies: user === 'U0ERIN' ? ['U0ERIN'] : [],
    ...(stepUp ? { stepUp } : {}),
  });

  it('compares decimals: 10000 is not above 10000, 10000.000001 is', () => {
    expect(needsStepUp(policy, 'USDT', '10000')).toBe(false);
    expect(needsStepUp(policy, 'USDT', '10000.000001')).toBe(true);
    expect(needsStepUp(policy, 'BTC', '99999')).toBe(false);
    const withDefault = { ...policy, withdrawals: { ...policy.withdrawals, step_up_above: { default: '5' } } };
    expect(needsStepUp(withDefault, 'BTC', '5.1')).toBe(true);
  });

  it('refuses the plain button path (no fact, or not-needed) and records a verified one', () => {
    const r = pending('12000');
    expect(decide(approve('U0CAROL'), r, ctx)).toMatchObject({ kind: 'refused', reason: 'step_up_required' });
    expect(decide(approve('U0CAROL', 'not-needed'), r, ctx)).toMatchObject({
      kind: 'refused',
      reason: 'step_up_required',
    });
    const ok = decide(approve('U0CAROL', 'verified'), r, ctx);
    expect(ok.kind).toBe('changed');
    if (ok.kind === 'changed') expect(ok.audit.details).toMatchObject({ stepUp: 'verified' });
  });

  it('a code never bypasses a rule: own request, not an approver, already approved', () => {
    const r = pending('12000');
    expect(decide(approve('U0ALICE', 'verified'), r, ctx)).toMatchObject({ reason: 'own_request' });
    expect(
      decide({ type: 'approve', user: 'U0MALLORY', isApprover: false, satisfies: [], stepUp: 'verified' }, r, ctx),
    ).toMatchObject({ reason: 'not_approver' });
    const once = decide(approve('U0CAROL', 'verified'), r, ctx);
    if (once.kind !== 'changed') throw new Error('expected a change');
    expect(decide(approve('U0CAROL', 'verified'), once.next, ctx)).toMatchObject({ reason: 'already_approved' });
  });

  it('a request at or under the threshold needs no code', () => {
    expect(decide(approve('U0CAROL'), pending('500'), ctx).kind).toBe('changed');
    expect(decide(approve('U0CAROL'), pending('10000'), ctx).kind).toBe('changed');
  });
});
