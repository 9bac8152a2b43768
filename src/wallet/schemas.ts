/**
 * zod schemas of every request we send and every response we accept, and the typed
 * results the client hands out. Responses are parsed with lossless JSON, so numbers
 * arrive as LosslessNumber: codes become plain numbers, amounts exact decimal text.
 * Response objects are loose (unknown fields kept): the service may add fields, and
 * that must not break us.
 */
import { isLosslessNumber } from 'lossless-json';
import { z } from 'zod';
import { Decimal } from 'decimal.js';
import {
  ADDRESS_GENERATION_STATUSES,
  CURRENCIES,
  enumSchema,
  lookup,
  NETWORKS,
  TX_STATUSES,
  TX_TYPES,
  type CurrencyMember,
  type EnumMember,
} from './enums.js';
import { wireDecimal, wireNumber, wireStatus } from './json.js';

const unwrapLossless = (v: unknown) => (isLosslessNumber(v) ? v.toString() : v);

/** A string field that some deployments send as a number (codes, ids). */
const wireText = z.preprocess((v) => {
  const u = unwrapLossless(v);
  return typeof u === 'number' ? String(u) : u;
}, z.string());

/** An enum in any of its wire forms (code, numeric string, name), yielding the member. */
function wireEnum<T extends EnumMember>(members: readonly T[], label: string) {
  return z.preprocess(
    (v) => {
      const u = unwrapLossless(v);
      return typeof u === 'string' && /^\d+$/.test(u.trim()) ? Number(u) : u;
    },
    enumSchema(members, label),
  );
}

export const wireCurrency = wireEnum(CURRENCIES, 'currency');
export const wireNetwork = wireEnum(NETWORKS, 'network');

// ---------------------------------------------------------------- envelopes

/** v1 envelope: `{ status: 1 | 0, message, data }`. */
export function v1Envelope<T extends z.ZodType>(data: T) {
  return z.looseObject({ status: wireStatus, message: z.string().nullish(), data });
}

/** v2 envelope: `{ data, isSuccessful, message, httpStatusCode }`. */
export function v2Envelope<T extends z.ZodType>(data: T) {
  return z.looseObject({
    data,
    isSuccessful: z.boolean().optional(),
    message: z.string().nullish(),
    httpStatusCode: wireNumber.optional(),
  });
}

/** Any error body we know of: v1 failure, v2 envelope, RFC 7807 problem. Used only to find a message. */
export const errorBodySchema = z.looseObject({
  status: z.unknown().optional(),
  message: z.string().nullish(),
  isSuccessful: z.boolean().optional(),
  data: z.unknown().optional(),
  title: z.string().nullish(),
  detail: z.string().nullish(),
});

// ---------------------------------------------------------------- auth

export const loginRequestSchema = z.object({ email: z.string().min(1), password: z.string().min(1) });

const loginDataSchema = z.looseObject({
  token: z.string().min(1),
  refreshToken: z.string().min(1),
  expiresAtTimestamp: wireNumber,
  email: z.string().nullish(),
  businessName: z.string().nullish(),
  roles: z.array(z.string()).nullish(),
});

/** Login and refresh answer the same way; `roles` may sit inside `data` or beside it. */
export const loginResponseSchema = v2Envelope(loginDataSchema).extend({ roles: z.array(z.string()).nullish() });

/**
 * An e-mail address, as every edge checks one (a client's, in commands and forms). Built once:
 * constructing a zod schema costs far more than running it, and commands check one per request.
 */
export const emailAddress = z.email();

export const passwordResetOtpRequestSchema = z.object({ email: z.email() });
export const passwordResetRequestSchema = z.object({
  email: z.email(),
  otp: z.string().trim().min(1),
  newPassword: z.string().min(1),
});
/** Reset answers carry `data: null`; an empty body is accepted too. */
export const passwordResetResponseSchema = v2Envelope(z.unknown());

export interface Session {
  email: string;
  /** Unix ms at which the access token expires. */
  expiresAt: number;
  roles: string[];
  businessName?: string;
}

// ---------------------------------------------------------------- wallet address

export const generateAddressInputSchema = z.object({
  clientEmail: z.email('clientEmail must be an e-mail address'),
  currency: z.unknown(),
  network: z.unknown(),
});

// Pending and failed generations carry no address yet (empty or null); a generated one must.
const walletAddressDataSchema = z
  .looseObject({
    address: z.string().nullish(),
    merchantClientId: wireText,
    // A code, a numeric string or a name (1 generated, 2 pending generation, 3 generation failed).
    addressGenerationStatus: z.preprocess((v) => {
      const u = unwrapLossless(v);
      return typeof u === 'string' && !/^\s*\d+\s*$/.test(u) ? (lookup(ADDRESS_GENERATION_STATUSES, u)?.code ?? u) : u;
    }, wireNumber),
    addressGenerationMessage: z.string().nullish(),
    addressGenerationTransactionHash: z.string().nullish(),
  })
  .refine((d) => d.addressGenerationStatus !== 1 || !!d.address?.trim(), {
    message: 'a generated address is empty',
    path: ['address'],
  });
