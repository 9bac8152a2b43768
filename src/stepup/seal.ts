/**
 * TOTP secrets at rest: AES-256-GCM (node:crypto) under SECRETS_KEY, with the person's Slack id
 * as additional authenticated data, so a sealed secret copied onto another person's record
 * does not open. A wrong key (or a tampered record) fails the tag check: `SealError`, never
 * garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface Sealed {
  /** Format version, so a later change of algorithm can read older records. */
  v: 1;
  iv: string;
  tag: string;
  data: string;
}

export class SealError extends Error {
  constructor() {
    // Says what to do, never what the key or the secret is.
    super(
      'A stored authenticator secret cannot be decrypted with the current SECRETS_KEY (the key changed, or the data directory was altered).',
    );
    this.name = 'SealError';
  }
}

export function seal(key: Buffer, plaintext: string, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    v: 1,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

export function open(key: Buffer, sealed: Sealed, aad: string): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealError();
  }
}
