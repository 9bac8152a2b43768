/**
 * A transaction-list record as the wallet client returns it (src/wallet/schemas.ts), for tests
 * and benchmarks of what reads the list (digest, chart, exports): a confirmed 1 USDT deposit on
 * BSC with no hash, addresses or time unless `p` says otherwise.
 */
import type { TransactionRecord } from '../../src/wallet/schemas.js';

export function transactionRecord(p: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    status: 'successful',
    type: 'deposit',
    hash: null,
    hashUrl: null,
    toAddress: null,
    fromAddress: null,
    toAddressUrl: null,
    fromAddressUrl: null,
    amount: '1',
    currency: undefined,
    currencyName: 'USDT',
    network: undefined,
    networkName: 'BSC',
    timestamp: undefined,
    reference: null,
    createdAt: null,
    raw: {},
    ...p,
  };
}
