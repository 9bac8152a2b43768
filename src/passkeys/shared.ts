/** What the passkey shells share: the relying party, token hashing, the store and audit helpers. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AuditAction } from '../audit/actions.js';
import { appendAudit } from '../audit/log.js';
import type { Logger } from '../log.js';
import type { PolicySource } from '../policy/source.js';
import type { Store, Tx } from '../store/index.js';
import { PASSKEY_NOTICES, type PasskeyNotice } from './types.js';

/** Who the browser must believe it is talking to: PUBLIC_URL's origin and host (`localhost` in the local workspace). */
export interface RelyingParty {
  /** The app's base URL, without a trailing slash. */
  base: string;
  origin: string;
  id: string;
}

export function relyingParty(base: string): RelyingParty {
  const u = new URL(base);
  return { base: base.replace(/\/+$/, ''), origin: u.origin, id: u.hostname };
}

export interface PasskeyPartOptions {
  store: Store;
  /** SECRETS_KEY: seals the enrolment link's token for its DM. */
  key: Buffer;
  policy: PolicySource;
  now: () => number;
  logger: Logger;
  /** The app's public base (PUBLIC_URL, or http://localhost:<port> in the local workspace), read at the moment of use. */
  base: () => string;
  /** Called inside the commit that writes a notice: whatever it enqueues is durable with it. */
  notify?: (tx: Tx, notice: PasskeyNotice) => void;
}

/** A new link token. Not registered as a secret: the logger masks link URLs by their shape (log.ts). */
export const newToken = (): string => randomBytes(32).toString('base64url');
/** Tokens are looked up by their SHA-256: the store never holds a usable link in clear. */
export const tokenId = (token: string): string => createHash('sha256').update(token).digest('hex');
/** A token as it can appear in a URL path (43 base64url characters). */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const iso = (ms: number): string => new Date(ms).toISOString();

export function audit(
  tx: Tx,
  at: number,
  actor: string,
  action: AuditAction,
  subject: string,
  details: Record<string, unknown> = {},
): void {
  appendAudit(tx, { at, actor, action, subject, details });
}

export function notice(o: PasskeyPartOptions, tx: Tx, n: Omit<PasskeyNotice, 'id'>): void {
  const full: PasskeyNotice = { id: randomUUID(), ...n };
  tx.put(PASSKEY_NOTICES, full.id, full);
  o.notify?.(tx, full);
}
