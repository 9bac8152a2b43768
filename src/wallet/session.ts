/**
 * The merchant session behind the v2 endpoints: login on first need, refresh a little
 * before expiry or after a 401, re-login when the refresh fails. Every login or refresh is
 * single-flight: however many calls need a new token at once, one request goes out and
 * they all wait for it.
 *
 * With `refreshAhead` (the app turns it on), a timer refreshes the token in the background
 * before the check at use time would: REFRESH_AHEAD_MS (10 min) before expiry, or a fifth of
 * the lifetime for short-lived tokens. So a command rarely waits for a login or refresh; the
 * check at use time (and the 401 path) stay as the fallback when the background one failed.
 *
 * The background refresh never runs sooner than MIN_AHEAD_DELAY_MS after it is armed (half the
 * life of a token shorter than a minute, at least a second): a token
 * already expired by our clock (the service's clock behind ours, an expiry read wrong) would
 * otherwise be refreshed at once, forever. A refresh that gives a token expiring no later than
 * the one it replaced stops the background refresh (the check at use time remains). When the
 * background refresh and the login after it both fail, the token in hand is kept while it is
 * still valid, and the background refresh is tried again about a minute later.
 */
import type { Logger } from '../log.js';
import type { SecretRegistry } from '../secrets.js';
import { PATHS, PROACTIVE_REFRESH_MS, refreshRequest, type WalletAssumptions } from './assumptions.js';
import { OPERATION_LABELS, WalletAuthError, WalletError, type WalletOperation } from './errors.js';
import {
  deadlineExceeded,
  kybBlocked,
  kybStateOf,
  loginRefused,
  serverFailure,
  shapeError,
  transportFailure,
} from './failures.js';
import { isRetryableStatus, TransportError, type HttpResponse, type WalletHttp } from './http.js';
import { stringifyJson } from './json.js';
import { loginResponseSchema, type Session } from './schemas.js';

interface Tokens {
  token: string;
  refreshToken: string;
  expiresAt: number;
  obtainedAt: number;
  email: string;
  roles: string[];
  businessName?: string;
}

/** How long before expiry the background refresh runs (at most; a fifth of a short lifetime). */
export const REFRESH_AHEAD_MS = 10 * 60_000;
/** The shortest wait before a background refresh: never at once, never in a loop. */
export const MIN_AHEAD_DELAY_MS = 30_000;
/** After a failed background refresh, the next try (while the token in hand is still valid). */
export const AHEAD_RETRY_MS = 60_000;
/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface SessionDeps {
  http: WalletHttp;
  assumptions: WalletAssumptions;
  credentials: { email: string; password: string };
  secrets: SecretRegistry;
  logger: Logger;
  timeoutMs: number;
  readRetries: number;
  /** Refresh in the background ahead of expiry (see the header); default off. */
  refreshAhead?: boolean;
}

