/**
 * The passkey records and their collections (persisted names: never change them). All of them
 * live in the store, so every replica sees the same credentials, links and challenges.
 */
import { collection } from '../store/index.js';
import type { Sealed } from '../stepup/seal.js';

/** A passkey or security key registered by one Slack user (a person may hold several, by name). */
export interface PasskeyCredential {
  /** The credential id (base64url), as the authenticator names it. */
  id: string;
  user: string;
  /** The person's name for it ("Laptop", "YubiKey"), unique among their own. */
  name: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  transports?: string[];
  createdAt: string;
  lastUsedAt?: string;
}

/** A single-use enrolment link (`/passkeys/enrol/<token>`), keyed by the token's SHA-256. */
export interface PasskeyLink {
  /** SHA-256 (hex) of the token: the store never holds a usable link in clear. */
  id: string;
  user: string;
  /** The token, sealed under SECRETS_KEY, only so the DM can be drawn (and redrawn after a crash) from the record. */
  token: Sealed;
  createdAt: string;
  /** Epoch ms. */
  expiresAt: number;
  /** The registration challenge last handed to the page (base64url). */
  challenge?: string;
  usedAt?: string;
}

/**
 * A confirmation of one approval (`/confirm/<token>`), keyed by the token's SHA-256. The challenge
 * is the SHA-256 of the facts it binds (binding.ts); the facts that are not the request's own
 * (nonce, expiry, policy version) are kept to recompute it from the request as it is when answered.
 */
export interface PasskeyChallenge {
  id: string;
  /** The withdrawal request's id, or the batch payout's (`kind: 'batch'`). */
  request: string;
  /** A batch payout's approval (src/batches): bound to its file and total (binding.ts batchBoundFacts). */
  kind?: 'batch';
  approver: string;
  nonce: string;
  /** Epoch ms. */
  expiresAt: number;
  policyVersion: string;
  /** base64url(SHA-256(canonical JSON of the bound facts)). */
  challenge: string;
  createdAt: string;
  /** Set in the commit that took the one answer it accepts (or refused): single use. */
  consumedAt?: string;
}

/** Something a person or the admins must be told, drawn by the outbox from this record. */
export interface PasskeyNotice {
  id: string;
  /**
   * link: the enrolment link, by DM; enrolled: the admins; revoked: the person, by DM; removed: the admins
   * and removed_dm: the person, by DM (a hijacked Slack account could remove the owner's key unseen otherwise).
   */
  kind: 'link' | 'enrolled' | 'revoked' | 'removed' | 'removed_dm';
  user: string;
  /** link: the link record's id. */
  link?: string;
  /** enrolled, removed, removed_dm: the credential's name. */
  name?: string;
  /** revoked: the admin. */
  by?: string;
  at: string;
}

export const CREDENTIALS = collection<PasskeyCredential>('passkey_credentials');
export const LINKS = collection<PasskeyLink>('passkey_links');
export const CHALLENGES = collection<PasskeyChallenge>('passkey_challenges');
export const PASSKEY_NOTICES = collection<PasskeyNotice>('passkey_notices');

export const LINK_TTL_MS = 15 * 60_000;
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Used or expired links and challenges are kept this long (for the audit trail's sake), then dropped. */
export const KEEP_SPENT_MS = 24 * 3_600_000;
export const MAX_CREDENTIALS = 10;
export const MAX_NAME = 40;
