/**
 * What a failed Web API call means for the outbox: try again later (and whether the
 * message may nevertheless have been posted), or give up on this entry.
 */

export type CallFailure =
  | {
      retry: true;
      error: string;
      /** the request may have been carried out */ unknownOutcome: boolean;
      afterMs?: number;
      /**
       * The failure is about the channel or the workspace (rate limit, auth, Slack unreachable),
       * not about this payload: every message of the lane would fail alike, so the lane waits.
       * Otherwise only the entry waits, and a new alert is not held back by it.
       */
      wide?: boolean;
    }
  | { retry: false; error: string };

/**
 * `ok:false` errors that are about Slack's state, not about our message: waiting helps.
 * Auth errors are here too: a broken token breaks every message alike, and parking them all
 * would lose alerts while an operator fixes the token.
 */
const RETRYABLE_PLATFORM = new Set([
  'ratelimited',
  'rate_limited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
  'invalid_auth',
  'not_authed',
  'token_expired',
  'account_inactive',
]);

/** Of those, the ones that are about one message's request, not the channel or workspace. */
const ENTRY_PLATFORM = new Set(['internal_error', 'fatal_error', 'request_timeout']);

/** Of those, the ones where Slack may have done the work before failing. */
const MAYBE_DONE_PLATFORM = new Set(['internal_error', 'fatal_error', 'request_timeout']);

/** Network errors that prove the request never reached Slack. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

interface LooseError {
  code?: unknown;
  data?: { error?: unknown };
  retryAfter?: unknown;
  statusCode?: unknown;
  original?: unknown;
  cause?: unknown;
  name?: unknown;
  message?: unknown;
}

function networkCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as LooseError;
  if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
  return networkCode(e.original, depth + 1) ?? networkCode(e.cause, depth + 1);
}

export function classifySlackError(err: unknown): CallFailure {
  const e = (err ?? {}) as LooseError;
  switch (e.code) {
    case 'slack_webapi_rate_limited_error': {
      const seconds = typeof e.retryAfter === 'number' && e.retryAfter >= 0 ? e.retryAfter : 1;
      return { retry: true, error: 'ratelimited', unknownOutcome: false, afterMs: seconds * 1000, wide: true };
    }
    case 'slack_webapi_platform_error': {
      const code = typeof e.data?.error === 'string' ? e.data.error : 'unknown_error';
      if (RETRYABLE_PLATFORM.has(code))
        return {
          retry: true,
          error: code,
          unknownOutcome: MAYBE_DONE_PLATFORM.has(code),
          wide: !ENTRY_PLATFORM.has(code),
        };
      return { retry: false, error: code };
    }
    case 'slack_webapi_http_error': {
      const status = typeof e.statusCode === 'number' ? e.statusCode : 0;
      // A 5xx may come from a proxy after Slack already acted on the request.
      return { retry: true, error: `http_${status}`, unknownOutcome: status >= 500 || status === 0 };
    }
    case 'slack_webapi_request_error': {
      const code = networkCode(e);
      if (code && NOT_SENT_CODES.has(code))
        return { retry: true, error: code.toLowerCase(), unknownOutcome: false, wide: true };
      // Timeouts and resets: the request may have been carried out.
      return { retry: true, error: code ? code.toLowerCase() : 'request_error', unknownOutcome: true };
    }
    default:
      return {
        retry: true,
        error: typeof e.message === 'string' ? e.message.slice(0, 200) : 'unknown_error',
        unknownOutcome: true,
      };
  }
}
