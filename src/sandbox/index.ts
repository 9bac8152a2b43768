/**
 * The embedded sandbox wallet service: the spec + docs/wallet-service-choices.md over real
 * HTTP on node:http, with test controls (fault injection, token expiry, balances,
 * simulated deposits) as methods. Used in-process by tests and the app's local mode, and
 * alone through `npm run sandbox` (cli.ts). Choices the docs leave open are listed in
 * src/sandbox/README.md. The route table is routes.ts; the options and controls' types, types.ts.
 */
import { pino } from 'pino';
import { stringifyJson } from '../wallet/json.js';
import { KYB_STATUSES, CURRENCIES, NETWORKS, lookup } from '../wallet/enums.js';
import { OtpStore, TokenStore } from './auth.js';
import { simulateDeposit, simulateRemittance, type DepositInput, type RemittanceInput } from './deposits.js';
import { FaultQueue, type Fault } from './faults.js';
import { startHttpServer, type RecordedRequest } from './http.js';
import { createVariety, varietySeed } from './variety.js';
import { formatMoney, parseMoney } from './money.js';
import { sandboxRoutes } from './routes.js';
import { createSandboxPrices } from './prices.js';
import { createSandboxScreening } from './screening.js';
import { seedSandbox } from './seed.js';
import { SandboxState, type KybName, type Role, type TransactionRecord } from './state.js';
import { MAX_PAGE_SIZE, type TimestampUnit } from './transactions.js';
import type { Remittance } from './webhook-payloads.js';
import { WebhookDispatcher, type Delivery } from './webhooks.js';
import { ALL_REFERENCES, postForged, type ForgedDelivery, type Forgery } from './forgery.js';
import { SANDBOX_MERCHANT, type Sandbox, type SandboxOptions, type SandboxStats } from './types.js';

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
export type { NewMerchant, Sandbox, SandboxOptions, SandboxStats } from './types.js';
export { SANDBOX_MERCHANT } from './types.js';
export { SimulationError } from './deposits.js';
export { webhookChecksum, canonicalJson } from './webhook-payloads.js';
export { signWebhook } from './webhooks.js';

const HOUR = 3600_000;

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

  const statusOverrides = new Map<string, unknown>();
  const forgery: Forgery = { unavailable: new Set() };
  let keyField = false;
  const prices = createSandboxPrices();
  const screening = createSandboxScreening();
  const sim = { state, webhooks, now };
  const seed = varietySeed(opts.variety);
  const routes = sandboxRoutes(
    {
      state,
      tokens,
      otps,
      webhooks,
      stats,
      log,
      now,
      unit,
      maxPageSize,
      verificationUrl: () => verificationUrl,
      verificationTimeoutMs: opts.verificationTimeoutMs,
      verificationFields: opts.verificationFields === true,
      statusOverrides,
      forgery,
      keyField: () => keyField,
      prices,
      screening,
    },
    seed === undefined ? undefined : createVariety(seed),
  );
  const server = await startHttpServer(
    {
      routes,
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
    screening,
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
