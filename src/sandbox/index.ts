/**
 * The embedded sandbox wallet service: the spec + docs/wallet-service-choices.md over real
 * HTTP on node:http, with test controls (fault injection, token expiry, balances,
 * simulated deposits) as methods. Used in-process by tests and the app's local mode, and
 * alone through `npm run sandbox` (cli.ts). Choices the docs leave open are listed in
 * src/sandbox/README.md.
 */
import { pino } from 'pino';
import { stringifyJson } from '../wallet/json.js';
import type { Logger } from '../log.js';
import { KYB_STATUSES, CURRENCIES, NETWORKS, lookup } from '../wallet/enums.js';
import { login, OtpStore, refresh, requestOtp, resetPassword, TokenStore } from './auth.js';
import {
  depositRoute,
  remittanceRoute,
  simulateDeposit,
  simulateRemittance,
  type DepositInput,
  type RemittanceInput,
} from './deposits.js';
import { FaultQueue, type Fault } from './faults.js';
import { generateAddress } from './generate-address.js';
import { startHttpServer, type RecordedRequest, type Route, type SandboxRequest } from './http.js';
import { createVariety, varietySeed, type Answer } from './variety.js';
import { formatMoney, parseMoney } from './money.js';
import { seedSandbox } from './seed.js';
import { SandboxState, type KybName, type Role, type TransactionRecord } from './state.js';
import { listTransactions, MAX_PAGE_SIZE, type TimestampUnit } from './transactions.js';
import { withdrawalPayload, type Remittance } from './webhook-payloads.js';
import { registerWebhook, WebhookDispatcher, type Delivery } from './webhooks.js';
import type { VerificationUrl } from './verification.js';
import { withdraw } from './withdrawals.js';
import { STATUS_PREFIX, withdrawalStatus } from './withdrawal-status.js';
import { originBalances } from './balances.js';
import {
  ALL_REFERENCES,
  FORGED_WEBHOOKS_PATH,
  forgedWebhookRoute,
  postForged,
  STATUS_CONTROL_PATH,
  statusControlRoute,
  statusUnavailable,
  type ForgedDelivery,
  type Forgery,
} from './forgery.js';

export type {
  TransactionRecord,
  Remittance,
  Delivery,
  Fault,
  DepositInput,
  RemittanceInput,
  RecordedRequest,
  ForgedDelivery,
  KybName,
  Role,
  TimestampUnit,
};
export { SimulationError } from './deposits.js';
export { webhookChecksum, canonicalJson } from './webhook-payloads.js';
export { signWebhook } from './webhooks.js';

export const SANDBOX_MERCHANT: Readonly<{ email: string; password: string; apiKey: string; publicKey: string }> =
  Object.freeze({
    email: 'treasury@sandbox.test',
    password: 'sandbox-password',
    apiKey: 'sk_sandbox_0123456789abcdef',
    publicKey: 'pk_sandbox_0123456789abcdef',
  });

const HOUR = 3600_000;

/** What each endpoint answers, for variety.ts. */
const ANSWERS: Readonly<Record<string, Answer>> = {
  '/api/v2/auth/login': 'login',
  '/api/v2/auth/refreshToken': 'refresh',
  '/api/v1/walletaddress/generate': 'generate',
  '/api/merchantClientWithdrawal': 'withdraw',
  [STATUS_PREFIX]: 'withdrawalStatus',
  '/api/v1/walletBalance/originAccounts': 'balances',
  '/api/v2/analytics/transaction-record': 'transactions',
  '/api/v1/merchant/remittancewebhook': 'webhook',
};