export const generateAddressResponseSchema = v1Envelope(walletAddressDataSchema);

export type AddressStatus = 'generated' | 'pending' | 'failed' | 'unknown';

export interface WalletAddress {
  /** Empty while generation is pending or after it failed. */
  address: string;
  merchantClientId: string;
  status: AddressStatus;
  statusCode: number;
  message: string | null;
  transactionHash: string | null;
}

export function toWalletAddress(d: z.output<typeof walletAddressDataSchema>): WalletAddress {
  const m = lookup(ADDRESS_GENERATION_STATUSES, d.addressGenerationStatus);
  return {
    address: d.address ?? '',
    merchantClientId: d.merchantClientId,
    status: (m?.name as AddressStatus | undefined) ?? 'unknown',
    statusCode: d.addressGenerationStatus,
    message: d.addressGenerationMessage ?? null,
    transactionHash: d.addressGenerationTransactionHash ?? null,
  };
}

// ---------------------------------------------------------------- withdrawal

/** Exact decimal text that is also a valid JSON number: no sign, exponent or stray zeros. */
const DECIMAL_TEXT = /^(0|[1-9]\d*)(\.\d+)?$/;

export const withdrawInputSchema = z.object({
  amount: z
    .string('amount must be decimal text such as "12.5"')
    .regex(DECIMAL_TEXT, 'amount must be a plain positive decimal such as 12.5 (no sign, exponent or grouping)')
    // zod runs refinements even after the regex failed, so the refinement re-checks the form.
    .refine((s) => !DECIMAL_TEXT.test(s) || new Decimal(s).gt(0), 'amount must be greater than zero'),
  destinationAddress: z.string().trim().min(1, 'destinationAddress is required'),
  clientEmail: z.email('clientEmail must be an e-mail address'),
  merchantReference: z
    .string()
    .trim()
    .min(1, 'merchantReference is required')
    .max(128, 'merchantReference is too long'),
  description: z.string().optional(),
});

const withdrawalDataSchema = z
  .looseObject({
    destinationAddress: z.string(),
    paymentCurrency: wireCurrency,
    networkChain: wireNetwork,
    withdrawnAmount: wireDecimal,
    transactionCharge: wireDecimal.nullish(),
    withdrawnAmountRequested: wireDecimal.nullish(),
    paymentDescription: z.string().nullish(),
    merchantTransactionReference: z.string().nullish(),
    switchWalletTransactionReference: z.string().nullish(),
    serviceTransactionReference: z.string().nullish(),
    transactionChargeCurrency: wireCurrency.nullish(),
  })
  .refine((d) => !!(d.switchWalletTransactionReference || d.serviceTransactionReference), {
    message: 'missing the service transaction reference',
    path: ['serviceTransactionReference'],
  });
export const withdrawResponseSchema = v1Envelope(withdrawalDataSchema);

export interface WithdrawalResult {
  /** The service's own reference (wire: switchWalletTransactionReference or serviceTransactionReference). */
  serviceReference: string;
  merchantReference: string | null;
  destinationAddress: string;
  currency: CurrencyMember;
  network: EnumMember;
  /** Exact decimal text. */
  amount: string;
  amountRequested: string | null;
  fee: string | null;
  feeCurrency: CurrencyMember | null;
  description: string | null;
  message: string | null;
  /** The `data` object as received (numbers as LosslessNumber). */
  raw: Record<string, unknown>;
}

export function toWithdrawalResult(env: z.output<typeof withdrawResponseSchema>): WithdrawalResult {
  const d = env.data;
  return {
    serviceReference: (d.switchWalletTransactionReference || d.serviceTransactionReference) as string,
    merchantReference: d.merchantTransactionReference ?? null,
    destinationAddress: d.destinationAddress,
    currency: d.paymentCurrency,
    network: d.networkChain,
    amount: d.withdrawnAmount,
    amountRequested: d.withdrawnAmountRequested ?? null,
    fee: d.transactionCharge ?? null,
    feeCurrency: d.transactionChargeCurrency ?? null,
    description: d.paymentDescription ?? null,
    message: env.message ?? null,
    raw: d,
  };
}

// ---------------------------------------------------------------- transactions

export const transactionFilterSchema = z.object({
  currency: z.unknown().optional(),
  network: z.unknown().optional(),
  status: z.enum(['successful', 'failed']).optional(),
  type: z.enum(['deposit', 'withdrawal']).optional(),
  hash: z.string().trim().min(1).optional(),
  address: z.string().trim().min(1).optional(),
  from: z
    .date()
    .refine((d) => !Number.isNaN(d.getTime()), 'from is not a valid date')
    .optional(),
  to: z
    .date()
    .refine((d) => !Number.isNaN(d.getTime()), 'to is not a valid date')
    .optional(),
  page: z.number().int().positive('page must be 1 or more').optional(),
  pageSize: z.number().int().positive('pageSize must be 1 or more').optional(),
});

