/**
 * When the database cannot be reached: which failures are worth another try, and how long to
 * wait before it. Pure, so the policy is tested without a database (test/store/pg/retry.test.ts).
 */

/** The longest wait between two tries. Under the 5 s so that a replica notices the
 * database's return within 2 s and still leads within 5 s of it (start included). */
export const RETRY_CAP_MS = 2_000;
const RETRY_BASE_MS = 100;

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random, so replicas
 * that lost the database together do not all knock at the same instant when it returns, and
 * no wait is ever longer than RETRY_CAP_MS. `attempt` counts from 0.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.min(attempt, 20));
  return Math.round(step / 2 + (step / 2) * random());
}

// SQLSTATE classes and codes that say "the server is not there right now" rather than "you
// asked wrongly": connection exceptions, a shutdown or restart, no free connection slot.
// 57P05 and 25P03 (an idle session, or one idle in a transaction, ended by the server's timeout) are
// the session's, not the request's: a new connection clears them.
const TRANSIENT_SQLSTATE = /^(08|53)|^57P0[1-5]$|^25P03$/;
// What node and pg say when the socket is refused, reset, missing (a stopped server's unix
// socket), or cut before an answer.
const TRANSIENT_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOENT',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const TRANSIENT_MESSAGE = /connection terminated|connection timeout|timeout expired|server closed the connection/i;

/**
 * True for a failure to reach or keep the database, which the next try may not meet; false for
 * one that would fail again the same way (a wrong password, no such database, a schema from a
 * newer version): those stop the start with their message.
 */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (TRANSIENT_ERRNO.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return TRANSIENT_SQLSTATE.test(code);
  }
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.some(isTransient)) return true;
  return TRANSIENT_MESSAGE.test(err.message);
}

/** Waits `ms`, or less if the signal aborts (then resolves early: the caller checks the signal). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
