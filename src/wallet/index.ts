export { createWalletClient } from './client.js';
export type {
  WalletClient,
  WalletClientOptions,
  GenerateAddressInput,
  WithdrawInput,
  TransactionFilter,
  CurrencyInput,
  NetworkInput,
} from './client.js';
export * from './errors.js';
export type {
  Session,
  WalletAddress,
  AddressStatus,
  WithdrawalResult,
  TransactionRecord,
  TransactionPage,
} from './schemas.js';
export { DEFAULT_ASSUMPTIONS, type WalletAssumptions } from './assumptions.js';
export type { OriginBalance } from './client/types.js';
export type { WithdrawalStatus, WithdrawalStatusName } from './client/withdrawal-status.js';
export {
  DEFAULT_WALLET_PAGE_SIZE,
  incompleteNote,
  readAllTransactions,
  transactionPages,
  type PagedRead,
  type PageProgress,
} from './pager.js';
