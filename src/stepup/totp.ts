/**
 * RFC 6238 codes through `otpauth`: SHA1, 6 digits, 30 s steps, one step of drift either way.
 * Pure: the time is passed in, so tests (and the lockout clock) control it.
 */
import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_S = 30;
const DIGITS = 6;
const ALGORITHM = 'SHA1';
/** Steps of clock drift accepted either side of the current one. */
const DRIFT_STEPS = 1;
export const ISSUER = 'Treasury';

/** A new random secret (160 bits, RFC 4226's recommended length), in base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label = 'treasury'): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secret),
  });
}

/** The secret as people type it from a screen: groups of four ("ABCD EFGH ..."). */
export function groupedSecret(secret: string): string {
  return (secret.match(/.{1,4}/g) ?? []).join(' ');
}

/** The otpauth:// URI an authenticator app scans (it carries the secret: never log or post it). */
export function otpauthUri(secret: string, label: string): string {
  return totp(secret, label).toString();
}

/** The time step a moment falls in. */
export function timeStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_S);
}

/**
 * The time step `code` belongs to, within one step of now, or null when it matches none.
 * The step (not just "valid") is what makes a code single-use: a step once used is spent.
 */
export function matchedStep(secret: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: nowMs, window: DRIFT_STEPS });
  return delta === null ? null : timeStep(nowMs) + delta;
}

/** The code of the step `nowMs` falls in (tests and the local workspace's helpers). */
export function codeAt(secret: string, nowMs: number): string {
  return totp(secret).generate({ timestamp: nowMs });
}
