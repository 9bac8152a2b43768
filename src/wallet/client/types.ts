/** The wallet client's public types: its options, the inputs of its operations and its interface. */
import type { RefreshMethod, TimestampUnit } from '../assumptions.js';
import type { CurrencyMember, EnumMember } from '../enums.js';
import type { Logger } from '../../log.js';
import type { WalletOperation } from '../errors.js';
import type { SecretRegistry } from '../../secrets.js';
import type { Session, TransactionPage, WalletAddress, WithdrawalResult } from '../schemas.js';

export interface WalletClientOptions {
  /** Refresh the session token in the background ahead of its expiry (src/wallet/session.ts); default off. */
  refreshAhead?: boolean;
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
  /** After each operation (metrics): its outcome (ok, a WalletError kind, internal_error) and duration. */
  onCall?: (op: WalletOperation, outcome: string, seconds: number) => void;
  /** Before each POST or PUT: throws to stop it unsent (a replica that no longer leads; src/store/pg/leader.ts). */
  beforeWrite?: () => void;
  /** Default: the process registry. Every token obtained is added to it. */
  secrets?: SecretRegistry;
  /** Page size of every multi-page read of the transaction list (pager.ts). Default 50 (WALLET_PAGE_SIZE). */
  pageSize?: number;
}

/** The service's status of one withdrawal, by its merchant reference (withdrawal-status.ts reads it). */
export type WithdrawalStatusName = 'not_found' | 'pending' | 'completed' | 'failed';

export interface WithdrawalStatus {
  status: WithdrawalStatusName;
  merchantReference: string;
  /** Exact decimal text, when the service says. */
  amount: string | null;
  destinationAddress: string | null;
  transactionHash: string | null;
}

/** One origin account's balance (balances.ts reads them). */
export interface OriginBalance {
  /** Canonical currency name (USDT), or the service's text when unknown. */
  currency: string;
  /** Canonical network name (BSC), or the service's text when unknown. */
  network: string;
  /** Exact decimal text. */
  balance: string;
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
  /** The service's status of a withdrawal by our merchant reference (never a resend). */
  withdrawalStatus(reference: string): Promise<WithdrawalStatus>;
  /** Balances of the merchant's origin accounts, per currency and network. */
  originBalances(): Promise<OriginBalance[]>;
  authState(): { loggedIn: boolean; expiresAt?: number; email: string };
  /** Page size of multi-page reads (pager.ts); optional so test doubles need not have it. */
  readonly pageSize?: number;
  /** Stops background work (the refresh ahead of expiry); optional so test doubles need not have it. */
  close?(): void;
}
