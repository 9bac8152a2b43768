/**
 * Enrolment: a single-use link by DM (15 minutes), the page's registration (user verification
 * required, the app's own origin and RP ID), the credential kept in the store with its audit
 * entry and a notice to the admins (a hijacked Slack account could enrol a key of its own);
 * a person's own list and removal; an admin's revocation of someone else's, as the step-up reset.
 */
import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { open, seal } from '../stepup/seal.js';
import type { Tx } from '../store/index.js';
import { audit, iso, newToken, notice, relyingParty, tokenId, type PasskeyPartOptions } from './shared.js';
import {
  CREDENTIALS,
  KEEP_SPENT_MS,
  LINK_TTL_MS,
  LINKS,
  MAX_CREDENTIALS,
  type PasskeyCredential,
  type PasskeyLink,
} from './types.js';
import { ENROL_WORDS, type EnrolRefusal } from './words.js';

export type EnrolOutcome<T> = ({ ok: true } & T) | { ok: false; reason: EnrolRefusal; message: string };

export interface PasskeyEnrolment {
  /** A new link for `user`, its DM enqueued in the same commit. */
  sendLink(user: string): Promise<{ expiresAt: number }>;
  /** The link's URL, for its DM (drawn from the record, so a crash never loses it). */
  linkUrl(linkId: string): string | undefined;
  /** Who the link is for, while it can still be used. */
  linkOwner(token: string): EnrolOutcome<{ user: string; expiresAt: number }>;
  /** Registration options for the page (the challenge kept on the link). */
  options(
    token: string,
    displayName: string,
  ): Promise<EnrolOutcome<{ options: PublicKeyCredentialCreationOptionsJSON }>>;
  /** The page's answer: verified, then kept under `name` in the commit that spends the link. */
  register(token: string, response: RegistrationResponseJSON, name: string): Promise<EnrolOutcome<{ name: string }>>;
  list(user: string): PasskeyCredential[];
  remove(user: string, name: string): Promise<boolean>;
  /** An admin revokes every credential of `target` (never their own: another admin must). */
  revoke(
    by: string,
    target: string,
    isAdmin: boolean,
  ): Promise<{ ok: true; count: number } | { ok: false; reason: 'not_admin' | 'own_revoke' | 'none'; message: string }>;
}

const refuse = (reason: EnrolRefusal) => ({ ok: false as const, reason, message: ENROL_WORDS[reason] });

/** Spent or expired links older than a day go in the commit of a new one. */
function pruneLinks(tx: Tx, now: number): void {
  for (const l of tx.all(LINKS)) if (l.expiresAt + KEEP_SPENT_MS < now) tx.delete(LINKS, l.id);
}

/** A link's URL, opened from its sealed record (for its DM, drawn when it is sent). */
export function linkUrl(o: Pick<PasskeyPartOptions, 'store' | 'key' | 'base'>, linkId: string): string | undefined {
  const link = o.store.get(LINKS, linkId);
  if (!link) return undefined;
  // Should a log line ever carry this URL, the logger masks it by its shape (log.ts).
  return `${relyingParty(o.base()).base}/passkeys/enrol/${open(o.key, link.token, link.user)}`;
}

