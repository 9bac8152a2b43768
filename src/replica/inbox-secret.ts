/**
 * The path secret an inbox row was acknowledged under, kept as a keyed hash and never in
 * clear: the webhook URL is a credential, and a `pg_dump` of the inbox must not be one. The key
 * is derived from SECRETS_KEY (src/stepup/key.ts), which every replica holds and the database
 * does not reveal when it comes from the environment (as it must with a real Slack workspace);
 * a derived key, so the hash can never be confused with what SECRETS_KEY seals.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { parseSecretsKey } from '../secrets-key.js';
import type { SecretKeys } from '../webhooks/sealed.js';

const PURPOSE = 'treasury-slack: webhook inbox secret hash v1';
const PREFIX = 'v1:';

/** The HMAC key for inbox secret hashes, derived from the SECRETS_KEY bytes. */
export function inboxHashKey(secretsKey: Buffer): Buffer {
  return createHmac('sha256', secretsKey).update(PURPOSE).digest();
}

export function hashInboxSecret(hashKey: Buffer, secret: string): string {
  return PREFIX + createHmac('sha256', hashKey).update(secret, 'utf8').digest('hex');
}

/** Whether `hash` is that of one of `secrets` (in constant time per candidate). */
export function inboxSecretMatches(hashKey: Buffer, hash: string | undefined, secrets: readonly string[]): boolean {
  if (!hash?.startsWith(PREFIX)) return false;
  const given = Buffer.from(hash.slice(PREFIX.length), 'hex');
  let found = false;
  for (const s of secrets) {
    const want = Buffer.from(hashInboxSecret(hashKey, s).slice(PREFIX.length), 'hex');
    if (given.length === want.length && timingSafeEqual(given, want)) found = true;
  }
  return found;
}

/**
 * SECRETS_KEY for a standby: the configured one, else the one the leader generated and keeps in
 * its records (local mode and loopback Slack only, src/stepup/key.ts); undefined until there is one.
 */
export async function standbySecretsKey(db: pg.Pool, configured: SecretKeys | undefined): Promise<Buffer | undefined> {
  if (configured) return configured.key;
  const { rows } = await db.query<{ value: { value?: string } }>(
    "SELECT value FROM store_records WHERE collection = 'stepup_settings' AND id = 'secretsKey'",
  );
  const v = rows[0]?.value.value;
  return typeof v === 'string' ? parseSecretsKey(v) : undefined;
}
