/**
 * The wallet-service client: one typed function per operation of the spec.
 *
 * Retry policy, by what a repeat can do:
 * - reads, login/refresh, address generation (same inputs give the same address) and the
 *   webhook PUT (it replaces) are idempotent: retried on network errors and 5xx with
 *   backoff, within the call's deadline;
 * - the withdrawal POST is never repeated by this client (see `withdraw`);
 * - password-reset calls are not repeated either (each may send a mail or change the password).
 */
import type { Logger } from '../log.js';
import { secrets as processSecrets, type SecretRegistry } from '../secrets.js';
import { addressFamily, describeFormat, isValidAddress } from './addresses.js';
import {
  DEFAULT_ASSUMPTIONS,
  DEFAULT_READ_RETRIES,
  DEFAULT_TIMEOUT_MS,
  fromWireTimestamp,
  PATHS,
  RETRY_BASE_MS,
  RETRY_MAX_DELAY_MS,
  toWireTimestamp,
  WITHDRAWAL_ACCEPT,
  WITHDRAWAL_CONTENT_TYPE,
  WITHDRAWAL_QUERY,
  type RefreshMethod,
  type TimestampUnit,
  type WalletAssumptions,
} from './assumptions.js';
import { CURRENCIES, lookup, NETWORKS, type CurrencyMember, type EnumMember } from './enums.js';
import { OPERATION_LABELS, WalletError, WalletUnknownOutcomeError, type WalletOperation } from './errors.js';
import {
  apiKeyRefused,
  inputError,
  rejection,
  serverFailure,
  serviceMessage,
  shapeError,
  tokenRefused,
  transportFailure,
} from './failures.js';
import { isRetryableStatus, TransportError, WalletHttp, type HttpRequest, type HttpResponse } from './http.js';
import { jsonDecimal, stringifyJson } from './json.js';
import {
  generateAddressInputSchema,
  generateAddressResponseSchema,
  passwordResetOtpRequestSchema,
  passwordResetRequestSchema,
  passwordResetResponseSchema,
  toTransactionRecord,
  toWalletAddress,
  toWithdrawalResult,
  transactionFilterSchema,
  transactionPageResponseSchema,
  webhookResponseSchema,
  webhookUrlSchema,
  withdrawInputSchema,
  withdrawResponseSchema,
  type Session,
  type TransactionPage,
  type WalletAddress,
  type WithdrawalResult,
} from './schemas.js';
import { SessionManager } from './session.js';

export interface WalletClientOptions {
  baseUrl: string;
  apiKey: string;
  publicKey: string;
  email: string;
  password: string;
  /** Default 'Bearer' (assumptions.ts). */
  v2AuthScheme?: string;
  /** Default 'POST' (assumptions.ts). */
  refreshMethod?: RefreshMethod;
  /** Default 'ms' (assumptions.ts). */
  timestampUnit?: TimestampUnit;
  /** Total deadline per call, retries and any login/refresh included. Default 10000. */
  timeoutMs?: number;
  /** Retries of idempotent calls after the first attempt. Default 3. */
  readRetries?: number;
  /** Backoff base and cap for those retries (full jitter). Defaults 200 / 2000 ms. */
  retryBaseMs?: number;
  retryMaxDelayMs?: number;
  logger: Logger;
  /** Default: the process registry. Every token obtained is added to it. */
  secrets?: SecretRegistry;
}

/** Anything `lookup` resolves: a member, its code, a numeric string or a name. */
export type CurrencyInput = CurrencyMember | string | number;
export type NetworkInput = EnumMember | string | number;

export interface GenerateAddressInput {
  clientEmail: string;
  currency: CurrencyInput;
  network: NetworkInput;
}

export interface WithdrawInput {
  /** Exact decimal text, e.g. "0.123456789012345678". */
  amount: string;
  currency: CurrencyInput;
  network: NetworkInput;
  destinationAddress: string;
  clientEmail: string;
  merchantReference: string;
  /** Kept for the caller's records only: the spec's withdrawal request has no description field. */
  description?: string;
}

export interface TransactionFilter {
  currency?: CurrencyInput;
  network?: NetworkInput;
  status?: 'successful' | 'failed';
  type?: 'deposit' | 'withdrawal';
  hash?: string;
  address?: string;
  from?: Date;
  to?: Date;
  page?: number;
  pageSize?: number;
}

