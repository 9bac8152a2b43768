/**
 * pino, configured so that secrets cannot reach the output: known secret-bearing paths
 * are redacted, errors are serialized without request configs or headers, and every
 * line is scrubbed of registered secret values (and passkey link tokens, by shape) just before it is written.
 */
import { pino, type Logger, type DestinationStream } from 'pino';
import { currentRequest } from './request-context.js';
import { secrets as defaultSecrets, type SecretRegistry } from './secrets.js';

export type { Logger };

const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'token',
  'accessToken',
  'refreshToken',
  'password',
  'newPassword',
  'apiKey',
  'secret',
  'signingSecret',
  'webhookSecret',
  'botToken',
  'appToken',
  'otp',
  'cookie',
];

const REDACT_PATHS = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`, `headers.${k}`, `*.headers.${k}`]);

/** An error reduced to what helps an operator: never an axios config, request, or headers. */
export function serializeError(err: unknown, depth = 0): Record<string, unknown> {
  if (!(err instanceof Error)) {
    // Not an Error (a rejected plain object, or one already serialized): keep what it says
    // instead of "[object Object]".
    if (err !== null && typeof err === 'object') {
      const o = err as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const k of ['type', 'name', 'message', 'code', 'status', 'kind', 'reason']) {
        const v = o[k];
        if (typeof v === 'string' || typeof v === 'number') out[k] = v;
      }
      if (o.cause !== undefined && o.cause !== err && depth < 5) out.cause = serializeError(o.cause, depth + 1);
      if (out.message === undefined) {
        let text: string;
        try {
          text = JSON.stringify(err) ?? String(err);
        } catch {
          text = Object.prototype.toString.call(err);
        }
        out.message = text.slice(0, 500);
      }
      return out;
    }
    return { message: String(err) };
  }
  const e = err as Error & { code?: unknown; status?: unknown; kind?: unknown; cause?: unknown };
  const out: Record<string, unknown> = { type: e.name, message: e.message };
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = e.code;
  if (typeof e.status === 'number') out.status = e.status;
  if (typeof e.kind === 'string') out.kind = e.kind;
  const axiosLike = err as {
    isAxiosError?: boolean;
    response?: { status?: number };
    config?: { method?: string; url?: string };
  };
  if (axiosLike.isAxiosError) {
    out.status = axiosLike.response?.status;
    out.method = axiosLike.config?.method;
    out.url = axiosLike.config?.url?.split('?')[0];
  } else if (e.stack) {
    out.stack = e.stack;
  }
  if (e.cause !== undefined && e.cause !== err && depth < 5) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

/**
 * A passkey page's link carries its bearer token in the path: such URLs are masked by their one fixed
 * shape, so no token has to be registered as a secret (the registry would grow with every link made).
 */
const PASSKEY_LINK = /\/(confirm|passkeys\/enrol)\/[A-Za-z0-9_-]{43,}/g;

/** A log line with every passkey link's token masked. */
export const scrubLinks = (line: string): string => line.replace(PASSKEY_LINK, '/$1/[REDACTED]');

export interface LoggerOptions {
  level?: string;
  destination?: DestinationStream;
  secrets?: SecretRegistry;
  name?: string;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const registry = opts.secrets ?? defaultSecrets;
  return pino(
    {
      name: opts.name,
      level: opts.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      serializers: { err: serializeError, error: serializeError },
      hooks: { streamWrite: (line: string) => scrubLinks(registry.scrub(line)) },
      // The request this line was written for (request-context.ts), on every logger and child alike.
      mixin: () => {
        const id = currentRequest()?.id;
        return id ? { reqId: id } : {};
      },
    },
    opts.destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
