/**
 * What the embedded sandbox takes and gives: its options, its counters and its test controls.
 * Apart from createSandbox (index.ts) so the route table and the controls can name them.
 */
import type { SandboxScreening } from './screening.js';
import type { Logger } from '../log.js';
import type { DepositInput, RemittanceInput } from './deposits.js';
import type { Fault } from './faults.js';
import type { ForgedDelivery } from './forgery.js';
import type { RecordedRequest } from './http.js';
import type { KybName, Role, TransactionRecord } from './state.js';
import type { TimestampUnit } from './transactions.js';
import type { Remittance } from './webhook-payloads.js';
import type { Delivery } from './webhooks.js';
import type { VerificationUrl } from './verification.js';

export const SANDBOX_MERCHANT: Readonly<{ email: string; password: string; apiKey: string; publicKey: string }> =
  Object.freeze({
    email: 'treasury@sandbox.test',
    password: 'sandbox-password',
    apiKey: 'sk_sandbox_0123456789abcdef',
    publicKey: 'pk_sandbox_0123456789abcdef',
  });

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
  /**
   * The verification call also carries the withdrawal's `amount`, `currency`, `networkChain` and
   * `destinationAddress`, as the withdrawal was posted, as a deployment may send them. Default
   * off: the documented call, `reference` only.
   */
  verificationFields?: boolean;
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
  /** The sanctions list and provider it serves (screening.ts): tests list, delist and take them down. */
  screening: SandboxScreening;
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
