/**
 * The step-up rules as pure functions: a code checked against an enrolment at a moment gives
 * the outcome and the enrolment's next state (single use per time step, five wrong codes in a
 * row lock for 15 minutes). No store, no clock, no key: the shell (service.ts) passes the
 * opened secret and the time in, and writes what comes back in one commit with its audit entry.
 */
import { matchedStep } from './totp.js';
import { LOCK_MS, MAX_WRONG_CODES, type Enrolment } from './types.js';

export type CodeCheck =
  /** Locked before this attempt: nothing is checked or counted. */
  | { kind: 'locked'; until: number }
  | { kind: 'verified'; step: number; next: Enrolment }
  /** Not a current code, or one already used: counted towards the lockout. */
  | { kind: 'wrong'; why: 'wrong' | 'replayed'; failures: number; next: Enrolment }
  /** This wrong code was the fifth in a row: locked from now until `until`. */
  | { kind: 'locked-now'; why: 'wrong' | 'replayed'; until: number; next: Enrolment };

export const isLocked = (e: Enrolment, now: number): boolean => e.lockedUntil !== undefined && now < e.lockedUntil;

export function checkCode(e: Enrolment, secret: string, code: string, now: number): CodeCheck {
  if (isLocked(e, now)) return { kind: 'locked', until: e.lockedUntil! };
  const step = matchedStep(secret, code, now);
  if (step !== null && (e.lastStep === undefined || step > e.lastStep)) {
    const { lockedUntil: _unlocked, ...rest } = e;
    return { kind: 'verified', step, next: { ...rest, lastStep: step, failures: 0 } };
  }
  const why = step === null ? 'wrong' : 'replayed';
  const failures = e.failures + 1;
  if (failures >= MAX_WRONG_CODES) {
    const until = now + LOCK_MS;
    return { kind: 'locked-now', why, until, next: { ...e, failures: 0, lockedUntil: until } };
  }
  return { kind: 'wrong', why, failures, next: { ...e, failures } };
}