export interface SandboxOptions {
  /** Default 0 (a free port) on 127.0.0.1. */
  port?: number;
  host?: string;
  /** The sandbox's own log; password-reset OTPs are printed here. Default: silent. */
  logger?: Logger;
  /** Default true: clients, balances and ~60 transactions (seed.ts). */
  seed?: boolean;
  /** Access token lifetime, default 2 h. */
  tokenLifetimeMs?: number;
  /** Default 7 days. */
  refreshTokenLifetimeMs?: number;
  /** Unit of transactionTimeStamp and of the Start/EndTimeStamp filters. Default 'ms'. */
  timestampUnit?: TimestampUnit;
  webhook?: {
    /** When set, deliveries carry Standard Webhooks headers (webhook-id, -timestamp, -signature). */
    signingSecret?: string;
    /** First retry delay, default 1000 ms; doubles per attempt. */
    retryBaseMs?: number;
    /** Attempts per notification in all, default 8. */
    maxAttempts?: number;
    /** Cap on one retry delay, default 60 000 ms. */
    maxDelayMs?: number;
    /** Time from PENDING to CONFIRMED/FAILED, default 3000 ms. */
    confirmAfterMs?: number;
    /** Per-attempt receiver timeout, default 10 000 ms. */
    timeoutMs?: number;
  };
  /**
   * Largest PageSize the transaction list honours; larger requests are clamped to it (and the
   * answer says so). Default: SANDBOX_MAX_PAGE_SIZE, else 50.
   */
  maxPageSize?: number;
  /**
   * Answers in the documented alternative forms, drawn per response from this seed (variety.ts);
   * 'off': the one canonical form. Default: SANDBOX_VARIETY_SEED (a number or "off"), else seed 1.
   */
  variety?: number | 'off';
  /** Request body cap, default 1 MiB (larger bodies get 413). */
  maxBodyBytes?: number;
  /**
   * The merchants' withdrawal verification URL (the service dashboard's `verificationUrl`),
   * asked before each withdrawal is executed (verification.ts). A function is asked each time
   * (the app's own URL is known only once it listens). Unset: withdrawals are not verified.
   */
  verificationUrl?: VerificationUrl;
  /** How long the merchant has to answer a verification call, default 5000 ms. */
  verificationTimeoutMs?: number;
  now?: () => number;
}

export interface SandboxStats {
  /** Requests received at each endpoint, whatever became of them (faults included). */
  logins: number;
  refreshes: number;
  withdrawals: number;
  /** Withdrawals that passed validation and moved money. */
  withdrawalsCommitted: number;
  /** Every request received, in order; `path` is the request target (path and query). */
  requests: RecordedRequest[];
  /** Every verification call made to the merchant, in order, with its outcome. */
  verifications: Array<{ reference: string; verified: boolean; why?: string }>;
}

export interface NewMerchant {
  email: string;
  password: string;
  apiKey: string;
  publicKey: string;
  kyb?: KybName;
  role?: Role;
  businessName?: string;
}

export interface Sandbox {
  url: string;
  port: number;
  /** Stops the server, timers, pending webhook retries. Idempotent. */
  close(): Promise<void>;
  addMerchant(m: NewMerchant): void;
  setKyb(email: string, kyb: string): void;
  lastOtp(email: string): string | undefined;
  /** Lifetime of access tokens issued from now on. */
  setTokenLifetime(ms: number): void;
  /** Every access token issued so far now answers 401. */
  expireAccessTokens(): void;
  expireRefreshTokens(): void;
  stats: SandboxStats;
  /** The next `times` requests whose target starts with pathPrefix (case-insensitive) get the fault. */
  injectFault(pathPrefix: string, fault: Fault, times?: number): void;
  clearFaults(): void;
  /** Sets a client's balance; generates the client's address for that currency/network if needed. Merchant: the client's, else the sandbox merchant. */
  setBalance(clientEmail: string, currency: string, network: string, amount: string): void;
  balance(clientEmail: string, currency: string, network: string): string;
  /** The status endpoint answers `wire` (a code, numeric string or name) for this reference; undefined clears it. */
  setWithdrawalStatus(reference: string, wire: unknown): void;
  /** The status endpoint answers 503 for this reference (`'*'`: every one) while `on` (forgery.ts). */
  setWithdrawalStatusUnavailable(reference: string, on: boolean): void;
  /** Posts `payload` as JSON, unsigned, to the merchant's registered webhook URL, as anyone who learned it could (forgery.ts). */
  forgeWebhook(payload: unknown, merchantEmail?: string): Promise<ForgedDelivery>;
  /** The balances endpoint names the currency field `key` (as one public client reads it) instead of `currency`. */
  balancesUseKeyField(on: boolean): void;
  deposit(input: DepositInput): Promise<TransactionRecord>;
  remittance(input: RemittanceInput): Promise<Remittance>;
  /** Replaces the transaction list; missing fields get defaults, record i is i minutes older than now(). */
  resetTransactions(records?: Partial<TransactionRecord>[]): void;
  /** Copies, in insertion order. */
  transactions(): TransactionRecord[];
  /** Sets (or with undefined, removes) the verification URL, as the merchant does in the dashboard. */
  setVerificationUrl(url: VerificationUrl | undefined): void;
  webhook: {
    /** The registered URL of a merchant (default: the sandbox merchant). */
    url(merchantEmail?: string): string | undefined;
    deliveries: Delivery[];
  };
}

