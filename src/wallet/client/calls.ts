/**
 * How every wallet operation talks to the service: the guard (scrubbed messages, one log line
 * per failure), the idempotent exchange (retried within the deadline), the single attempt (for
 * calls that must not be repeated), the v2 session call (one shared refresh on 401), and the
 * input and refusal helpers the operations share.
 */
import { secrets as processSecrets, type SecretRegistry } from '../../secrets.js';
import {
  DEFAULT_ASSUMPTIONS,
  DEFAULT_READ_RETRIES,
  DEFAULT_TIMEOUT_MS,
  RETRY_BASE_MS,
  RETRY_MAX_DELAY_MS,
  type WalletAssumptions,
} from '../assumptions.js';
import { CURRENCIES, lookup, NETWORKS, type CurrencyMember, type EnumMember } from '../enums.js';
import { OPERATION_LABELS, WalletError, type WalletOperation } from '../errors.js';
import { apiKeyRefused, inputError, rejection, serverFailure, tokenRefused, transportFailure } from '../failures.js';
import { isRetryableStatus, TransportError, WalletHttp, type HttpRequest, type HttpResponse } from '../http.js';
import { SessionManager } from '../session.js';
import type { WalletClientOptions } from './types.js';

export const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' } as const;
export const is2xx = (s: number) => s >= 200 && s < 300;

/** What one client's operations share: its options, secrets, session and the ways to call. */
export interface WalletCalls {
  readonly options: WalletClientOptions;
  readonly registry: SecretRegistry;
  readonly assumptions: WalletAssumptions;
  readonly session: SessionManager;
  readonly apiKeyHeader: { Authorization: string };
  /** Every public call goes through here: scrubbed messages, one log line per failure. */
  guard<T>(op: WalletOperation, fn: () => Promise<T>): Promise<T>;
  /** An idempotent exchange: retried within the deadline; a final 5xx or network failure is thrown. */
  idempotent(op: WalletOperation, req: HttpRequest, deadline: number): Promise<HttpResponse>;
  /** A single attempt for calls that must not be repeated. */
  once(op: WalletOperation, req: HttpRequest, deadline: number, merchantReference?: string): Promise<HttpResponse>;
  /** A v2 call with the session token: on 401, one shared refresh (or re-login), then one resend. */
  withSession(
    op: WalletOperation,
    build: (authorization: string) => HttpRequest,
    deadline: number,
  ): Promise<HttpResponse>;
  /** The deadline of a call starting now. */
  deadlineFromNow(): number;
}