export function createPasskeyEnrolment(o: PasskeyPartOptions): PasskeyEnrolment {
  const { store } = o;

  function usable(token: string): EnrolOutcome<{ link: PasskeyLink }> {
    const link = store.get(LINKS, tokenId(token));
    if (!link) return refuse('unknown_link');
    if (link.usedAt) return refuse('used');
    if (o.now() >= link.expiresAt) return refuse('expired');
    return { ok: true, link };
  }

  return {
    async sendLink(user) {
      const now = o.now();
      const token = newToken();
      const link: PasskeyLink = {
        id: tokenId(token),
        user,
        token: seal(o.key, token, user),
        createdAt: iso(now),
        expiresAt: now + LINK_TTL_MS,
      };
      await store.commit((tx) => {
        pruneLinks(tx, now);
        tx.put(LINKS, link.id, link);
        audit(tx, now, user, 'passkey_link_sent', user, { expires: iso(link.expiresAt) });
        notice(o, tx, { kind: 'link', user, link: link.id, at: iso(now) });
      });
      return { expiresAt: link.expiresAt };
    },

    linkUrl: (linkId) => linkUrl(o, linkId),

    linkOwner(token) {
      const u = usable(token);
      return u.ok ? { ok: true, user: u.link.user, expiresAt: u.link.expiresAt } : u;
    },

    async options(token, displayName) {
      const u = usable(token);
      if (!u.ok) return u;
      const rp = relyingParty(o.base());
      const mine = store.find(CREDENTIALS, (c) => c.user === u.link.user);
      const options = await generateRegistrationOptions({
        rpName: 'Treasury',
        rpID: rp.id,
        userName: displayName,
        userDisplayName: displayName,
        userID: new TextEncoder().encode(u.link.user),
        attestationType: 'none',
        excludeCredentials: mine.map((c) => ({ id: c.id, ...(c.transports ? { transports: c.transports } : {}) })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
        timeout: 120_000,
      });
      await store.commit((tx) => {
        const cur = tx.get(LINKS, u.link.id);
        if (cur && !cur.usedAt) tx.put(LINKS, cur.id, { ...cur, challenge: options.challenge });
      });
      return { ok: true, options };
    },

    async register(token, response, rawName) {
      const u = usable(token);
      if (!u.ok) return u;
      const { link } = u;
      if (!link.challenge) return refuse('malformed');
      const rp = relyingParty(o.base());
      let info: Extract<Awaited<ReturnType<typeof verifyRegistrationResponse>>, { verified: true }>['registrationInfo'];
      try {
        const v = await verifyRegistrationResponse({
          response,
          expectedChallenge: link.challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
        });
        if (!v.verified) throw new Error('not verified');
        info = v.registrationInfo;
      } catch (err) {
        o.logger.info({ user: link.user, err: (err as Error).message }, 'passkey registration refused');
        await store.commit((tx) =>
          audit(tx, o.now(), link.user, 'passkey_enrol_refused', link.user, { why: 'not_verified' }),
        );
        return refuse('not_verified');
      }
      const now = o.now();
      return store.commit((tx): EnrolOutcome<{ name: string }> => {
        const cur = tx.get(LINKS, link.id);
        // Two answers raced for one link: only the first is kept.
        if (!cur || cur.usedAt) return refuse('used');
        const mine = tx.all(CREDENTIALS).filter((c) => c.user === link.user);
        const name = rawName || `Passkey ${mine.length + 1}`;
        if (mine.some((c) => c.name.toLowerCase() === name.toLowerCase())) return refuse('name_taken');
        if (mine.length >= MAX_CREDENTIALS) return refuse('too_many');
        // With attestation `none` the credential id is whatever the page claims: one already kept (anyone's,
        // this person's too) is never replaced, or a forged registration could take over another's key record.
        if (tx.get(CREDENTIALS, info.credential.id)) {
          audit(tx, now, link.user, 'passkey_enrol_refused', link.user, { why: 'credential_taken' });
          return refuse('credential_taken');
        }
        const cred: PasskeyCredential = {
          id: info.credential.id,
          user: link.user,
          name,
          publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
          counter: info.credential.counter,
          ...(info.credential.transports ? { transports: [...info.credential.transports] } : {}),
          createdAt: iso(now),
        };
        tx.put(LINKS, cur.id, { ...cur, usedAt: iso(now) });
        tx.put(CREDENTIALS, cred.id, cred);
        audit(tx, now, link.user, 'passkey_enrolled', link.user, { name });
        notice(o, tx, { kind: 'enrolled', user: link.user, name, at: iso(now) });
        return { ok: true, name };
      });
    },

    list: (user) => store.find(CREDENTIALS, (c) => c.user === user),

    remove(user, name) {
      return store.commit((tx) => {
        const cred = tx.all(CREDENTIALS).find((c) => c.user === user && c.name.toLowerCase() === name.toLowerCase());
        if (!cred) return false;
        const now = o.now();
        tx.delete(CREDENTIALS, cred.id);
        audit(tx, now, user, 'passkey_removed', user, { name: cred.name });
        // Told as an enrolment is: the admins, and the person by DM (it may not be them typing).
        notice(o, tx, { kind: 'removed', user, name: cred.name, at: iso(now) });
        notice(o, tx, { kind: 'removed_dm', user, name: cred.name, at: iso(now) });
        return true;
      });
    },

    async revoke(by, target, isAdmin) {
      if (!isAdmin) return { ok: false, reason: 'not_admin', message: 'Only admins can revoke someone’s passkeys.' };
      if (by === target)
        return {
          ok: false,
          reason: 'own_revoke',
          message:
            'You cannot revoke your own passkeys here: remove them one by one with /treasury passkey remove <name>, or ask another admin.',
        };
      const now = o.now();
      return store.commit((tx) => {
        const theirs = tx.all(CREDENTIALS).filter((c) => c.user === target);
        if (!theirs.length) return { ok: false as const, reason: 'none' as const, message: 'They have no passkeys.' };
        for (const c of theirs) tx.delete(CREDENTIALS, c.id);
        audit(tx, now, by, 'passkey_revoked', target, { names: theirs.map((c) => c.name) });
        notice(o, tx, { kind: 'revoked', user: target, by, at: iso(now) });
        return { ok: true as const, count: theirs.length };
      });
    },
  };
}
