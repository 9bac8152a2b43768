/**
 * Every wire detail of the wallet service that the spec leaves open, in one place
 * (docs/wallet-service-choices.md). If the real service turns out to differ, this file
 * (or the environment) is the only thing that should need to change.
 */

export type RefreshMethod = 'POST' | 'PUT' | 'GET';
export type TimestampUnit = 'ms' | 's';

export interface WalletAssumptions {
  /** Scheme word in `Authorization: <scheme> <token>` on the v2 endpoints. */
  v2AuthScheme: string;
  refreshMethod: RefreshMethod;
  /** Unit of transactionTimeStamp and of the StartTimeStamp/EndTimeStamp filters. */
  timestampUnit: TimestampUnit;
}

export const DEFAULT_ASSUMPTIONS: Readonly<WalletAssumptions> = Object.freeze({
  v2AuthScheme: 'Bearer',
  refreshMethod: 'POST',
  timestampUnit: 'ms',
});

export const PATHS = {
  login: '/api/v2/auth/login',
  refresh: '/api/v2/auth/refreshToken',
  passwordResetOtp: '/api/v2/auth/password-reset/otp',
  passwordReset: '/api/v2/auth/password-reset',
  generateAddress: '/api/v1/walletaddress/generate',
  withdrawal: '/api/merchantClientWithdrawal',
  transactions: '/api/v2/analytics/transaction-record',
  webhook: '/api/v1/merchant/remittancewebhook',
  /** + `/{merchantReference}` (public-facts.md: operations the spec does not list). */
  withdrawalStatus: '/api/merchantClientWithdrawal/status',
  originBalances: '/api/v1/walletBalance/originAccounts',
} as const;

/** The withdrawal endpoint is versioned by query and media-type parameter, not by path. */
export const WITHDRAWAL_QUERY = { 'api-version': '1' } as const;
export const WITHDRAWAL_CONTENT_TYPE = 'application/json-patch+json; ver=1.0';
export const WITHDRAWAL_ACCEPT = 'text/plain; ver=1.0';

/**
 * How the refresh request carries the tokens. The refresh and access tokens go in the
 * body for POST/PUT; a GET has no body, so they travel as query parameters (which is
 * why the HTTP layer never logs query strings).
 */
export function refreshRequest(
  method: RefreshMethod,
  tokens: { refreshToken: string; token: string },
): { params?: Record<string, string>; body?: Record<string, string> } {
  const payload = { refreshToken: tokens.refreshToken, token: tokens.token };
  return method === 'GET' ? { params: payload } : { body: payload };
}

/**
 * Refresh this long before `expiresAtTimestamp`, so that a request is not sent with a
 * token that expires in flight. Capped at a tenth of the token's lifetime so that short
 * lifetimes (tests, odd deployments) do not refresh on every call.
 */
export const PROACTIVE_REFRESH_MS = 60_000;

/** Backoff for idempotent retries: full jitter over base * 2^attempt, capped. */
export const RETRY_BASE_MS = 200;
export const RETRY_MAX_DELAY_MS = 2_000;

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_READ_RETRIES = 3;

export function toWireTimestamp(date: Date, unit: TimestampUnit): number {
  return unit === 's' ? Math.floor(date.getTime() / 1000) : date.getTime();
}

export function fromWireTimestamp(value: number, unit: TimestampUnit): Date {
  return new Date(unit === 's' ? value * 1000 : value);
}
