/**
 * Confirming one approval with a passkey. Approve (above the policy's threshold) starts a
 * confirmation: a challenge bound to that withdrawal (binding.ts), single use, 5 minutes, kept
 * in the store so one replica can start it and another answer it. The answer is recorded as an
 * approval only after every check: the challenge it signed is this one and still unused and
 * live, the origin and RP ID are the app's, the credential is the approver's own, the request
 * and policy are still what was bound, and the assertion verifies (signature, user verification,
 * counter). The challenge is spent in the approval's own commit with the credential's counter and
 * the audit entry, so an answer counts at most once, on any replica, and never without its
 * approval. Every refusal tied to a challenge is audited.
 */
import { generateAuthenticationOptions, verifyAuthenticationResponse } from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { decodeClientDataJSON, isoBase64URL, parseAuthenticatorData } from '@simplewebauthn/server/helpers';
import { randomBytes } from 'node:crypto';
import type { Tx } from '../store/index.js';
import type { DecisionOutcome, WithdrawalRequest } from '../withdrawals/index.js';
import type { Batch } from '../batches/types.js';
import { batchBoundFacts, bindingChallenge, boundFacts, policyVersion } from './binding.js';
import { audit, iso, newToken, relyingParty, tokenId, type PasskeyPartOptions } from './shared.js';
import {
  CHALLENGE_TTL_MS,
  CHALLENGES,
  CREDENTIALS,
  KEEP_SPENT_MS,
  type PasskeyChallenge,
  type PasskeyCredential,
} from './types.js';
import { CONFIRM_WORDS, type ConfirmRefusal } from './words.js';

/** What confirming needs of the withdrawals: the same path as any approval. */
export interface ApprovalPath {
  get(id: string): WithdrawalRequest | undefined;
  checkDecision(id: string, userId: string, kind: 'approve'): Promise<DecisionOutcome | undefined>;
  /** `inCommit` runs in the approval's own commit, before its decision; a message from it refuses. */
  approve(
    id: string,
    userId: string,
    facts: { stepUp: 'passkey'; inCommit: (tx: Tx) => string | undefined },
  ): Promise<DecisionOutcome>;
}

/** What confirming needs of batch payouts: the same path as any approval of a batch, bound to its file. */
export interface BatchApprovalPath {
  get(id: string): Batch | undefined;
  /** `inCommit` as above; `stepUpFor`: the file the passkey's challenge bound. */
  approve(
    id: string,
    userId: string,
    facts: { stepUpFor: string; proof: 'passkey'; inCommit: (tx: Tx) => string | undefined },
  ): Promise<{ ok: true } | { ok: false; message: string }>;
}

export type ConfirmOutcome =
  | { ok: true; request?: WithdrawalRequest; outcome: { ok: boolean; message?: string } }
  | { ok: false; reason: ConfirmRefusal; message: string };

export interface PasskeyConfirmation {
  /** Whether `user` holds a passkey at all. */
  hasPasskey(user: string): boolean;
  /** When `user`'s first passkey can confirm approvals (epoch ms; at or before now: it can), or undefined with none. */
  usableFrom(user: string): number | undefined;
  /** A new confirmation of `approver`'s approval of `requestId`: the page's URL. */
  start(requestId: string, approver: string): Promise<{ url: string; expiresAt: number }>;
  /** A new confirmation of `approver`'s approval of the batch payout `batchId`, bound to its file and total. */
  startBatch(batchId: string, approver: string): Promise<{ url: string; expiresAt: number }>;
  /** The confirmation and its request (or batch), for the page, while it can still be answered. */
  view(
    token: string,
  ):
    | { ok: true; challenge: PasskeyChallenge; request: WithdrawalRequest; batch?: undefined }
    | { ok: true; challenge: PasskeyChallenge; batch: Batch; request?: undefined }
    | { ok: false; reason: ConfirmRefusal; message: string };
  /** The WebAuthn request options: the bound challenge, the approver's credentials, user verification required. */
  options(
    token: string,
  ): Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | { ok: false; message: string }>;
  /** The page's answer. */
  confirm(token: string, response: AuthenticationResponseJSON): Promise<ConfirmOutcome>;
}

/** The library's verdict on an assertion: its new counter, or why not (a counter that went backwards, another RP ID, a bad signature). */
async function verified(
  run: () => ReturnType<typeof verifyAuthenticationResponse>,
): Promise<{ ok: true; newCounter: number } | { ok: false; why: ConfirmRefusal }> {
  try {
    const v = await run();
    return v.verified ? { ok: true, newCounter: v.authenticationInfo.newCounter } : { ok: false, why: 'bad_signature' };
  } catch (err) {
    const message = (err as Error).message;
    if (/counter/i.test(message)) return { ok: false, why: 'counter' };
    if (/RP ID/i.test(message)) return { ok: false, why: 'wrong_origin' };
    return { ok: false, why: 'bad_signature' };
  }
}

