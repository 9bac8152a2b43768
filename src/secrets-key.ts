/**
 * The SECRETS_KEY format: a leaf, so the configuration (env-schema.ts) checks it and every folder
 * that seals with the key (step-up, webhooks, the replica inbox) parses it the same way.
 */

export const SECRETS_KEY_FORMAT =
  'must be 32 random bytes written as 64 hex characters or in base64 (for example the output of `openssl rand -base64 32`)';

/** The key bytes of a SECRETS_KEY value, or undefined when it is not 32 bytes in hex or base64. */
export function parseSecretsKey(text: string): Buffer | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) {
    const b = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === 32) return b;
  }
  return undefined;
}
