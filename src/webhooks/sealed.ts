/**
 * The generated webhook secrets at rest: sealed under SECRETS_KEY with the step-up seeds' own
 * AES-256-GCM (src/stepup/seal.ts), so a copy of the data directory or a database dump does not
 * carry the URL that lets anyone post notifications. Records written before this (a `value` in
 * clear) are still read, and sealed at the next start (secrets.ts); a record sealed under
 * SECRETS_KEY_PREVIOUS is opened with it and sealed again under the new key.
 */
import { open, seal, SealError, type Sealed } from '../stepup/seal.js';

/** Both the current and the previous secret: a rotation moves one onto the other. */
const AAD = 'webhook-secret';

/** SECRETS_KEY, and SECRETS_KEY_PREVIOUS while re-keying. */
export interface SecretKeys {
  key: Buffer;
  previous?: Buffer;
}

/** As stored: sealed, or (written by an older version) in clear until the next start seals it. */
export type StoredSecret = { sealed: Sealed; value?: undefined } | { value: string; sealed?: undefined };

export class WebhookSecretKeyError extends Error {
  override name = 'WebhookSecretKeyError';
  constructor() {
    // What to do, never what the key or the secret is.
    super(
      'SECRETS_KEY does not open the stored webhook secret (the key changed? To re-key, give the old one as SECRETS_KEY_PREVIOUS for one start: docs/guides/rotate-secrets.md).',
    );
  }
}

export function sealSecret(keys: SecretKeys, value: string): { sealed: Sealed } {
  return { sealed: seal(keys.key, value, AAD) };
}

/** The secret, and whether its record should be written again (in clear, or under the previous key). */
export function openSecret(keys: SecretKeys, stored: StoredSecret): { value: string; reseal: boolean } {
  if (stored.sealed === undefined) return { value: stored.value, reseal: true };
  try {
    return { value: open(keys.key, stored.sealed, AAD), reseal: false };
  } catch (err) {
    if (!(err instanceof SealError)) throw err;
  }
  if (keys.previous) {
    try {
      return { value: open(keys.previous, stored.sealed, AAD), reseal: true };
    } catch (err) {
      if (!(err instanceof SealError)) throw err;
    }
  }
  throw new WebhookSecretKeyError();
}