export function createWalletCalls(o: WalletClientOptions): WalletCalls {
  const registry = o.secrets ?? processSecrets;
  registry.add(o.apiKey, o.password);
  const assumptions: WalletAssumptions = {
    v2AuthScheme: o.v2AuthScheme ?? DEFAULT_ASSUMPTIONS.v2AuthScheme,
    refreshMethod: o.refreshMethod ?? DEFAULT_ASSUMPTIONS.refreshMethod,
    timestampUnit: o.timestampUnit ?? DEFAULT_ASSUMPTIONS.timestampUnit,
  };
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = o.readRetries ?? DEFAULT_READ_RETRIES;
  const logger = o.logger;
  const http = new WalletHttp({
    baseUrl: o.baseUrl,
    logger,
    retryBaseMs: o.retryBaseMs ?? RETRY_BASE_MS,
    retryMaxDelayMs: o.retryMaxDelayMs ?? RETRY_MAX_DELAY_MS,
    beforeWrite: o.beforeWrite,
  });
  const session = new SessionManager({
    http,
    assumptions,
    credentials: { email: o.email, password: o.password },
    secrets: registry,
    logger,
    timeoutMs,
    readRetries: retries,
    ...(o.refreshAhead ? { refreshAhead: true } : {}),
  });
  const apiKeyHeader = { Authorization: `ApiKey ${o.apiKey}` };

  async function guard<T>(op: WalletOperation, fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const done = (outcome: string) => o.onCall?.(op, outcome, (performance.now() - started) / 1000);
    try {
      const result = await fn();
      done('ok');
      return result;
    } catch (err) {
      done(err instanceof WalletError ? err.kind : 'internal_error');
      if (err instanceof WalletError) {
        err.message = registry.scrub(err.message);
        if ('serviceMessage' in err && typeof err.serviceMessage === 'string') {
          (err as { serviceMessage: string }).serviceMessage = registry.scrub(err.serviceMessage);
        }
        logger.warn({ op, kind: err.kind, status: err.status, code: err.code, msg: err.message }, 'wallet call failed');
        throw err;
      }
      // Not ours: a bug. Keep the type, lose anything that could quote a request.
      logger.error({ op, type: err instanceof Error ? err.name : typeof err }, 'wallet client internal error');
      throw new Error(`${OPERATION_LABELS[op]} failed with an internal error in the wallet client.`);
    }
  }

  async function idempotent(op: WalletOperation, req: HttpRequest, deadline: number): Promise<HttpResponse> {
    try {
      const { response, attempts } = await http.sendWithRetries(req, deadline, op, retries);
      if (isRetryableStatus(response.status)) throw serverFailure(op, response, { attempts });
      return response;
    } catch (err) {
      if (err instanceof TransportError) throw transportFailure(op, err, { timeoutMs });
      throw err;
    }
  }

  async function once(
    op: WalletOperation,
    req: HttpRequest,
    deadline: number,
    merchantReference?: string,
  ): Promise<HttpResponse> {
    const ref = merchantReference !== undefined ? { merchantReference } : {};
    let response: HttpResponse;
    try {
      response = await http.send(req, deadline, op);
    } catch (err) {
      if (err instanceof TransportError) throw transportFailure(op, err, { timeoutMs, ...ref });
      throw err;
    }
    if (response.status >= 500) throw serverFailure(op, response, { attempts: 1, ...ref });
    return response;
  }

  async function withSession(op: WalletOperation, build: (authorization: string) => HttpRequest, deadline: number) {
    const scheme = assumptions.v2AuthScheme;
    // WALLET_V2_AUTH_SCHEME=ApiKey: the merchant's secret key, as the public SDK sends it to the
    // analytics endpoints; no login, and a 401 is the key refused (logging in again cannot help).
    if (scheme.toLowerCase() === 'apikey') {
      const res = await idempotent(op, build(apiKeyHeader.Authorization), deadline);
      if (res.status === 401) throw apiKeyRefused(op, res);
      return res;
    }
    const token = await session.accessToken(deadline, op);
    const first = await idempotent(op, build(`${scheme} ${token}`), deadline);
    if (first.status !== 401) return first;
    const fresh = await session.afterUnauthorized(token, deadline, op);
    const second = await idempotent(op, build(`${scheme} ${fresh}`), deadline);
    if (second.status === 401) throw tokenRefused(op, second);
    return second;
  }
  return {
    options: o,
    registry,
    assumptions,
    session,
    apiKeyHeader,
    guard,
    idempotent,
    once,
    withSession,
    deadlineFromNow: () => Date.now() + timeoutMs,
  };
}

/** Outcome of a non-2xx answer that is not a 5xx (those were handled by the exchange). */
export function refusal(op: WalletOperation, res: HttpResponse, auth: 'apiKey' | 'none'): never {
  if (res.status === 401 && auth === 'apiKey') throw apiKeyRefused(op, res);
  throw rejection(op, res);
}

export function resolveCurrency(op: WalletOperation, v: unknown): CurrencyMember {
  const m = lookup(CURRENCIES, typeof v === 'object' && v !== null ? (v as EnumMember).code : v);
  if (!m)
    throw inputError(op, `unknown currency ${JSON.stringify(typeof v === 'object' ? (v as EnumMember)?.name : v)}`);
  return m;
}

export function resolveNetwork(op: WalletOperation, v: unknown): EnumMember {
  const m = lookup(NETWORKS, typeof v === 'object' && v !== null ? (v as EnumMember).code : v);
  if (!m)
    throw inputError(op, `unknown network ${JSON.stringify(typeof v === 'object' ? (v as EnumMember)?.name : v)}`);
  return m;
}