export interface WalletClient {
  login(): Promise<Session>;
  refresh(): Promise<Session>;
  requestPasswordResetOtp(email: string): Promise<void>;
  resetPassword(i: { email: string; otp: string; newPassword: string }): Promise<void>;
  generateAddress(i: GenerateAddressInput): Promise<WalletAddress>;
  withdraw(i: WithdrawInput): Promise<WithdrawalResult>;
  listTransactions(f?: TransactionFilter): Promise<TransactionPage>;
  setWebhookUrl(url: string): Promise<void>;
  authState(): { loggedIn: boolean; expiresAt?: number; email: string };
}

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' } as const;
const is2xx = (s: number) => s >= 200 && s < 300;

export function createWalletClient(o: WalletClientOptions): WalletClient {
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
  });
  const session = new SessionManager({
    http,
    assumptions,
    credentials: { email: o.email, password: o.password },
    secrets: registry,
    logger,
    timeoutMs,
    readRetries: retries,
  });
  const apiKeyHeader = { Authorization: `ApiKey ${o.apiKey}` };

  /** Every public call goes through here: scrubbed messages, one log line per failure. */
  async function guard<T>(op: WalletOperation, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
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

  /** An idempotent exchange: retried within the deadline; a final 5xx or network failure is thrown. */
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

  /** A single attempt for calls that must not be repeated. */
  async function once(op: WalletOperation, req: HttpRequest, deadline: number, merchantReference?: string): Promise<HttpResponse> {
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

  /** A v2 call with the session token: on 401, one shared refresh (or re-login), then one resend. */
  async function withSession(op: WalletOperation, build: (authorization: string) => HttpRequest, deadline: number) {
    const scheme = assumptions.v2AuthScheme;
    const token = await session.accessToken(deadline, op);
    const first = await idempotent(op, build(`${scheme} ${token}`), deadline);
    if (first.status !== 401) return first;
    const fresh = await session.afterUnauthorized(token, deadline, op);
    const second = await idempotent(op, build(`${scheme} ${fresh}`), deadline);
    if (second.status === 401) throw tokenRefused(op, second);
    return second;
  }

  /** Outcome of a non-2xx answer that is not a 5xx (those were handled by the exchange). */
  function refusal(op: WalletOperation, res: HttpResponse, auth: 'apiKey' | 'none'): never {
    if (res.status === 401 && auth === 'apiKey') throw apiKeyRefused(op, res);
    throw rejection(op, res);
  }

  function resolveCurrency(op: WalletOperation, v: unknown): CurrencyMember {
    const m = lookup(CURRENCIES, typeof v === 'object' && v !== null ? (v as EnumMember).code : v);
    if (!m) throw inputError(op, `unknown currency ${JSON.stringify(typeof v === 'object' ? (v as EnumMember)?.name : v)}`);
    return m;
  }

  function resolveNetwork(op: WalletOperation, v: unknown): EnumMember {
    const m = lookup(NETWORKS, typeof v === 'object' && v !== null ? (v as EnumMember).code : v);
    if (!m) throw inputError(op, `unknown network ${JSON.stringify(typeof v === 'object' ? (v as EnumMember)?.name : v)}`);
    return m;
  }

  const deadlineFromNow = () => Date.now() + timeoutMs;

  return {
    login: () => guard('login', () => session.login()),
    refresh: () => guard('refresh', () => session.refresh()),
    authState: () => session.state(),

    requestPasswordResetOtp: (email) =>
      guard('passwordResetOtp', async () => {
        const input = passwordResetOtpRequestSchema.safeParse({ email });
        if (!input.success) throw inputError('passwordResetOtp', input.error);
        const res = await once(
          'passwordResetOtp',
          { method: 'POST', path: PATHS.passwordResetOtp, headers: { ...JSON_HEADERS }, body: stringifyJson(input.data) },
          deadlineFromNow(),
        );
        expectV2Success('passwordResetOtp', res);
      }),

    resetPassword: (i) =>
      guard('passwordReset', async () => {
        registry.add(i.otp, i.newPassword);
        const input = passwordResetRequestSchema.safeParse(i);
        if (!input.success) throw inputError('passwordReset', input.error);
        const res = await once(
          'passwordReset',
          { method: 'POST', path: PATHS.passwordReset, headers: { ...JSON_HEADERS }, body: stringifyJson(input.data) },
          deadlineFromNow(),
        );
        expectV2Success('passwordReset', res);
        if (input.data.email.toLowerCase() === o.email.toLowerCase()) session.setPassword(input.data.newPassword);
      }),

    generateAddress: (i) =>
      guard('generateAddress', async () => {
        const input = generateAddressInputSchema.safeParse(i);
        if (!input.success) throw inputError('generateAddress', input.error);
        const currency = resolveCurrency('generateAddress', i.currency);
        const network = resolveNetwork('generateAddress', i.network);
        const body = {
          clientEmailAddress: input.data.clientEmail,
          currency: String(currency.code),
          networkChain: network.name,
          publicKey: o.publicKey,
        };
        const res = await idempotent(
          'generateAddress',
          { method: 'POST', path: PATHS.generateAddress, headers: { ...JSON_HEADERS, ...apiKeyHeader }, body: stringifyJson(body) },
          deadlineFromNow(),
        );
        if (!is2xx(res.status)) refusal('generateAddress', res, 'apiKey');
        const parsed = generateAddressResponseSchema.safeParse(res.body);
        if (!parsed.success) {
          if (statusZero(res)) throw rejection('generateAddress', res);
          throw shapeError('generateAddress', res, parsed.error);
        }
        if (parsed.data.status !== 1) throw rejection('generateAddress', res);
        return toWalletAddress(parsed.data.data);
      }),

    withdraw: (i) =>
      guard('withdraw', async () => {
        const input = withdrawInputSchema.safeParse(i);
        if (!input.success) throw inputError('withdraw', input.error);
        const currency = resolveCurrency('withdraw', i.currency);
        const network = resolveNetwork('withdraw', i.network);
        const { amount, destinationAddress, clientEmail, merchantReference } = input.data;
        const fraction = amount.split('.')[1] ?? '';
        if (fraction.length > currency.decimals) {
          throw inputError('withdraw', `amount has ${fraction.length} decimal places; ${currency.name} allows at most ${currency.decimals}`);
        }
        const family = addressFamily(currency, network);
        if (!isValidAddress(family, destinationAddress)) {
          throw inputError('withdraw', `destinationAddress is not ${describeFormat(family)} (${currency.name} on ${network.name})`);
        }
        // The amount goes out as a JSON number with exactly the approved digits; the body
        // is serialized here so that axios never turns it into a binary float.
        const body = stringifyJson({
          amount: jsonDecimal(amount),
          currency: String(currency.code),
          destinationAddress,
          merchantClientEmailAddress: clientEmail,
          networkChain: String(network.code),
          merchantReference,
          publicKey: o.publicKey,
        });
        // Sent exactly once, on a connection of its own. No retry on network errors, timeouts
        // or 5xx: the service may have processed the request, and a resend could pay twice.
        // A 401, on the other hand, is a definite rejection before processing, so re-auth and
        // one resend would be safe ONLY for a 401; but this endpoint authenticates with the
        // static API key, which re-authenticating cannot change, so a 401 is surfaced as an
        // auth error instead of being resent.
        const res = await once(
          'withdraw',
          {
            method: 'POST',
            path: PATHS.withdrawal,
            params: { ...WITHDRAWAL_QUERY },
            headers: { 'Content-Type': WITHDRAWAL_CONTENT_TYPE, Accept: WITHDRAWAL_ACCEPT, ...apiKeyHeader },
            body,
            freshConnection: true,
          },
          deadlineFromNow(),
          merchantReference,
        );
        try {
          return readWithdrawal(res, merchantReference);
        } catch (err) {
          if (err instanceof WalletError) throw err;
          // Once the request has been answered, even a bug of ours in reading the answer must
          // not look like "nothing happened".
          throw new WalletUnknownOutcomeError(
            'Withdrawal outcome unknown: the answer could not be processed. The money may have moved: check the transaction list for this merchant reference before doing anything else; do not resend blindly.',
            { operation: 'withdraw', status: res.status, merchantReference },
          );
        }
      }),

    listTransactions: (f = {}) =>
      guard('listTransactions', async () => {
        const input = transactionFilterSchema.safeParse(f);
        if (!input.success) throw inputError('listTransactions', input.error);
        const q = input.data;
        const unit = assumptions.timestampUnit;
        const params: Record<string, string | number> = {};
        if (f.currency !== undefined) params.Currency = resolveCurrency('listTransactions', f.currency).code;
        if (f.network !== undefined) params.NetworkChain = resolveNetwork('listTransactions', f.network).code;
        if (q.status) params.Status = q.status === 'successful' ? 1 : 2;
        if (q.hash) params.TransactionHash = q.hash;
        if (q.address) params.WalletAddress = q.address;
        if (q.type) params.TransactionType = q.type === 'deposit' ? 1 : 2;
        if (q.page !== undefined) params.Page = q.page;
        if (q.pageSize !== undefined) params.PageSize = q.pageSize;
        if (q.from) params.StartTimeStamp = toWireTimestamp(q.from, unit);
        if (q.to) params.EndTimeStamp = toWireTimestamp(q.to, unit);
        const res = await withSession(
          'listTransactions',
          (authorization) => ({ method: 'GET', path: PATHS.transactions, params, headers: { Accept: 'application/json', Authorization: authorization } }),
          deadlineFromNow(),
        );
        if (!is2xx(res.status)) refusal('listTransactions', res, 'none');
        const parsed = transactionPageResponseSchema.safeParse(res.body);
        if (!parsed.success) throw shapeError('listTransactions', res, parsed.error);
        if (parsed.data.isSuccessful === false) throw rejection('listTransactions', res);
        const page = parsed.data.data;
        const rawRecords = ((res.body as { data: { records: unknown[] } }).data.records ?? []) as Record<string, unknown>[];
        return {
          records: page.records.map((r, idx) => toTransactionRecord(r, rawRecords[idx] ?? {}, (n) => fromWireTimestamp(n, unit))),
          currentPage: page.currentPage,
          pageSize: page.pageSize,
          totalPages: page.totalPages,
          totalRecords: page.totalRecords,
        };
      }),

    setWebhookUrl: (url) =>
      guard('setWebhookUrl', async () => {
        const input = webhookUrlSchema.safeParse(url);
        if (!input.success) throw inputError('setWebhookUrl', input.error);
        const res = await idempotent(
          'setWebhookUrl',
          {
            method: 'PUT',
            path: PATHS.webhook,
            headers: { ...JSON_HEADERS, ...apiKeyHeader },
            body: stringifyJson({ webHookUrl: input.data, publicKey: o.publicKey }),
          },
          deadlineFromNow(),
        );
        if (!is2xx(res.status)) refusal('setWebhookUrl', res, 'apiKey');
        if (res.text.trim() === '') return;
        const parsed = webhookResponseSchema.safeParse(res.body);
        if (!parsed.success) throw shapeError('setWebhookUrl', res, parsed.error);
        if (parsed.data.status !== 1) throw rejection('setWebhookUrl', res);
      }),
  };

  function readWithdrawal(res: HttpResponse, merchantReference: string): WithdrawalResult {
    if (!is2xx(res.status)) {
      // Only what the spec documents as a refusal is one: 400 (its failure envelope), and 401/403
      // (credentials are checked before anything is processed). A redirect after processing, a
      // 409 "duplicate reference", a proxy's 408/429: any of these may follow a real payout.
      if (res.status === 400 || res.status === 401 || res.status === 403) refusal('withdraw', res, 'apiKey');
      throw new WalletUnknownOutcomeError(
        `Withdrawal outcome unknown: the wallet service answered HTTP ${res.status}, which is not a documented refusal. The money may have moved: check the transaction list for this merchant reference before doing anything else; do not resend blindly.`,
        { operation: 'withdraw', status: res.status, merchantReference },
      );
    }
    const envelopeStatus = (res.body as { status?: unknown } | undefined)?.status;
    if (envelopeStatus !== undefined && String(envelopeStatus) !== '1') {
      // A success status with a failure envelope is not a documented answer: we cannot
      // tell whether the money moved, so it is reconciled rather than trusted either way.
      const said = serviceMessage(res) ?? 'no message';
      throw new WalletUnknownOutcomeError(
        `Withdrawal outcome unknown: the wallet service answered HTTP ${res.status} with status ${String(envelopeStatus)} (${said}). The money may have moved: check the transaction list for this merchant reference before doing anything else; do not resend blindly.`,
        { operation: 'withdraw', status: res.status, merchantReference },
      );
    }
    const parsed = withdrawResponseSchema.safeParse(res.body);
    if (!parsed.success) throw withRef(shapeError('withdraw', res, parsed.error), merchantReference);
    return toWithdrawalResult(parsed.data);
  }

  function expectV2Success(op: WalletOperation, res: HttpResponse): void {
    if (!is2xx(res.status)) refusal(op, res, 'none');
    if (res.text.trim() === '') return;
    const parsed = passwordResetResponseSchema.safeParse(res.body);
    if (!parsed.success) throw shapeError(op, res, parsed.error);
    if (parsed.data.isSuccessful === false) throw rejection(op, res);
  }
}

function statusZero(res: HttpResponse): boolean {
  const b = res.body as { status?: unknown } | undefined;
  return !!b && typeof b === 'object' && String(b.status) === '0';
}

function withRef(err: WalletError, merchantReference: string): WalletError {
  if (err instanceof WalletUnknownOutcomeError && err.merchantReference === undefined) {
    return new WalletUnknownOutcomeError(err.message, {
      operation: err.operation,
      merchantReference,
      ...(err.status !== undefined ? { status: err.status } : {}),
    });
  }
  return err;
}
