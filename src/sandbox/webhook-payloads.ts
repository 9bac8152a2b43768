/**
 * Webhook bodies exactly as docs/wallet-service-choices.md fixes them: the deposit in the
 * PascalCase of the public sample, withdrawal and remittance in camelCase. Amounts are
 * exact JSON numbers. The checksum is SHA-512 (upper-case hex) of the canonical JSON of
 * the data object without its checksum field.
 */
import { createHash } from 'node:crypto';
import { isLosslessNumber } from 'lossless-json';
import { CURRENCIES, lookup } from '../wallet/enums.js';
import { jsonDecimal, stringifyJson } from '../wallet/json.js';
import { Money, formatMoney } from './money.js';
import type { TransactionRecord } from './state.js';

export type NotifyStatus = 'PENDING' | 'CONFIRMED' | 'FAILED';
export const STATUS_CODES: Readonly<Record<NotifyStatus, number>> = { PENDING: 2, CONFIRMED: 3, FAILED: 4 };

function sortKeys(value: unknown): unknown {
  if (isLosslessNumber(value) || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortKeys);
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

/** Keys sorted at every level, no whitespace, numbers with their exact digits. */
export function canonicalJson(value: unknown): string {
  return stringifyJson(sortKeys(value));
}

/** SHA-512 upper-case hex of the canonical JSON of `data` minus its checksum field (either casing). */
export function webhookChecksum(data: Record<string, unknown>): string {
  const rest = Object.fromEntries(Object.entries(data).filter(([k]) => k !== 'Checksum' && k !== 'checksum'));
  return createHash('sha512').update(canonicalJson(rest)).digest('hex').toUpperCase();
}

const currencyCode = (name: string) => lookup(CURRENCIES, name)?.code ?? 0;

export function depositPayload(tx: TransactionRecord, status: NotifyStatus): unknown {
  const charge = new Money(tx.charge);
  const data = {
    Amount: jsonDecimal(formatMoney(new Money(tx.amount))),
    Charge: jsonDecimal(formatMoney(charge)),
    // The public docs: "the total of the amount and charge on this transaction".
    TotalAmountDeposited: jsonDecimal(formatMoney(new Money(tx.amount).plus(charge))),
    // The public docs: DepositAddress is where the funds come from, ReceiveAddress the generated address.
    DepositAddress: tx.fromAddress,
    ReceiveAddress: tx.toAddress,
    Currency: currencyCode(tx.currency),
    NetworkChain: tx.network,
    Status: STATUS_CODES[status],
    MerchantClient: { Email: tx.clientEmail ?? '' },
    TransactionHash: tx.transactionHash,
  };
  return { TransactionType: 1, Data: { Checksum: webhookChecksum(data), ...data } };
}

export function withdrawalPayload(tx: TransactionRecord, status: NotifyStatus): unknown {
  const data = {
    receiverAddress: tx.toAddress,
    amountRequested: jsonDecimal(formatMoney(new Money(tx.amount))),
    amountSent: jsonDecimal(formatMoney(new Money(tx.amount))),
    charge: jsonDecimal(formatMoney(new Money(tx.charge))),
    currency: currencyCode(tx.currency),
    networkChain: tx.network,
    status: STATUS_CODES[status],
    transactionHash: tx.transactionHash,
    merchantReference: tx.reference,
  };
  return { transactionType: 'WITHDRAW', data: { checksum: webhookChecksum(data), ...data } };
}

export interface Remittance {
  reference: string;
  amount: string;
  charge: string;
  currency: string;
  network: string;
  senderAddress: string;
  receiverAddress: string;
  transactionHash: string;
  merchantEmail: string;
  status: 'CONFIRMED' | 'FAILED';
}

export function remittancePayload(r: Remittance, status: NotifyStatus): unknown {
  const data = {
    amount: jsonDecimal(formatMoney(new Money(r.amount))),
    charge: jsonDecimal(formatMoney(new Money(r.charge))),
    currency: currencyCode(r.currency),
    networkChain: r.network,
    status: STATUS_CODES[status],
    transactionHash: r.transactionHash,
    senderAddress: r.senderAddress,
    receiverAddress: r.receiverAddress,
    reference: r.reference,
  };
  return { transactionType: 5, data: { checksum: webhookChecksum(data), ...data } };
}
