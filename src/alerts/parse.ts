/**
 * Tolerant reading of wallet webhook bodies. The service's payloads are only partly
 * published (public-facts.md): keys come in PascalCase or camelCase, enums as numbers,
 * numeric strings or names, amounts as numbers or strings. Whatever we do not recognise
 * is kept, never dropped: an unrecognised payload still becomes a (generic) alert.
 */
import { createHash } from 'node:crypto';
import { isLosslessNumber } from 'lossless-json';
import { z } from 'zod';
import { CURRENCIES, NETWORKS, WEBHOOK_STATUSES, WEBHOOK_TYPES, lookup } from '../wallet/enums.js';
import { stringifyJson, wireDecimal } from '../wallet/json.js';

export type AlertKind = 'deposit' | 'withdrawal' | 'remittance' | 'transfer' | 'unknown';

export interface WebhookEvent {
  kind: AlertKind;
  /** Canonical WEBHOOK_TYPES name, or the raw value's text when unknown. */
  typeName?: string;
  /** Canonical WEBHOOK_STATUSES name, or the raw value's text when unknown. */
  statusName?: string;
  hash?: string;
  /** Exact decimal text. */
  amount?: string;
  amountRequested?: string;
  amountSent?: string;
  charge?: string;
  totalAmount?: string;
  /** Canonical name when known, else the raw text. */
  currency?: string;
  currencyKnown: boolean;
  network?: string;
  networkKnown: boolean;
  clientEmail?: string;
  /** Deposits: our generated address that received the funds. */
  receiveAddress?: string;
  /** Deposits: where the funds came from (the public docs' DepositAddress). */
  depositAddress?: string;
  receiverAddress?: string;
  senderAddress?: string;
  merchantReference?: string;
  reference?: string;
  checksum?: string;
  /** Fields we do not interpret, numbers as their exact text. */
  extra: Record<string, unknown>;
  /** The whole body after key normalisation, numbers as their exact text. */
  body: unknown;
}

/** PascalCase and snake_case keys to camelCase, so one schema reads every variant. */
export function normalizeKey(k: string): string {
  const camel = k.includes('_') && /[a-z]/i.test(k) ? k.toLowerCase().replace(/_+([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) : k;
  return camel.charAt(0).toLowerCase() + camel.slice(1);
}

/** Normalises keys recursively and turns exact numbers into their text (storable as JSON, never a float). */
export function normalizeBody(value: unknown): unknown {
  if (isLosslessNumber(value)) return value.toString();
  if (Array.isArray(value)) return value.map(normalizeBody);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const nk = normalizeKey(k);
      if (!(nk in out)) out[nk] = normalizeBody(v);
    }
    return out;
  }
  return value;
}

const text = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .pipe(z.string().min(1))
  .optional()
  .catch(undefined);
const decimal = wireDecimal.optional().catch(undefined);
const anything = z.unknown().optional();

const dataSchema = z.looseObject({
  transactionType: anything,
  status: anything,
  transactionStatus: anything,
  transactionHash: text,
  hash: text,
  amount: decimal,
  amountRequested: decimal,
  amountSent: decimal,
  charge: decimal,
  totalAmountDeposited: decimal,
  currency: anything,
  networkChain: anything,
  network: anything,
  merchantClient: z.looseObject({ email: text }).optional().catch(undefined),
  clientEmail: text,
  email: text,
  depositAddress: text,
  receiveAddress: text,
  receiverAddress: text,
  senderAddress: text,
  merchantReference: text,
  reference: text,
  checksum: text,
});

const KNOWN = new Set(Object.keys(dataSchema.shape));

const KIND_BY_TYPE: Record<string, AlertKind> = {
  DEPOSIT: 'deposit',
  MERCHANT_DEPOSIT: 'deposit',
  WITHDRAW: 'withdrawal',
  TRANSFER: 'transfer',
  REMITTANCE: 'remittance',
};

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function rawText(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : stringifyJson(v);
}

/** `parsed` is the output of parseJson (lossless numbers). Never throws: anything becomes an event. */
export function readWebhook(parsed: unknown): WebhookEvent {
  const body = normalizeBody(parsed);
  const root = isObject(body) ? body : {};
  const dataRaw = isObject(root.data) ? root.data : root;
  // Every field is optional and falls back on its own, so this only fails on a non-object.
  const parsedData = dataSchema.safeParse(dataRaw);
  const d = parsedData.success ? parsedData.data : dataSchema.parse({});

  const typeRaw = root.transactionType ?? root.type ?? d.transactionType;
  const type = lookup(WEBHOOK_TYPES, typeRaw);
  const statusRaw = d.status ?? d.transactionStatus ?? root.status;
  const status = lookup(WEBHOOK_STATUSES, statusRaw);
  const currency = lookup(CURRENCIES, d.currency);
  const network = lookup(NETWORKS, d.networkChain ?? d.network);

  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(dataRaw)) if (!KNOWN.has(k)) extra[k] = v;
  if (dataRaw !== root) for (const [k, v] of Object.entries(root)) if (k !== 'data' && k !== 'transactionType' && k !== 'type') extra[`envelope.${k}`] = v;

  const e: WebhookEvent = {
    kind: type ? (KIND_BY_TYPE[type.name] ?? 'unknown') : 'unknown',
    typeName: type?.name ?? rawText(typeRaw),
    statusName: status?.name ?? rawText(statusRaw),
    hash: d.transactionHash ?? d.hash,
    amount: d.amount ?? d.amountSent ?? d.amountRequested,
    amountRequested: d.amountRequested,
    amountSent: d.amountSent,
    charge: d.charge,
    totalAmount: d.totalAmountDeposited,
    currency: currency?.name ?? rawText(d.currency),
    currencyKnown: !!currency,
    network: network?.name ?? rawText(d.networkChain ?? d.network),
    networkKnown: !!network,
    clientEmail: d.merchantClient?.email ?? d.clientEmail ?? d.email,
    receiveAddress: d.receiveAddress,
    depositAddress: d.depositAddress,
    receiverAddress: d.receiverAddress,
    senderAddress: d.senderAddress,
    merchantReference: d.merchantReference,
    reference: d.reference,
    checksum: d.checksum,
    extra,
    body,
  };
  return stripUndefined(e);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
  return value;
}

/** EVM hashes are hex and case-insensitive; others are left as sent. */
export function normalizeHash(hash: string): string {
  return /^0x[0-9a-f]+$/i.test(hash) ? hash.toLowerCase() : hash;
}

function bodyDigest(e: WebhookEvent): string {
  return createHash('sha256').update(JSON.stringify(sortKeys(e.body))).digest('hex');
}

/** One alert per transaction: hash + type, or the body itself when there is no hash. */
export function transactionKey(e: WebhookEvent): string {
  if (!e.hash) return `body:${bodyDigest(e)}`;
  return `${e.typeName ?? 'UNKNOWN'}:${normalizeHash(e.hash)}`;
}

/** One event per transaction status: a redelivery has the same key. */
export function eventKey(e: WebhookEvent): string {
  if (!e.hash) return `body:${bodyDigest(e)}`;
  return `${transactionKey(e)}:${e.statusName ?? 'UNKNOWN'}`;
}

function stripUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}
