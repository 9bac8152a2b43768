/**
 * The response shapes of the wallet service (spec + public facts), in one place. Handlers
 * return a Reply; the HTTP layer serializes it with stringifyJson so LosslessNumbers keep
 * their exact digits.
 */
export interface Reply {
  status: number;
  body?: unknown;
  /** Sent as it is instead of `body` (a plain-text answer). */
  text?: string;
  headers?: Record<string, string>;
}

export type EnvelopeKind = 'v1' | 'v2' | 'control';

/** v1 success: wallet generation, withdrawal, webhook registration. */
export function v1Ok(data: unknown, message = 'Successful'): Reply {
  return { status: 200, body: { status: 1, message, data } };
}

/** v1 failure: `{ status: 0, message, data: string }`; data carries the detail. */
export function v1Fail(message: string, detail: string = message, status = 400): Reply {
  return { status, body: { status: 0, message, data: detail } };
}

/** v2 envelope: login, refresh, password reset, analytics. */
export function v2Ok(data: unknown, message: string | null = null): Reply {
  return { status: 200, body: { data, isSuccessful: true, message, httpStatusCode: 200 } };
}

export function v2Fail(status: number, message: string, data: unknown = null): Reply {
  return { status, body: { data, isSuccessful: false, message, httpStatusCode: status } };
}

/** The sandbox's own control endpoints (/sandbox/...). */
export function controlError(status: number, message: string): Reply {
  return { status, body: { error: message } };
}

const PROBLEM_TYPES: Readonly<Record<number, string>> = {
  400: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
  401: 'https://tools.ietf.org/html/rfc9110#section-15.5.2',
  404: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
  405: 'https://tools.ietf.org/html/rfc9110#section-15.5.6',
  413: 'https://tools.ietf.org/html/rfc9110#section-15.5.14',
  500: 'https://tools.ietf.org/html/rfc9110#section-15.6.1',
};

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function statusTitle(status: number): string {
  return TITLES[status] ?? `HTTP ${status}`;
}

/** RFC 7807 problem details (the service's 401 body; also used for 404/405/413/500). */
export function problem(status: number, detail: string, instance: string, headers: Record<string, string> = {}): Reply {
  return {
    status,
    headers: { 'content-type': 'application/problem+json; charset=utf-8', ...headers },
    body: {
      type: PROBLEM_TYPES[status] ?? 'about:blank',
      title: statusTitle(status),
      status,
      detail,
      instance,
    },
  };
}
