/**
 * Who may post to the webhook: the secret path segment (compared in constant time) and,
 * when configured, a Standard Webhooks HMAC of the raw body keyed with the same secret.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Digests first: timingSafeEqual needs equal lengths, and the length must not leak either. */
export function secretMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
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
