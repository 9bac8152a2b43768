/**
 * The step-up shell: enrolment (a new secret, sealed; active once a first valid code is typed),
 * checking a code before an approval, the lockout, and an admin's reset. Every decision is one
 * store commit with its audit entry and, when someone must be told, its notice (`notify`
 * enqueues it in the outbox within that commit). Secrets are opened only inside the commit
 * that needs them and never logged: they are registered with the scrubbing registry as a backstop.
 */
import { randomUUID } from 'node:crypto';
import type { AuditAction } from '../audit/actions.js';
import { appendAudit } from '../audit/log.js';
import type { Logger } from '../log.js';
import { secrets } from '../secrets.js';
import type { Store, Tx } from '../store/index.js';
import { checkCode, isLocked } from './decide.js';
import { open, seal, SealError } from './seal.js';
import { groupedSecret, matchedStep, newTotpSecret, otpauthUri } from './totp.js';
import { ENROLMENTS, NOTICES, type Enrolment, type StepUpNotice } from './types.js';
import { lockedWords, wrongCodeWords } from './words.js';

export interface StepUpServiceOptions {
  store: Store;
  key: Buffer;
  /** The key before a rotation (SECRETS_KEY_PREVIOUS): still opens secrets until `rekey` re-sealed them. */
  previousKey?: Buffer;
  now: () => number;
  logger: Logger;
  /** Called inside the commit that records a lockout or a reset: whatever it enqueues is durable with it. */
  notify?: (tx: Tx, notice: StepUpNotice) => void;
  /**
   * Called inside the commit that lets go of an enrolment's QR image (confirmed, abandoned,
   * replaced, reset, or no longer wanted): the image holds the secret, so its deletion is
   * enqueued with the change, durable and retried (the outbox), never left to one attempt.
   */
  discardQr?: (tx: Tx, fileId: string) => void;
}

export type StepUpRefusal =
  | 'not_enrolled'
  | 'already_enrolled'
  | 'wrong'
  | 'replayed'
  | 'locked'
  | 'key_mismatch'
  | 'not_admin'
  | 'own_reset';

export type StepUpOutcome = { ok: true } | { ok: false; reason: StepUpRefusal; message: string };

/**
 * An admin's reset: refused with words, or because `target` has none to reset (the command says
 * so, naming them as Slack does: the domain writes no mention).
 */
export type StepUpResetOutcome =
  | { ok: true }
  | { ok: false; reason: 'not_admin' | 'own_reset'; message: string }
  | { ok: false; reason: 'not_enrolled'; target: string };

export interface StepUpStatus {
  state: 'none' | 'pending' | 'active';
  lockedUntil?: number;
}

export interface StepUpService {
  status(user: string): StepUpStatus;
  /** A new pending enrolment (replacing an unconfirmed one): the secret and URI to show to that person only. */
  begin(
    user: string,
  ): Promise<
    { ok: true; secret: string; uri: string; attempt: string } | { ok: false; reason: StepUpRefusal; message: string }
  >;
  /**
   * Remembers the QR image of set-up `attempt` (from begin); false, and the image discarded,
   * when that set-up is no longer the pending one (confirmed, closed, or started again).
   */
  attachQr(user: string, attempt: string, fileId: string): Promise<boolean>;
  /** The first valid code makes the enrolment active (its QR image discarded). */
  confirm(user: string, code: string): Promise<StepUpOutcome>;
  /** The enrolment modal was closed unconfirmed: the pending enrolment and its QR image are dropped. */
  abandon(user: string): Promise<void>;
  /** A code for approving `requestId`: verified once per time step, counted towards the lockout otherwise. */
  verify(user: string, code: string, requestId: string): Promise<StepUpOutcome>;
  /** An admin resets `target`'s enrolment (never their own: another admin must). */
  reset(by: string, target: string, isAdmin: boolean): Promise<StepUpResetOutcome>;
  /** Active or pending enrolments whose secret neither key can open (a changed SECRETS_KEY). */
  unreadable(): string[];
  /** Re-seals under the current key every secret only the previous key opens; returns how many. */
  rekey(): Promise<number>;
}

const KEY_WORDS =
  'Your authenticator codes cannot be checked: the app’s encryption key has changed since you set them up. Ask an admin to reset your authenticator codes, then set them up again from the app’s Home tab.';
const NOT_ENROLLED_WORDS =
  'You have not set up authenticator codes yet: open the Treasury app’s Home tab and press “Set up authenticator codes”.';