export function createPasskeyConfirmation(
  o: PasskeyPartOptions & { withdrawals: ApprovalPath; batches?: BatchApprovalPath | undefined },
): PasskeyConfirmation {
  const { store } = o;
  const refusal = (reason: ConfirmRefusal) => ({ ok: false as const, reason, message: CONFIRM_WORDS[reason] });

  /** Spends the challenge (when still live) and records the refusal: only ever for a challenge that exists. */
  async function refuse(c: PasskeyChallenge, reason: ConfirmRefusal, more: Record<string, unknown> = {}) {
    const now = o.now();
    await store.commit((tx) => {
      const cur = tx.get(CHALLENGES, c.id);
      if (cur && !cur.consumedAt) tx.put(CHALLENGES, cur.id, { ...cur, consumedAt: iso(now) });
      audit(tx, now, c.approver, 'passkey_refused', c.request, { why: reason, ...more });
    });
    o.logger.info({ request: c.request, user: c.approver, reason }, 'passkey confirmation refused');
    return refusal(reason);
  }

  const live = (token: string) => {
    const c = store.get(CHALLENGES, tokenId(token));
    if (!c) return refusal('unknown_link');
    if (c.consumedAt) return refusal('replayed');
    if (o.now() >= c.expiresAt) return refusal('expired');
    return { ok: true as const, c };
  };

  /** A passkey confirms approvals only once the policy's waiting time since its enrolment is over. */
  const usableAt = (c: PasskeyCredential) => Date.parse(c.createdAt) + o.policy.current().withdrawals.passkey_cooloff;
  const usableNow = (c: PasskeyCredential) => usableAt(c) <= o.now();

  /** A new challenge for `subject`, bound by `bind` to what it is, single use, kept in the store. */
  async function begin(
    subject: string,
    approver: string,
    kind: 'batch' | undefined,
    bind: (f: { approver: string; policyVersion: string; nonce: string; expiresAt: number }) => string,
  ): Promise<{ url: string; expiresAt: number }> {
    const now = o.now();
    const token = newToken();
    const expiresAt = now + CHALLENGE_TTL_MS;
    const version = policyVersion(o.policy.current());
    const nonce = randomBytes(16).toString('base64url');
    const c: PasskeyChallenge = {
      id: tokenId(token),
      request: subject,
      ...(kind ? { kind } : {}),
      approver,
      nonce,
      expiresAt,
      policyVersion: version,
      challenge: bind({ approver, policyVersion: version, nonce, expiresAt }),
      createdAt: iso(now),
    };
    await store.commit((tx) => {
      for (const old of tx.all(CHALLENGES)) if (old.expiresAt + KEEP_SPENT_MS < now) tx.delete(CHALLENGES, old.id);
      tx.put(CHALLENGES, c.id, c);
      audit(tx, now, approver, 'passkey_confirm_started', subject, {
        expires: iso(expiresAt),
        ...(kind ? { batch: true } : {}),
      });
    });
    return { url: `${relyingParty(o.base()).base}/confirm/${token}`, expiresAt };
  }

  /** The challenge recomputed from its subject as it is now (another amount, file or policy: another challenge). */
  function rebound(c: PasskeyChallenge): string | undefined {
    const f = {
      approver: c.approver,
      policyVersion: policyVersion(o.policy.current()),
      nonce: c.nonce,
      expiresAt: c.expiresAt,
    };
    if (c.kind === 'batch') {
      const b = o.batches?.get(c.request);
      return b ? bindingChallenge(batchBoundFacts(b, f)) : undefined;
    }
    const r = o.withdrawals.get(c.request);
    return r ? bindingChallenge(boundFacts(r, f)) : undefined;
  }

  return {
    hasPasskey: (user) => store.find(CREDENTIALS, (c) => c.user === user).length > 0,

    usableFrom(user) {
      const times = store.find(CREDENTIALS, (c) => c.user === user).map(usableAt);
      return times.length ? Math.min(...times) : undefined;
    },

    start(requestId, approver) {
      const r = o.withdrawals.get(requestId);
      if (!r) throw new Error(`no withdrawal request ${requestId}`);
      return begin(r.id, approver, undefined, (f) => bindingChallenge(boundFacts(r, f)));
    },

    startBatch(batchId, approver) {
      const b = o.batches?.get(batchId);
      if (!b) throw new Error(`no batch payout ${batchId}`);
      return begin(b.id, approver, 'batch', (f) => bindingChallenge(batchBoundFacts(b, f)));
    },

    view(token) {
      const l = live(token);
      if (!l.ok) return l;
      if (l.c.kind === 'batch') {
        const batch = o.batches?.get(l.c.request);
        return batch ? { ok: true, challenge: l.c, batch } : refusal('unknown_link');
      }
      const request = o.withdrawals.get(l.c.request);
      return request ? { ok: true, challenge: l.c, request } : refusal('unknown_link');
    },

    async options(token) {
      const l = live(token);
      if (!l.ok) return l;
      const mine = store.find(CREDENTIALS, (c) => c.user === l.c.approver && usableNow(c));
      const options = await generateAuthenticationOptions({
        rpID: relyingParty(o.base()).id,
        allowCredentials: mine.map((c) => ({ id: c.id, ...(c.transports ? { transports: c.transports } : {}) })),
        userVerification: 'required',
        // The bound challenge's bytes: the browser sends it back base64url-encoded, exactly `challenge`.
        challenge: isoBase64URL.toBuffer(l.c.challenge),
        timeout: 120_000,
      });
      return { ok: true, options };
    },

    async confirm(token, response) {
      const c = store.get(CHALLENGES, tokenId(token));
      // No such challenge: anyone can post here, so nothing is written (no audit entry, no commit),
      // or a stranger could grow the audit log and load the one writer at will. Logged, without the token.
      if (!c) {
        o.logger.info({ reason: 'unknown_link' }, 'passkey confirmation refused');
        return refusal('unknown_link');
      }
      if (c.consumedAt) return refuse(c, 'replayed');
      if (o.now() >= c.expiresAt) return refuse(c, 'expired');
      let client: { challenge: string; origin: string; type: string };
      let flags: { uv?: boolean };
      try {
        client = decodeClientDataJSON(response.response.clientDataJSON);
        flags = parseAuthenticatorData(isoBase64URL.toBuffer(response.response.authenticatorData)).flags;
      } catch {
        return refuse(c, 'malformed');
      }
      const cred = store.get(CREDENTIALS, response.id);
      if (!cred) return refuse(c, 'unknown_credential');
      const rp = relyingParty(o.base());
      const key = { id: cred.id, publicKey: isoBase64URL.toBuffer(cred.publicKey), counter: cred.counter };
      // First: is this answer really signed by that key, for this RP ID? Only a signed answer is classified
      // below, so an audit entry never blames a key for what someone merely typed. The counter is left to
      // the strict check: an answer already used elsewhere is then named for what it is (another request).
      const signed = await verified(() =>
        verifyAuthenticationResponse({
          response,
          expectedChallenge: () => true,
          expectedOrigin: client.origin,
          expectedRPID: rp.id,
          credential: { ...key, counter: 0 },
          requireUserVerification: false,
        }),
      );
      if (!signed.ok) return refuse(c, signed.why);
      if (cred.user !== c.approver) return refuse(c, 'other_user', { credentialOf: cred.user });
      if (!usableNow(cred)) return refuse(c, 'too_new', { passkey: cred.name });
      if (client.challenge !== c.challenge) return refuse(c, 'other_request');
      // Echoed only into the audit entry (bounded): a relaying page's address is evidence.
      if (client.origin !== rp.origin)
        return refuse(c, 'wrong_origin', { origin: String(client.origin).slice(0, 200) });
      const now = rebound(c);
      if (now === undefined || now !== c.challenge) return refuse(c, 'changed');
      if (!flags.uv) return refuse(c, 'no_user_verification');
      // Then the library once more with every expectation exact: the challenge, the origin, the RP ID, user verification.
      const strict = await verified(() =>
        verifyAuthenticationResponse({
          response,
          expectedChallenge: c.challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          credential: key,
          requireUserVerification: true,
        }),
      );
      if (!strict.ok) return refuse(c, strict.why);
      const newCounter = strict.newCounter;
      const at = o.now();
      let spent: ConfirmRefusal | undefined;
      // Spent in the approval's own commit: a crash can never leave `passkey_confirmed` without its approval.
      const inCommit = (tx: Tx): string | undefined => {
        const cur = tx.get(CHALLENGES, c.id);
        const k = tx.get(CREDENTIALS, cred.id);
        // Two answers raced (two tabs, two replicas' requests): only the commit that finds it unspent counts.
        if (!cur || cur.consumedAt) spent = 'replayed';
        else if (!k) spent = 'unknown_credential';
        else if ((k.counter > 0 || newCounter > 0) && newCounter <= k.counter) spent = 'counter';
        if (spent || !cur || !k) return CONFIRM_WORDS[spent ?? 'replayed'];
        tx.put(CHALLENGES, cur.id, { ...cur, consumedAt: iso(at) });
        tx.put(CREDENTIALS, k.id, { ...k, counter: newCounter, lastUsedAt: iso(at) });
        audit(tx, at, c.approver, 'passkey_confirmed', c.request, { passkey: k.name });
        return undefined;
      };
      // The approval itself: the same path as any approval, which judges every rule again. A batch's is
      // bound to the file its challenge bound (unchanged: checked just above).
      const batch = c.kind === 'batch' ? o.batches?.get(c.request) : undefined;
      // A batch's challenge whose batch is gone (or batch payouts off) approves nothing: never a withdrawal of that id.
      if (c.kind === 'batch' && !batch) return refuse(c, 'changed');
      const outcome = batch
        ? await o.batches!.approve(c.request, c.approver, { stepUpFor: batch.sha256, proof: 'passkey', inCommit })
        : await o.withdrawals.approve(c.request, c.approver, { stepUp: 'passkey', inCommit });
      if (spent) return refuse(c, spent);
      const request = batch ? undefined : o.withdrawals.get(c.request);
      return { ok: true, ...(request ? { request } : {}), outcome };
    },
  };
}
