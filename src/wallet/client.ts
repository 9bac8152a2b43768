/**
 * The wallet-service client: one typed function per operation of the spec.
 *
 * Retry policy, by what a repeat can do:
 * - reads, login/refresh, address generation (same inputs give the same address) and the
 *   webhook PUT (it replaces) are idempotent: retried on network errors and 5xx with
 *   backoff, within the call's deadline;
 * - the withdrawal POST is never repeated by this client (see `withdraw`);
 * - password-reset calls are not repeated either (each may send a mail or change the password).
 *
 * This file only assembles the client; the ways to call are in client/calls.ts and each
 * operation group has a file of its own in client/ (password-reset, generate-address,
 * withdraw, transactions, webhook).
 */
import { createWalletCalls } from './client/calls.js';
import { generateAddress } from './client/generate-address.js';
import { requestPasswordResetOtp, resetPassword } from './client/password-reset.js';
import { listTransactions } from './client/transactions.js';
import type { WalletClient, WalletClientOptions } from './client/types.js';
import { setWebhookUrl } from './client/webhook.js';
import { withdraw } from './client/withdraw.js';
import { withdrawalStatus } from './client/withdrawal-status.js';
import { originBalances } from './client/balances.js';
import { DEFAULT_WALLET_PAGE_SIZE } from './pager.js';

export type {
  CurrencyInput,
  GenerateAddressInput,
  NetworkInput,
  TransactionFilter,
  WalletClient,
  WalletClientOptions,
  WithdrawInput,
} from './client/types.js';

export function createWalletClient(o: WalletClientOptions): WalletClient {
  const c = createWalletCalls(o);
  return {
    login: () => c.guard('login', () => c.session.login()),
    refresh: () => c.guard('refresh', () => c.session.refresh()),
    authState: () => c.session.state(),
    close: () => c.session.stop(),
    requestPasswordResetOtp: (email) => requestPasswordResetOtp(c, email),
    resetPassword: (i) => resetPassword(c, i),
    generateAddress: (i) => generateAddress(c, i),
    withdraw: (i) => withdraw(c, i),
    listTransactions: (f = {}) => listTransactions(c, f),
    setWebhookUrl: (url) => setWebhookUrl(c, url),
    withdrawalStatus: (reference) => withdrawalStatus(c, reference),
    originBalances: () => originBalances(c),
    pageSize: o.pageSize ?? DEFAULT_WALLET_PAGE_SIZE,
  };
}
