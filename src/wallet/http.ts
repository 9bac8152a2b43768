/**
 * The one place that speaks HTTP to the wallet service: axios with raw text in and out
 * (bodies are parsed losslessly by us, never by axios), a total deadline per call, and
 * retries with exponential backoff and full jitter for the calls that are safe to repeat.
 *
 * Nothing here throws an axios error: failures become TransportError, which carries only
 * a code and the phase, never the request config (it holds the Authorization header).
 */
import http from 'node:http';
import https from 'node:https';
import axios, { type AxiosInstance } from 'axios';
import type { Logger } from '../log.js';
import { camelKeys, parseJson } from './json.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT';

export interface HttpRequest {
  method: HttpMethod;
  path: string;
  params?: Record<string, string | number>;
  /** Already serialized: axios must not re-serialize (it would lose exact amounts). */
  body?: string;
  headers: Record<string, string>;
  /**
   * Use a connection of its own. A reused keep-alive socket that the server has just
   * closed fails as "connection reset" before the request reaches the server, which for a
   * withdrawal would be indistinguishable from a reset after processing.
   */
  freshConnection?: boolean;
}

export interface HttpResponse {
  status: number;
  text: string;
  /** Parsed body (numbers as LosslessNumber); undefined when empty or not JSON. */
  body: unknown;
  /** True when the body was not empty and did not parse as JSON. */
  unparseable: boolean;
}

/** Codes that mean the request never reached the server. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'ERR_INVALID_URL',
]);

export class TransportError extends Error {
  readonly code: string;
  /** 'not_sent': certainly never reached the server. 'maybe_sent': it may have been processed. */
  readonly phase: 'not_sent' | 'maybe_sent';
  readonly timedOut: boolean;
  attempts = 1;
  constructor(code: string, timedOut: boolean) {
    super(timedOut ? 'deadline exceeded' : `network error ${code}`);
    this.name = 'TransportError';
    this.code = code;
    this.timedOut = timedOut;
    this.phase = !timedOut && NOT_SENT_CODES.has(code) ? 'not_sent' : 'maybe_sent';
  }
}

export interface HttpOptions {
  baseUrl: string;
  logger: Logger;
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** Source of jitter in [0, 1). */
  random?: () => number;
  /**
   * Called right before each POST or PUT goes out; what it throws stops the call unsent. With
   * PostgreSQL, a replica whose lead is not freshly confirmed must not move money (leader.ts).
   */
  beforeWrite?: () => void;
}

export interface RetryOutcome {
  response: HttpResponse;
  attempts: number;
}

/** Statuses after which repeating an idempotent request may succeed. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class WalletHttp {
  private readonly axios: AxiosInstance;
  private readonly freshAgents = {
    httpAgent: new http.Agent({ keepAlive: false }),
    httpsAgent: new https.Agent({ keepAlive: false }),
  };
  private readonly random: () => number;

  constructor(private readonly o: HttpOptions) {
    this.random = o.random ?? Math.random;
    this.axios = axios.create({
      baseURL: o.baseUrl.replace(/\/+$/, ''),
      responseType: 'text',
      transformResponse: [(x: unknown) => x],
      transformRequest: [(x: unknown) => x],
      validateStatus: () => true,
      // A redirected POST may be replayed as a GET, or to a host we did not choose.
      maxRedirects: 0,
      maxContentLength: 20 * 1024 * 1024,
    });
  }

  /** One attempt, bounded by the deadline (Unix ms). */
  async send(req: HttpRequest, deadline: number, op: string, attempt = 1): Promise<HttpResponse> {
    if (req.method !== 'GET') this.o.beforeWrite?.();
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new TransportError('ETIMEDOUT', true);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, remaining);
    const started = Date.now();
    try {
      const res = await this.axios.request<string>({
        method: req.method,
        url: req.path,
        params: req.params,
        data: req.body,
        headers: req.headers,
        signal: controller.signal,
        ...(req.freshConnection ? this.freshAgents : {}),
      });
      const text = typeof res.data === 'string' ? res.data : '';
      let body: unknown;
      let unparseable = false;
      if (text.trim() !== '') {
        try {
          body = camelKeys(parseJson(text));
        } catch {
          unparseable = true;
        }
      }
      // Path only: query strings may carry tokens (GET refresh) and bodies are never logged.
      this.o.logger.debug(
        { op, method: req.method, path: req.path, status: res.status, attempt, ms: Date.now() - started },
        'wallet call',
      );
      return { status: res.status, text, body, unparseable };
    } catch (err) {
      const code =
        typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : 'ERR_NETWORK';
      const failure = new TransportError(timedOut ? 'ETIMEDOUT' : code, timedOut);
      this.o.logger.debug(
        { op, method: req.method, path: req.path, code: failure.code, attempt, ms: Date.now() - started },
        'wallet call failed',
      );
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * For idempotent requests only: retries network errors and retryable statuses, at most
   * `retries` times, never sleeping past the deadline. Returns the last response (which may
   * still be a 5xx) or throws the last TransportError with its attempt count.
   */
  async sendWithRetries(req: HttpRequest, deadline: number, op: string, retries: number): Promise<RetryOutcome> {
    for (let attempt = 1; ; attempt++) {
      let failure: TransportError | undefined;
      try {
        const response = await this.send(req, deadline, op, attempt);
        if (!isRetryableStatus(response.status) || attempt > retries) return { response, attempts: attempt };
        const delay = this.backoff(attempt);
        if (Date.now() + delay >= deadline) return { response, attempts: attempt };
        this.o.logger.warn(
          { op, path: req.path, status: response.status, attempt, delayMs: delay },
          'wallet call will be retried',
        );
        await sleep(delay);
        continue;
      } catch (err) {
        if (!(err instanceof TransportError)) throw err;
        failure = err;
      }
      failure.attempts = attempt;
      const delay = this.backoff(attempt);
      if (failure.timedOut || attempt > retries || Date.now() + delay >= deadline) throw failure;
      this.o.logger.warn(
        { op, path: req.path, code: failure.code, attempt, delayMs: delay },
        'wallet call will be retried',
      );
      await sleep(delay);
    }
  }

  private backoff(attempt: number): number {
    const cap = Math.min(this.o.retryMaxDelayMs, this.o.retryBaseMs * 2 ** (attempt - 1));
    return Math.floor(this.random() * cap);
  }
}
