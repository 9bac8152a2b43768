/**
 * Who may post to the webhook: the secret path segment (compared in constant time against every
 * accepted secret) and, when configured, a Standard Webhooks HMAC of the raw body keyed with the
 * secret of the path.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Which of the accepted secrets `given` is, if any. Digests first: timingSafeEqual needs equal
 * lengths, and the length must not leak either. Every accepted secret is compared (no early
 * exit), so the time does not tell which one matched, or how close a guess came.
 */
export function matchingSecret(given: string, accepted: string | readonly string[]): string | undefined {
  const g = digest(given);
  let found: string | undefined;
  for (const s of typeof accepted === 'string' ? [accepted] : accepted) {
    if (timingSafeEqual(g, digest(s)) && found === undefined) found = s;
  }
  return found;
}

/** `given` is one of the accepted secrets (the current one, or the previous one during a rotation's overlap). */
export function secretMatches(given: string, accepted: string | readonly string[]): boolean {
  return matchingSecret(given, accepted) !== undefined;
}

export const SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/** Standard Webhooks: a `whsec_` secret is base64 after the prefix, any other is its UTF-8 bytes. */
function key(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export function signBody(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
  return `v1,${createHmac('sha256', key(secret)).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

export function verifySignature(
  secret: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: Buffer,
  nowMs: number,
): SignatureCheck {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature)
    return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'bad webhook-timestamp' };
  const ts = Number(timestamp);
  if (Math.abs(nowMs - ts * 1000) > SIGNATURE_TOLERANCE_MS)
    return { ok: false, reason: 'webhook-timestamp outside the tolerance' };
  const expected = Buffer.from(signBody(secret, id, ts, body).slice(3), 'base64');
  for (const part of signature.split(' ')) {
    const [version, value] = part.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'no valid signature' };
}