export function createStepUpService(o: StepUpServiceOptions): StepUpService {
  const { store, key, logger } = o;
  const iso = (ms: number) => new Date(ms).toISOString();
  const audit = (tx: Tx, at: number, actor: string, action: AuditAction, subject: string, details = {}) =>
    appendAudit(tx, { at, actor, action, subject, details });

  function openSecret(e: Enrolment): string {
    let s: string;
    try {
      s = open(key, e.secret, e.user);
    } catch (err) {
      if (!(err instanceof SealError) || !o.previousKey) throw err;
      s = open(o.previousKey, e.secret, e.user);
    }
    secrets.add(s, groupedSecret(s));
    return s;
  }

  const discard = (tx: Tx, fileId: string | undefined) => {
    if (fileId) o.discardQr?.(tx, fileId);
  };

  function notice(tx: Tx, n: Omit<StepUpNotice, 'id'>): void {
    const full: StepUpNotice = { id: randomUUID(), ...n };
    tx.put(NOTICES, full.id, full);
    o.notify?.(tx, full);
  }

  return {
    status(user) {
      const e = store.get(ENROLMENTS, user);
      if (!e) return { state: 'none' };
      return { state: e.status, ...(isLocked(e, o.now()) ? { lockedUntil: e.lockedUntil! } : {}) };
    },

    async begin(user) {
      const now = o.now();
      const secret = newTotpSecret();
      const attempt = randomUUID();
      // Backstop: should any log line ever carry the modal (the key is shown grouped there), it is scrubbed.
      secrets.add(secret, groupedSecret(secret));
      const result = await store.commit((tx) => {
        const cur = tx.get(ENROLMENTS, user);
        if (cur?.status === 'active')
          return {
            ok: false as const,
            reason: 'already_enrolled' as const,
            message:
              'Your authenticator codes are already set up. To move them to a new phone, ask an admin to reset them, then set them up again here.',
          };
        const next: Enrolment = {
          user,
          status: 'pending',
          secret: seal(key, secret, user),
          startedAt: iso(now),
          attempt,
          failures: 0,
        };
        tx.put(ENROLMENTS, user, next);
        // A set-up started again: the unconfirmed one's image goes.
        discard(tx, cur?.qrFileId);
        audit(tx, now, user, 'stepup_enrol_start', user);
        return { ok: true as const };
      });
      if (!result.ok) return result;
      return { ok: true, secret, uri: otpauthUri(secret, user), attempt };
    },

    attachQr(user, attempt, fileId) {
      return store.commit((tx) => {
        const cur = tx.get(ENROLMENTS, user);
        if (cur?.status !== 'pending' || cur.attempt !== attempt) {
          discard(tx, fileId);
          return false;
        }
        // Never let go of an image without its deletion (an upload retried for the same set-up).
        if (cur.qrFileId !== fileId) discard(tx, cur.qrFileId);
        tx.put(ENROLMENTS, user, { ...cur, qrFileId: fileId });
        return true;
      });
    },

    async confirm(user, code) {
      const now = o.now();
      return store.commit((tx): StepUpOutcome => {
        const cur = tx.get(ENROLMENTS, user);
        if (cur?.status !== 'pending')
          return cur?.status === 'active'
            ? { ok: true }
            : {
                ok: false,
                reason: 'not_enrolled',
                message: 'This set-up is no longer open. Press “Set up authenticator codes” on the Home tab again.',
              };
        let secret: string;
        try {
          secret = openSecret(cur);
        } catch (err) {
          if (!(err instanceof SealError)) throw err;
          return { ok: false, reason: 'key_mismatch', message: KEY_WORDS };
        }
        const step = matchedStep(secret, code, now);
        if (step === null) {
          // Confirming only proves the app was set up right: a wrong code here is not counted towards the lockout.
          audit(tx, now, user, 'stepup_wrong_code', user, { purpose: 'enrolment' });
          return {
            ok: false,
            reason: 'wrong',
            message: 'That code is not valid. Type the current code from your authenticator app.',
          };
        }
        const { qrFileId, ...rest } = cur;
        tx.put(ENROLMENTS, user, { ...rest, status: 'active', confirmedAt: iso(now), lastStep: step, failures: 0 });
        discard(tx, qrFileId);
        audit(tx, now, user, 'stepup_enrolled', user);
        notice(tx, { kind: 'enrolled', user, at: iso(now) });
        return { ok: true };
      });
    },

    abandon(user) {
      return store.commit((tx) => {
        const cur = tx.get(ENROLMENTS, user);
        if (cur?.status !== 'pending') return;
        tx.delete(ENROLMENTS, user);
        discard(tx, cur.qrFileId);
        audit(tx, o.now(), user, 'stepup_enrol_abandoned', user);
      });
    },

    async verify(user, code, requestId) {
      const now = o.now();
      const outcome = await store.commit((tx): StepUpOutcome => {
        const cur = tx.get(ENROLMENTS, user);
        if (cur?.status !== 'active') return { ok: false, reason: 'not_enrolled', message: NOT_ENROLLED_WORDS };
        let secret: string;
        try {
          secret = openSecret(cur);
        } catch (err) {
          if (!(err instanceof SealError)) throw err;
          audit(tx, now, user, 'stepup_unreadable', user, { request: requestId });
          return { ok: false, reason: 'key_mismatch', message: KEY_WORDS };
        }
        const check = checkCode(cur, secret, code, now);
        switch (check.kind) {
          case 'locked':
            audit(tx, now, user, 'stepup_refused_locked', user, { request: requestId, until: iso(check.until) });
            return { ok: false, reason: 'locked', message: lockedWords(check.until, now) };
          case 'verified':
            tx.put(ENROLMENTS, user, check.next);
            audit(tx, now, user, 'stepup_verified', user, { request: requestId });
            return { ok: true };
          case 'wrong':
            tx.put(ENROLMENTS, user, check.next);
            audit(tx, now, user, 'stepup_wrong_code', user, {
              request: requestId,
              why: check.why,
              inARow: check.failures,
            });
            return {
              ok: false,
              reason: check.why,
              message: wrongCodeWords(check.why, check.failures),
            };
          case 'locked-now':
            tx.put(ENROLMENTS, user, check.next);
            audit(tx, now, user, 'stepup_wrong_code', user, { request: requestId, why: check.why, inARow: 5 });
            audit(tx, now, 'system', 'stepup_locked', user, { until: iso(check.until), request: requestId });
            notice(tx, { kind: 'locked', user, until: check.until, at: iso(now) });
            return { ok: false, reason: 'locked', message: lockedWords(check.until, now) };
          default: {
            const unhandled: never = check;
            throw new Error(`unhandled code check ${JSON.stringify(unhandled)}`);
          }
        }
      });
      if (!outcome.ok) logger.info({ user, reason: outcome.reason }, 'step-up code refused');
      return outcome;
    },

    async reset(by, target, isAdmin) {
      const now = o.now();
      if (!isAdmin)
        return { ok: false, reason: 'not_admin', message: 'Only admins can reset someone’s authenticator codes.' };
      if (by === target)
        return {
          ok: false,
          reason: 'own_reset',
          message:
            'You cannot reset your own authenticator codes: another admin must, so that a stolen Slack account cannot replace them.',
        };
      return store.commit((tx): StepUpResetOutcome => {
        const cur = tx.get(ENROLMENTS, target);
        if (!cur) return { ok: false, reason: 'not_enrolled', target };
        tx.delete(ENROLMENTS, target);
        audit(tx, now, by, 'stepup_reset', target, { was: cur.status });
        discard(tx, cur.qrFileId);
        notice(tx, { kind: 'reset', user: target, by, at: iso(now) });
        return { ok: true };
      });
    },

    async rekey() {
      const previous = o.previousKey;
      if (!previous) return 0;
      return store.commit((tx) => {
        let n = 0;
        for (const e of tx.all(ENROLMENTS)) {
          try {
            open(key, e.secret, e.user);
            continue;
          } catch {
            // not under the current key: maybe under the previous one
          }
          try {
            const plain = open(previous, e.secret, e.user);
            tx.put(ENROLMENTS, e.user, { ...e, secret: seal(key, plain, e.user) });
            n++;
          } catch {
            // neither key opens it: reported by unreadable()
          }
        }
        if (n) audit(tx, o.now(), 'system', 'stepup_rekeyed', 'SECRETS_KEY', { people: n });
        return n;
      });
    },

    unreadable() {
      return store.all(ENROLMENTS).flatMap((e) => {
        try {
          openSecret(e);
          return [];
        } catch {
          return [e.user];
        }
      });
    },
  };
}