/** Wait for a shared promise, but give up at this caller's own deadline. */
export function untilDeadline<T>(p: Promise<T>, deadline: number, op: WalletOperation, timeoutMs: number): Promise<T> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(deadlineExceeded(op, timeoutMs));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(deadlineExceeded(op, timeoutMs)), remaining);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export class SessionManager {
  private current: Tokens | undefined;
  private inflight: Promise<Tokens> | undefined;
  private aheadTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly d: SessionDeps) {}

  /** Stops the background refresh (the app's shutdown); calls still work, refreshing at use time. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.aheadTimer);
    this.aheadTimer = undefined;
  }

  state(): { loggedIn: boolean; expiresAt?: number; email: string } {
    return this.current
      ? { loggedIn: true, expiresAt: this.current.expiresAt, email: this.current.email }
      : { loggedIn: false, email: this.d.credentials.email };
  }

  /** After a successful password reset of our own account, later logins use the new password. */
  setPassword(password: string): void {
    this.d.credentials.password = password;
  }

  /** A token good for the next request: logs in or refreshes first when needed. */
  async accessToken(deadline: number, op: WalletOperation): Promise<string> {
    if (this.inflight) return (await untilDeadline(this.inflight, deadline, op, this.d.timeoutMs)).token;
    if (!this.current) return (await untilDeadline(this.start('login'), deadline, op, this.d.timeoutMs)).token;
    if (this.dueForRefresh(this.current)) {
      return (await untilDeadline(this.start('refresh'), deadline, op, this.d.timeoutMs)).token;
    }
    return this.current.token;
  }

  /**
   * A request sent with `staleToken` got 401. If the session has moved on since (another
   * caller already refreshed), the new token is returned without another refresh.
   */
  async afterUnauthorized(staleToken: string, deadline: number, op: WalletOperation): Promise<string> {
    if (this.inflight) return (await untilDeadline(this.inflight, deadline, op, this.d.timeoutMs)).token;
    if (this.current && this.current.token !== staleToken) return this.current.token;
    return (await untilDeadline(this.start('refresh'), deadline, op, this.d.timeoutMs)).token;
  }

  async login(): Promise<Session> {
    return toSession(await (this.inflight ?? this.start('login')));
  }

  async refresh(): Promise<Session> {
    return toSession(await (this.inflight ?? this.start('refresh')));
  }

  private dueForRefresh(t: Tokens): boolean {
    const margin = Math.min(PROACTIVE_REFRESH_MS, (t.expiresAt - t.obtainedAt) / 10);
    return Date.now() >= t.expiresAt - margin;
  }

  /** `keepValid`: on failure, keep the token in hand if it is still valid (the background refresh). */
  private start(kind: 'login' | 'refresh', keepValid = false): Promise<Tokens> {
    if (this.inflight) return this.inflight;
    const run = async (): Promise<Tokens> => {
      const previous = this.current;
      if (kind === 'refresh' && previous) {
        try {
          return this.adopt(await this.refreshOnce(previous), previous);
        } catch (err) {
          this.d.logger.warn(
            { op: 'refresh', kind: err instanceof WalletError ? err.kind : 'error' },
            'wallet session refresh failed; logging in again',
          );
        }
      }
      try {
        return this.adopt(await this.loginOnce(), previous);
      } catch (err) {
        const stillValid = keepValid && previous !== undefined && previous.expiresAt > Date.now();
        if (!stillValid) this.current = undefined;
        throw err;
      }
    };
    const p = run().finally(() => {
      if (this.inflight === p) this.inflight = undefined;
    });
    this.inflight = p;
    // Callers may all have given up at their deadlines; the outcome must not become an unhandled rejection.
    p.catch(() => undefined);
    return p;
  }

  private adopt(t: Tokens, previous?: Tokens): Tokens {
    this.d.secrets.add(t.token, t.refreshToken);
    this.current = t;
    this.armRefreshAhead(t, previous);
    return t;
  }

  private armRefreshAhead(t: Tokens, previous?: Tokens): void {
    clearTimeout(this.aheadTimer);
    this.aheadTimer = undefined;
    if (!this.d.refreshAhead || this.stopped) return;
    if (previous && t.expiresAt <= previous.expiresAt) {
      // Refreshing again would not help (and could loop): the check at use time takes over.
      this.d.logger.warn(
        { op: 'refresh' },
        'the new wallet token does not expire later than the one it replaced; no more refreshing ahead of expiry',
      );
      return;
    }
    const lead = Math.min(REFRESH_AHEAD_MS, (t.expiresAt - t.obtainedAt) / 5);
    this.armAhead(t, t.expiresAt - lead - Date.now());
  }

  private armAhead(t: Tokens, ms: number): void {
    // The floor is MIN_AHEAD_DELAY_MS, or for a token that lives less than a minute (the sandbox
    // can issue those) half its life, but never under a second; for a token already expired
    // when it arrived, the full MIN_AHEAD_DELAY_MS.
    const life = t.expiresAt - t.obtainedAt;
    const floor = life > 0 ? Math.min(MIN_AHEAD_DELAY_MS, Math.max(1_000, life / 2)) : MIN_AHEAD_DELAY_MS;
    const delay = Math.min(MAX_TIMER_MS, Math.max(floor, ms));
    this.aheadTimer = setTimeout(() => this.refreshAhead(t), delay);
    // Never keeps the process alive on its own.
    this.aheadTimer.unref();
  }

  private refreshAhead(t: Tokens): void {
    this.aheadTimer = undefined;
    // Someone else already moved the session on (a 401, a forced login): nothing to do.
    if (this.stopped || this.current !== t || this.inflight) return;
    this.start('refresh', true).catch((err: unknown) => {
      const kept = this.current === t && !this.stopped;
      this.d.logger.warn(
        { op: 'refresh', kind: err instanceof WalletError ? err.kind : 'error' },
        kept
          ? 'refreshing the wallet session ahead of expiry failed; the current token is kept and the refresh tried again in a minute'
          : 'refreshing the wallet session ahead of expiry failed; the next call will log in',
      );
      // While the token in hand stays valid a little longer, try again in about a minute.
      if (kept && t.expiresAt - Date.now() > AHEAD_RETRY_MS && !this.aheadTimer) this.armAhead(t, AHEAD_RETRY_MS);
    });
  }

  private async loginOnce(): Promise<Tokens> {
    const { email, password } = this.d.credentials;
    const res = await this.exchange('login', {
      method: 'POST',
      path: PATHS.login,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: stringifyJson({ email, password }),
    });
    this.refusedForKyb('login', res);
    if (res.status >= 200 && res.status < 300) return this.readTokens('login', res);
    throw loginRefused(res);
  }

  private async refreshOnce(previous: Tokens): Promise<Tokens> {
    const method = this.d.assumptions.refreshMethod;
    const { params, body } = refreshRequest(method, { refreshToken: previous.refreshToken, token: previous.token });
    const res = await this.exchange('refresh', {
      method,
      path: PATHS.refresh,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      ...(params ? { params } : {}),
      ...(body ? { body: stringifyJson(body) } : {}),
    });
    this.refusedForKyb('refresh', res);
    if (res.status >= 200 && res.status < 300) return this.readTokens('refresh', res);
    throw loginRefused(res, 'refresh');
  }

  /** Login and refresh are safe to repeat: retried on network errors and 5xx within their own deadline. */
  private async exchange(op: 'login' | 'refresh', req: Parameters<WalletHttp['send']>[0]): Promise<HttpResponse> {
    try {
      const { response, attempts } = await this.d.http.sendWithRetries(
        req,
        Date.now() + this.d.timeoutMs,
        op,
        this.d.readRetries,
      );
      if (isRetryableStatus(response.status)) throw serverFailure(op, response, { attempts });
      return response;
    } catch (err) {
      if (err instanceof TransportError) throw transportFailure(op, err, { timeoutMs: this.d.timeoutMs });
      throw err;
    }
  }

  /**
   * A refusal naming a blocking KYB state, in whatever status it comes (400, 401, 403, or a 2xx
   * saying `isSuccessful: false`), is a KYB block, never "wrong password".
   */
  private refusedForKyb(op: 'login' | 'refresh', res: HttpResponse): void {
    const ok2xx = res.status >= 200 && res.status < 300;
    const failed = (res.body as { isSuccessful?: unknown } | undefined)?.isSuccessful;
    if (ok2xx && failed !== false) return;
    if (!ok2xx && res.status >= 500) return;
    const state = kybStateOf(res);
    if (state) throw kybBlocked(res, state, op);
    // A 2xx that says it failed holds no tokens to read: a refusal like a 400.
    if (ok2xx) throw loginRefused(res, op);
  }

  private readTokens(op: 'login' | 'refresh', res: HttpResponse): Tokens {
    const parsed = loginResponseSchema.safeParse(res.body);
    if (!parsed.success) {
      // The body may hold tokens we could not read; register anything token-like before it can be quoted.
      this.d.secrets.add(...tokenLike(res.body));
      throw shapeError(op, res, parsed.error);
    }
    const env = parsed.data;
    const data = env.data;
    this.d.secrets.add(data.token, data.refreshToken);
    if (env.isSuccessful === false) throw loginRefused(res, op);
    const roles = data.roles ?? env.roles ?? [];
    if (roles.length > 0 && !roles.some((r) => r.toLowerCase() === 'merchant')) {
      throw new WalletAuthError(
        `${OPERATION_LABELS[op]} failed: the account is not a merchant account (roles: ${roles.join(', ')}). Nothing was changed.`,
        { operation: op, status: res.status },
      );
    }
    return {
      token: data.token,
      refreshToken: data.refreshToken,
      expiresAt: data.expiresAtTimestamp,
      obtainedAt: Date.now(),
      email: data.email ?? this.d.credentials.email,
      roles,
      ...(data.businessName ? { businessName: data.businessName } : {}),
    };
  }
}

function toSession(t: Tokens): Session {
  return {
    email: t.email,
    expiresAt: t.expiresAt,
    roles: [...t.roles],
    ...(t.businessName ? { businessName: t.businessName } : {}),
  };
}

function tokenLike(body: unknown): string[] {
  const out: string[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 3 || !v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'string' && /token/i.test(k)) out.push(x);
      else visit(x, depth + 1);
    }
  };
  visit(body, 0);
  return out;
}
