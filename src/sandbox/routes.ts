/**
 * The sandbox's route table, by area: the service's auth endpoints, its wallet endpoints, and
 * the sandbox's own control endpoints (simulations, and the test-only forgeries). Each entry
 * only names its handler (in the area's file); the state it reads is passed in, and what
 * changes at run time (the verification URL, the balances' field name) is read through a
 * function at the moment of the request.
 */
import type { Logger } from '../log.js';
import { login, type OtpStore, refresh, requestOtp, resetPassword, type TokenStore } from './auth.js';
import { depositRoute, remittanceRoute } from './deposits.js';
import {
  FORGED_WEBHOOKS_PATH,
  forgedWebhookRoute,
  STATUS_CONTROL_PATH,
  statusControlRoute,
  statusUnavailable,
  type Forgery,
} from './forgery.js';
import { generateAddress } from './generate-address.js';
import type { Route, SandboxRequest } from './http.js';
import { originBalances } from './balances.js';
import type { SandboxState } from './state.js';
import { listTransactions, type TimestampUnit } from './transactions.js';
import { SANDBOX_MERCHANT, type SandboxStats } from './types.js';
import type { Answer, createVariety } from './variety.js';
import type { VerificationUrl } from './verification.js';
import { withdrawalPayload } from './webhook-payloads.js';
import { registerWebhook, type WebhookDispatcher } from './webhooks.js';
import { withdraw } from './withdrawals.js';
import { STATUS_PREFIX, withdrawalStatus } from './withdrawal-status.js';
import {
  PRICES_CONTROL_PATH,
  pricesControlRoute,
  SIMPLE_PRICE_PATH,
  COINS_PATH,
  coinHistory,
  simplePrice,
  type SandboxPrices,
} from './prices.js';
import {
  SANCTIONS_PREFIX,
  SCREENING_API_PREFIX,
  SCREENING_CONTROL_PATH,
  sanctionsFile,
  screeningAnswer,
  screeningControlRoute,
  type ScreeningState,
} from './screening.js';

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

export interface RouteParts {
  state: SandboxState;
  tokens: TokenStore;
  otps: OtpStore;
  webhooks: WebhookDispatcher;
  stats: SandboxStats;
  log: Logger;
  now: () => number;
  unit: TimestampUnit;
  maxPageSize: number;
  verificationUrl: () => VerificationUrl | undefined;
  verificationTimeoutMs: number | undefined;
  verificationFields: boolean;
  statusOverrides: Map<string, unknown>;
  forgery: Forgery;
  keyField: () => boolean;
  prices: SandboxPrices;
  screening: ScreeningState;
}

function authRoutes(p: RouteParts): Route[] {
  const auth = { state: p.state, tokens: p.tokens, log: p.log, now: p.now };
  return [
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
      handle: (r) => requestOtp({ ...auth, otps: p.otps }, r),
    },
    {
      methods: ['POST'],
      path: '/api/v2/auth/password-reset',
      envelope: 'v2',
      handle: (r) => resetPassword({ ...auth, otps: p.otps }, r),
    },
  ];
}

function walletRoutes(p: RouteParts): Route[] {
  const auth = { state: p.state, tokens: p.tokens, log: p.log, now: p.now };
  return [
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
            verificationUrl: () => {
              const url = p.verificationUrl();
              return typeof url === 'function' ? url() : url;
            },
            ...(p.verificationTimeoutMs !== undefined ? { verificationTimeoutMs: p.verificationTimeoutMs } : {}),
            verificationFields: p.verificationFields,
            onVerified: (v) => p.stats.verifications.push(v),
            onCommitted: (tx) => {
              p.stats.withdrawalsCommitted += 1;
              p.webhooks.lifecycle(tx.merchantEmail, 'withdrawal', (s) => withdrawalPayload(tx, s), 'CONFIRMED');
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
        statusUnavailable(p.forgery, r, STATUS_PREFIX) ??
        withdrawalStatus({ ...auth, overrides: p.statusOverrides }, r),
    },
    {
      methods: ['GET'],
      path: '/api/v1/walletBalance/originAccounts',
      envelope: 'v1',
      handle: (r) => originBalances({ ...auth, keyField: p.keyField }, r),
    },
    {
      methods: ['GET'],
      path: '/api/v2/analytics/transaction-record',
      envelope: 'v2',
      handle: (r) =>
        listTransactions(
          { ...auth, unit: p.unit, maxPageSize: p.maxPageSize, transactions: () => p.state.transactions() },
          r,
        ),
    },
    // The sanctions list and a Chainalysis-compatible sanctions API (screening.ts), for the app's screening.
    {
      methods: ['GET'],
      path: SANCTIONS_PREFIX,
      prefix: true,
      envelope: 'control',
      handle: (r) => sanctionsFile(p.screening, r),
    },
    {
      methods: ['GET'],
      path: SCREENING_API_PREFIX,
      prefix: true,
      envelope: 'control',
      handle: (r) => screeningAnswer(p.screening, r),
    },
    // CoinGecko's price API shape (prices.ts), for the app's price cache.
    { methods: ['GET'], path: SIMPLE_PRICE_PATH, envelope: 'control', handle: (r) => simplePrice(p.prices, r, p.now) },
    {
      methods: ['GET'],
      path: COINS_PATH,
      prefix: true,
      envelope: 'control',
      handle: (r) => coinHistory(p.prices, r, p.now),
    },
    {
      methods: ['PUT'],
      path: '/api/v1/merchant/remittancewebhook',
      envelope: 'v1',
      handle: (r) => registerWebhook(auth, r),
    },
  ];
}

function controlRoutes(p: RouteParts): Route[] {
  const sim = { state: p.state, webhooks: p.webhooks, now: p.now };
  return [
    { methods: ['POST'], path: '/sandbox/deposits', envelope: 'control', handle: (r) => depositRoute(sim, r) },
    { methods: ['POST'], path: '/sandbox/remittances', envelope: 'control', handle: (r) => remittanceRoute(sim, r) },
    // Test-only (forgery.ts): a forged webhook, and a status operation that says otherwise or is unavailable.
    {
      methods: ['POST'],
      path: FORGED_WEBHOOKS_PATH,
      envelope: 'control',
      handle: (r) =>
        forgedWebhookRoute({ urlFor: (email) => p.state.merchant(email ?? SANDBOX_MERCHANT.email)?.webhookUrl }, r),
    },
    {
      methods: ['POST'],
      path: STATUS_CONTROL_PATH,
      envelope: 'control',
      handle: (r) => statusControlRoute({ overrides: p.statusOverrides, forgery: p.forgery }, r),
    },
    {
      methods: ['POST'],
      path: SCREENING_CONTROL_PATH,
      envelope: 'control',
      handle: (r) => screeningControlRoute(p.screening, r),
    },
    {
      methods: ['POST'],
      path: PRICES_CONTROL_PATH,
      envelope: 'control',
      handle: (r) => pricesControlRoute(p.prices, r),
    },
  ];
}

/**
 * Every route, in the order they are matched; with a variety, every answer of the service's
 * own endpoints is drawn from its documented alternative forms.
 */
export function sandboxRoutes(p: RouteParts, variety: ReturnType<typeof createVariety> | undefined): Route[] {
  const routes = [...authRoutes(p), ...walletRoutes(p), ...controlRoutes(p)];
  if (!variety) return routes;
  return routes.map((r) => {
    const answer = ANSWERS[r.path] ?? 'other';
    return { ...r, handle: async (req: SandboxRequest) => variety.vary(answer, req, await r.handle(req)) };
  });
}
