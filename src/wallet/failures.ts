/**
 * Turning what the wire gave us into the typed errors of errors.ts, with messages a
 * treasury operator can act on. Every message says whether anything may have changed.
 */
import { isLosslessNumber } from 'lossless-json';
import type { z } from 'zod';
import { KYB_ADVICE, KYB_STATUSES, lookup } from './enums.js';
import {
  OPERATION_LABELS,
  WalletAuthError,
  WalletKybError,
  WalletRejectedError,
  WalletUnavailableError,
  WalletUnknownOutcomeError,
  WalletValidationError,
  type WalletError,
  type WalletOperation,
} from './errors.js';
import type { HttpResponse, TransportError } from './http.js';
import { describeIssues, errorBodySchema } from './schemas.js';

const MAX_SERVICE_MESSAGE = 300;

/** The service's own words from any error body we know, or undefined. */
export function serviceMessage(res: HttpResponse): string | undefined {
  const parsed = errorBodySchema.safeParse(res.body);
  let msg: string | undefined;
  if (parsed.success) {
    const b = parsed.data;
    msg = b.message || b.detail || b.title || (typeof b.data === 'string' && b.data) || undefined;
  } else if (res.unparseable && res.text.length < 200 && !/[<{]/.test(res.text)) {
    msg = res.text.trim() || undefined;
  }
  if (!msg) return undefined;
  msg = msg.replace(/\s+/g, ' ').trim();
  return msg.length > MAX_SERVICE_MESSAGE ? `${msg.slice(0, MAX_SERVICE_MESSAGE)}…` : msg;
}

const NOTHING_CHANGED = 'Nothing was changed.';

/** What a failed-after-sending call means, per operation. */
const MAYBE_CHANGED: Partial<Record<WalletOperation, string>> = {
  withdraw:
    'The money may have moved: check the transaction list for this merchant reference before doing anything else; do not resend blindly.',
  passwordReset: 'The password may or may not have been changed: try logging in with the new password.',
  passwordResetOtp: 'A reset code may or may not have been sent: check the mailbox before asking again.',
};

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

export function inputError(op: WalletOperation, error: z.ZodError | string): WalletValidationError {
  const what = typeof error === 'string' ? error : describeIssues(error);
  return new WalletValidationError(`${OPERATION_LABELS[op]} refused before sending: ${what}. Nothing was sent.`, {
    operation: op,
    source: 'input',
  });
}

export function shapeError(op: WalletOperation, res: HttpResponse, error?: z.ZodError): WalletError {
  const what = res.unparseable ? 'the body is not JSON' : error ? describeIssues(error) : 'unexpected body';
  if (MAYBE_CHANGED[op]) {
    return new WalletUnknownOutcomeError(
      `${OPERATION_LABELS[op]}: the wallet service answered HTTP ${res.status} in a form we cannot read (${what}). ${MAYBE_CHANGED[op]}`,
      { operation: op, status: res.status },
    );
  }
  // Generation and webhook registration may have taken effect, but repeating them is harmless.
  const effect = op === 'generateAddress' || op === 'setWebhookUrl' ? 'It is safe to try again.' : NOTHING_CHANGED;
  return new WalletValidationError(
    `${OPERATION_LABELS[op]} failed: the wallet service's answer (HTTP ${res.status}) did not have the expected shape (${what}). ${effect}`,
    { operation: op, status: res.status, source: 'response' },
  );
}

export function transportFailure(
  op: WalletOperation,
  err: TransportError,
  ctx: { timeoutMs: number; merchantReference?: string },
): WalletError {
  const reason = err.timedOut
    ? `no answer within ${seconds(ctx.timeoutMs)}`
    : err.phase === 'not_sent'
      ? `could not connect (${err.code})`
      : `the connection failed (${err.code})`;
  const after = err.attempts > 1 ? ` after ${err.attempts} attempts` : '';
  if (err.phase === 'maybe_sent' && MAYBE_CHANGED[op]) {
    return new WalletUnknownOutcomeError(`${OPERATION_LABELS[op]} outcome unknown: ${reason}. ${MAYBE_CHANGED[op]}`, {
      operation: op,
      code: err.code,
      ...(ctx.merchantReference !== undefined ? { merchantReference: ctx.merchantReference } : {}),
    });
  }
  const sent = err.phase === 'not_sent' ? 'Nothing was sent.' : `${NOTHING_CHANGED} It is safe to try again.`;
  return new WalletUnavailableError(
    `${OPERATION_LABELS[op]} failed: wallet service unavailable, ${reason}${after}. ${sent}`,
    {
      operation: op,
      code: err.code,
      reason: err.timedOut ? 'timeout' : 'network',
      attempts: err.attempts,
    },
  );
}

/** A 5xx (or other retryable status) that was final. */
export function serverFailure(
  op: WalletOperation,
  res: HttpResponse,
  ctx: { attempts: number; merchantReference?: string },
): WalletError {
  const said = serviceMessage(res);
  const detail = `HTTP ${res.status}${said ? ` (${said})` : ''}`;
  if (MAYBE_CHANGED[op]) {
    return new WalletUnknownOutcomeError(
      `${OPERATION_LABELS[op]} outcome unknown: the wallet service answered ${detail}. ${MAYBE_CHANGED[op]}`,
      {
        operation: op,
        status: res.status,
        ...(ctx.merchantReference !== undefined ? { merchantReference: ctx.merchantReference } : {}),
      },
    );
  }
  const after = ctx.attempts > 1 ? ` after ${ctx.attempts} attempts` : '';
  return new WalletUnavailableError(
    `${OPERATION_LABELS[op]} failed: the wallet service answered ${detail}${after}. ${NOTHING_CHANGED} Try again later.`,
    {
      operation: op,
      status: res.status,
      reason: 'server',
      attempts: ctx.attempts,
    },
  );
}

export function rejection(op: WalletOperation, res: HttpResponse): WalletRejectedError {
  const said = serviceMessage(res) ?? `HTTP ${res.status}`;
  return new WalletRejectedError(
    `${OPERATION_LABELS[op]} rejected by the wallet service: ${said}. ${NOTHING_CHANGED}`,
    {
      operation: op,
      status: res.status,
      serviceMessage: said,
    },
  );
}

export function apiKeyRefused(op: WalletOperation, res: HttpResponse): WalletAuthError {
  return new WalletAuthError(
    `${OPERATION_LABELS[op]} refused: the wallet service did not accept the API key (check WALLET_API_KEY). ${NOTHING_CHANGED}`,
    { operation: op, status: res.status },
  );
}

export function tokenRefused(op: WalletOperation, res: HttpResponse): WalletAuthError {
  return new WalletAuthError(
    `${OPERATION_LABELS[op]} refused: the wallet service rejected a freshly issued session token. ${NOTHING_CHANGED}`,
    { operation: op, status: res.status },
  );
}

/**
 * The blocking KYB state named by a login refusal, if any, whatever the HTTP status (400, 401,
 * 403, or a 2xx with `isSuccessful: false`): `kybStatus` in `data` or beside it, as a code (a
 * JSON number, exact or not), a numeric string or a name (public-facts.md: 1 UnVerified,
 * 2 Initiated, 3 InProgress, 4 Approved, 5 Rejected); else a state named in the message.
 * Approved, or anything unknown, is not a KYB block.
 */
export function kybStateOf(res: HttpResponse): string | undefined {
  const body = res.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const data = b.data && typeof b.data === 'object' ? (b.data as Record<string, unknown>) : undefined;
  for (const v of [data?.kybStatus, b.kybStatus]) {
    if (v === undefined || v === null) continue;
    const m = lookup(KYB_STATUSES, isLosslessNumber(v) ? Number(v.toString()) : v);
    if (m) return m.name in KYB_ADVICE ? m.name : undefined;
  }
  const parsed = errorBodySchema.safeParse(body);
  const message = parsed.success ? [parsed.data.message, parsed.data.detail, parsed.data.title].join(' ') : '';
  // Longest names first so "UnVerified" is not read as something shorter.
  for (const name of Object.keys(KYB_ADVICE).sort((a, b) => b.length - a.length)) {
    const words = name.replace(/([a-z])([A-Z])/g, '$1[ _-]?$2');
    if (new RegExp(`\\b${words}\\b`, 'i').test(message)) return name;
  }
  return undefined;
}

export function kybBlocked(res: HttpResponse, state: string, op: WalletOperation = 'login'): WalletKybError {
  const advice = KYB_ADVICE[state] ?? 'Contact the wallet service.';
  return new WalletKybError(
    `Wallet service login blocked: the merchant's KYB status is ${state}. ${advice} ${NOTHING_CHANGED}`,
    {
      operation: op,
      status: res.status,
      kybStatus: state,
      advice,
    },
  );
}

export function loginRefused(res: HttpResponse, op: WalletOperation = 'login'): WalletAuthError {
  const said = serviceMessage(res) ?? `HTTP ${res.status}`;
  return new WalletAuthError(
    `${OPERATION_LABELS[op]} failed: ${said}. Check WALLET_MERCHANT_EMAIL and WALLET_MERCHANT_PASSWORD (an admin account cannot be used). ${NOTHING_CHANGED}`,
    { operation: op, status: res.status },
  );
}

export function deadlineExceeded(op: WalletOperation, timeoutMs: number): WalletUnavailableError {
  return new WalletUnavailableError(
    `${OPERATION_LABELS[op]} failed: wallet service unavailable, no answer within ${seconds(timeoutMs)}. ${NOTHING_CHANGED} It is safe to try again.`,
    { operation: op, reason: 'timeout', attempts: 1 },
  );
}