/** A positive whole number from the environment, else undefined. */
function envInt(name: string): number | undefined {
  const v = process.env[name]?.trim();
  return v && /^\d+$/.test(v) && Number(v) >= 1 ? Number(v) : undefined;
}

function businessNameFor(email: string): string {
  const domain = email.split('@')[1] ?? 'merchant';
  const name = domain.split('.')[0] ?? domain;
  return `${name.charAt(0).toUpperCase()}${name.slice(1)} Ltd`;
}

export async function createSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const now = opts.now ?? Date.now;
  const log = opts.logger ?? pino({ level: 'silent' });
  const unit: TimestampUnit = opts.timestampUnit ?? 'ms';
  const maxPageSize = opts.maxPageSize ?? envInt('SANDBOX_MAX_PAGE_SIZE') ?? MAX_PAGE_SIZE;
  const state = new SandboxState(SANDBOX_MERCHANT.email);
  state.addMerchant({ ...SANDBOX_MERCHANT, kyb: 'Approved', role: 'Merchant', businessName: 'Sandbox Treasury Ltd' });

  const tokens = new TokenStore(now, {
    accessMs: opts.tokenLifetimeMs ?? 2 * HOUR,
    refreshMs: opts.refreshTokenLifetimeMs ?? 7 * 24 * HOUR,
  });
  const otps = new OtpStore(now);
  const w = opts.webhook ?? {};
  const webhooks = new WebhookDispatcher(
    {
      ...(w.signingSecret ? { signingSecret: w.signingSecret } : {}),
      retryBaseMs: w.retryBaseMs ?? 1000,
      maxAttempts: w.maxAttempts ?? 8,
      maxDelayMs: w.maxDelayMs ?? 60_000,
      confirmAfterMs: w.confirmAfterMs ?? 3000,
      timeoutMs: w.timeoutMs ?? 10_000,
    },
    { now, log, urlFor: (email) => state.merchant(email)?.webhookUrl },
  );
  const faults = new FaultQueue();
  const stats: SandboxStats = {
    logins: 0,
    refreshes: 0,
    withdrawals: 0,
    withdrawalsCommitted: 0,
    requests: [],
    verifications: [],
  };
  let verificationUrl = opts.verificationUrl;

  if (opts.seed !== false) seedSandbox(state, SANDBOX_MERCHANT.email, now());

  const auth = { state, tokens, log, now };
  const statusOverrides = new Map<string, unknown>();
  const forgery: Forgery = { unavailable: new Set() };
  let keyField = false;
  const sim = { state, webhooks, now };
  const routes: Route[] = [
    { methods: ['POST'], path: '/api/v2/auth/login', envelope: 'v2', counter: 'logins', handle: (r) => login(auth, r) },
    {
      methods: ['POST', 'PUT'],
      path: '/api/v2/auth/refreshToken',
      envelope: 'v2',
      counter: 'refreshes',
      handle: (r) => refresh(auth, r),
    },
    {
      methods: ['POST'],
      path: '/api/v2/auth/password-reset/otp',
      envelope: 'v2',
      handle: (r) => requestOtp({ ...auth, otps }, r),
    },
    {
      methods: ['POST'],
      path: '/api/v2/auth/password-reset',
      envelope: 'v2',
      handle: (r) => resetPassword({ ...auth, otps }, r),
    },
    {
      methods: ['POST', 'GET'],
      path: '/api/v1/walletaddress/generate',
      envelope: 'v1',
      handle: (r) => generateAddress(auth, r),
    },
    {
      methods: ['POST'],
      path: '/api/merchantClientWithdrawal',
      envelope: 'v1',
      counter: 'withdrawals',
      handle: (r) =>
        withdraw(
          {
            ...auth,
            verificationUrl: () => (typeof verificationUrl === 'function' ? verificationUrl() : verificationUrl),
            ...(opts.verificationTimeoutMs !== undefined ? { verificationTimeoutMs: opts.verificationTimeoutMs } : {}),
            onVerified: (v) => stats.verifications.push(v),
            onCommitted: (tx) => {
              stats.withdrawalsCommitted += 1;
              webhooks.lifecycle(tx.merchantEmail, 'withdrawal', (s) => withdrawalPayload(tx, s), 'CONFIRMED');
            },
          },
          r,
        ),
    },
    {
      methods: ['GET'],
      path: STATUS_PREFIX,
      prefix: true,
      envelope: 'v1',
      handle: (r) =>
        statusUnavailable(forgery, r, STATUS_PREFIX) ?? withdrawalStatus({ ...auth, overrides: statusOverrides }, r),
    },
    {
      methods: ['GET'],
      path: '/api/v1/walletBalance/originAccounts',
      envelope: 'v1',
      handle: (r) => originBalances({ ...auth, keyField: () => keyField }, r),
    },
    {
      methods: ['GET'],
      path: '/api/v2/analytics/transaction-record',
      envelope: 'v2',
      handle: (r) => listTransactions({ ...auth, unit, maxPageSize, transactions: () => state.transactions() }, r),
    },
    {
      methods: ['PUT'],
      path: '/api/v1/merchant/remittancewebhook',
      envelope: 'v1',
      handle: (r) => registerWebhook(auth, r),
    },
    { methods: ['POST'], path: '/sandbox/deposits', envelope: 'control', handle: (r) => depositRoute(sim, r) },
    { methods: ['POST'], path: '/sandbox/remittances', envelope: 'control', handle: (r) => remittanceRoute(sim, r) },
    // Test-only (forgery.ts): a forged webhook, and a status operation that says otherwise or is unavailable.
    {
      methods: ['POST'],
      path: FORGED_WEBHOOKS_PATH,
      envelope: 'control',
      handle: (r) =>
        forgedWebhookRoute({ urlFor: (email) => state.merchant(email ?? SANDBOX_MERCHANT.email)?.webhookUrl }, r),
    },
    {
      methods: ['POST'],
      path: STATUS_CONTROL_PATH,
      envelope: 'control',
      handle: (r) => statusControlRoute({ overrides: statusOverrides, forgery }, r),
    },
  ];

  // Every answer of the service's own endpoints, in a form drawn from its documented alternatives.
  const seed = varietySeed(opts.variety);
  const variety = seed === undefined ? undefined : createVariety(seed);
  const served = variety
    ? routes.map((r) => {
        const answer = ANSWERS[r.path] ?? 'other';
        return { ...r, handle: async (req: SandboxRequest) => variety.vary(answer, req, await r.handle(req)) };
      })
    : routes;
  const server = await startHttpServer(
    {
      routes: served,
      faults,
      log,
      maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
      onRequest: (rec, route) => {
        stats.requests.push(rec);
        if (route?.counter) stats[route.counter] += 1;
      },
    },
    opts.host ?? '127.0.0.1',
    opts.port ?? 0,
  );
  const host = opts.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
  log.info({ url }, 'sandbox wallet service listening');

  const asset = (currency: string, network: string) => {
    const c = lookup(CURRENCIES, currency);
    const n = lookup(NETWORKS, network);
    if (!c) throw new Error(`unknown currency ${currency}`);
    if (!n) throw new Error(`unknown network ${network}`);
    return { c, n };
  };
  const merchantFor = (clientEmail: string) => state.merchantOfClient(clientEmail)?.email ?? SANDBOX_MERCHANT.email;

  let closing: Promise<void> | undefined;
  return {
    url,
    port: server.port,
    close: () => {
      closing ??= (async () => {
        webhooks.close();
        await server.close();
      })();
      return closing;
    },
    addMerchant: (m) => {
      const kyb = m.kyb === undefined ? 'Approved' : lookup(KYB_STATUSES, m.kyb)?.name;
      if (!kyb) throw new Error(`unknown KYB status ${m.kyb}`);
      state.addMerchant({
        email: m.email,
        password: m.password,
        apiKey: m.apiKey,
        publicKey: m.publicKey,
        kyb: kyb as KybName,
        role: m.role ?? 'Merchant',
        businessName: m.businessName ?? businessNameFor(m.email),
      });
    },
    setKyb: (email, kyb) => {
      const m = state.merchant(email);
      if (!m) throw new Error(`no merchant ${email}`);
      const k = lookup(KYB_STATUSES, kyb);
      if (!k) throw new Error(`unknown KYB status ${kyb}`);
      m.kyb = k.name as KybName;
    },
    lastOtp: (email) => otps.lastOtp(email),
    setTokenLifetime: (ms) => {
      tokens.lifetimes.accessMs = ms;
    },
    expireAccessTokens: () => tokens.expireAccess(),
    expireRefreshTokens: () => tokens.expireRefresh(),
    stats,
    injectFault: (prefix, fault, times = 1) => faults.inject(prefix, fault, times),
    clearFaults: () => faults.clear(),
    setBalance: (clientEmail, currency, network, amount) => {
      const { c, n } = asset(currency, network);
      const value = parseMoney(amount);
      if (!value || value.lt(0)) throw new Error(`not a balance: ${amount}`);
      const merchant = merchantFor(clientEmail);
      state.ensureAddress(merchant, clientEmail, c, n);
      state.setBalance(merchant, clientEmail, c, n, value);
    },
    balance: (clientEmail, currency, network) => {
      const { c, n } = asset(currency, network);
      return formatMoney(state.balance(merchantFor(clientEmail), clientEmail, c, n));
    },
    setWithdrawalStatus: (reference, wire) => {
      if (wire === undefined) statusOverrides.delete(reference);
      else statusOverrides.set(reference, wire);
    },
    setWithdrawalStatusUnavailable: (reference, on) => {
      if (on) forgery.unavailable.add(reference || ALL_REFERENCES);
      else forgery.unavailable.delete(reference || ALL_REFERENCES);
    },
    forgeWebhook: (payload, merchantEmail = SANDBOX_MERCHANT.email) =>
      postForged(state.merchant(merchantEmail)?.webhookUrl, stringifyJson(payload)),
    balancesUseKeyField: (on) => {
      keyField = on;
    },
    deposit: async (input) => simulateDeposit(sim, input),
    remittance: async (input) => simulateRemittance(sim, input),
    resetTransactions: (records = []) => {
      const t = now();
      state.replaceTransactions(records.map((p, i) => state.completeRecord(p, i, t)));
    },
    transactions: () => state.transactions().map((tx) => ({ ...tx })),
    setVerificationUrl: (url) => {
      verificationUrl = url;
    },
    webhook: {
      url: (merchantEmail = SANDBOX_MERCHANT.email) => state.merchant(merchantEmail)?.webhookUrl,
      deliveries: webhooks.deliveries,
    },
  };
}