const nullableText = wireText.nullish();

const transactionRecordSchema = z.looseObject({
  transactionStatus: wireText,
  transactionType: wireText,
  transactionHash: nullableText,
  transactionHashUrl: z.string().nullish(),
  toAddress: z.string().nullish(),
  fromAddress: z.string().nullish(),
  toAddressUrl: z.string().nullish(),
  fromAddressUrl: z.string().nullish(),
  amount: wireDecimal,
  network: nullableText,
  currency: nullableText,
  transactionTimeStamp: wireNumber.nullish(),
  reference: nullableText,
  createdAt: z.string().nullish(),
});

export const transactionPageResponseSchema = v2Envelope(
  z.looseObject({
    records: z.array(transactionRecordSchema),
    pageSize: wireNumber,
    currentPage: wireNumber,
    totalPages: wireNumber,
    totalRecords: wireNumber,
  }),
);

export interface TransactionRecord {
  /**
   * The final outcome: 'successful' or 'failed'. Everything else is 'unknown', which every reader
   * treats as not final: Pending and Initiated (the public SDK's 0 and 3) as well as a status we
   * do not recognise; `statusName` tells them apart.
   */
  status: 'successful' | 'failed' | 'unknown';
  /** The status by its canonical name (SUCCESSFUL, FAILED, PENDING, INITIATED), else the service's own text. */
  statusName?: string;
  type: 'deposit' | 'withdrawal' | 'unknown';
  hash: string | null;
  hashUrl: string | null;
  toAddress: string | null;
  fromAddress: string | null;
  toAddressUrl: string | null;
  fromAddressUrl: string | null;
  /** Exact decimal text. */
  amount: string;
  /** Undefined when the service names a currency we do not know; `currencyName` keeps its text. */
  currency: CurrencyMember | undefined;
  currencyName: string;
  network: EnumMember | undefined;
  networkName: string;
  /** transactionTimeStamp converted with the configured unit. */
  timestamp: Date | undefined;
  reference: string | null;
  /** As sent: ISO 8601 without a zone offset. */
  createdAt: string | null;
  /** The record as received, unknown fields included (numbers as LosslessNumber). */
  raw: Record<string, unknown>;
}

export interface TransactionPage {
  records: TransactionRecord[];
  currentPage: number;
  pageSize: number;
  totalPages: number;
  totalRecords: number;
}

export function toTransactionRecord(
  r: z.output<typeof transactionRecordSchema>,
  raw: Record<string, unknown>,
  toDate: (n: number) => Date,
): TransactionRecord {
  const status = lookup(TX_STATUSES, r.transactionStatus);
  const type = lookup(TX_TYPES, r.transactionType);
  const currency = lookup(CURRENCIES, r.currency);
  const network = lookup(NETWORKS, r.network);
  return {
    status: status?.code === 1 ? 'successful' : status?.code === 2 ? 'failed' : 'unknown',
    statusName: status?.name ?? r.transactionStatus.trim(),
    type: type ? (type.code === 1 ? 'deposit' : 'withdrawal') : 'unknown',
    hash: r.transactionHash ?? null,
    hashUrl: r.transactionHashUrl ?? null,
    toAddress: r.toAddress ?? null,
    fromAddress: r.fromAddress ?? null,
    toAddressUrl: r.toAddressUrl ?? null,
    fromAddressUrl: r.fromAddressUrl ?? null,
    amount: r.amount,
    currency,
    // The canonical name when we know the currency (the service may send a code or an alias), else its text.
    currencyName: currency?.name ?? r.currency ?? '',
    network,
    networkName: network?.name ?? r.network ?? '',
    timestamp: r.transactionTimeStamp == null ? undefined : toDate(r.transactionTimeStamp),
    reference: r.reference ?? null,
    createdAt: r.createdAt ?? null,
    raw,
  };
}

// ---------------------------------------------------------------- webhook

export const webhookUrlSchema = z
  .url('webhook URL must be an absolute http(s) URL')
  .refine((u) => /^https?:\/\//i.test(u), 'webhook URL must use http or https');

// ---------------------------------------------------------------- helpers

/** A short, value-free description of what did not fit, for error messages. */
export function describeIssues(error: z.ZodError, max = 3): string {
  const parts = error.issues.slice(0, max).map((i) => {
    const path = i.path.length ? i.path.map(String).join('.') : 'body';
    return `${path}: ${i.message}`;
  });
  if (error.issues.length > max) parts.push(`and ${error.issues.length - max} more`);
  return parts.join('; ');
}
