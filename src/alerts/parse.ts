/**
 * Tolerant reading of wallet webhook bodies. The service's payloads are only partly
 * published (public-facts.md): keys come in PascalCase or camelCase, enums as numbers,
 * numeric strings or names, amounts as numbers or strings. Whatever we do not recognise
 * is kept, never dropped: an unrecognised payload still becomes a (generic) alert.
 */
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { isLosslessNumber } from 'lossless-json';
import { z } from 'zod';
import { CURRENCIES, NETWORKS, WEBHOOK_STATUSES, WEBHOOK_TYPES, lookup } from '../wallet/enums.js';
import { boundedDecimalProblem, stringifyJson, wireDecimal } from '../wallet/json.js';
import { stripUndefined } from '../util/strip-undefined.js';
import { type AlertKind, KIND_RULES, kindOfType } from '../alert-kinds.js';

export type { AlertKind } from '../alert-kinds.js';

export interface WebhookEvent {
  kind: AlertKind;
  /** Canonical WEBHOOK_TYPES name, or the raw value's text when unknown. */
  typeName?: string;
  /** Canonical WEBHOOK_STATUSES name, or the raw value's text when unknown. */
  statusName?: string;
  hash?: string;
  /**
   * Exact decimal text. A withdrawal's is the amount requested: the same in all its
   * notifications (what was sent may read 0 before it is), and what its history record is held to.
   */
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
  /**
   * When the transaction happened (Unix ms), if the notification says so (unpublished: read
   * from `transactionTimeStamp`, `timestamp` or `createdAt`); undefined: treated as live.
   */
  occurredAt?: number;
  /** Fields we do not interpret, numbers as their exact text. */
  extra: Record<string, unknown>;
  /** The whole body after key normalisation, numbers as their exact text. */
  body: unknown;
}

/** PascalCase and snake_case keys to camelCase, so one schema reads every variant. */
export function normalizeKey(k: string): string {
  const camel =
    k.includes('_') && /[a-z]/i.test(k)
      ? k.toLowerCase().replace(/_+([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
      : k;
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

/** The fields read as amounts (after key normalisation): what webhookAmountProblem bounds. */
const AMOUNT_FIELDS = ['amount', 'amountRequested', 'amountSent', 'charge', 'totalAmountDeposited'];

/**
 * Why this webhook must be refused for an amount out of bounds (more than 40 significant digits
 * or an exponent beyond ±40: json.ts), or undefined. JSON number literals are already bounded by
 * parseJson; this checks amounts sent as text ("Amount": "1e60000"), in the body and its `data`.
 * Text that is not a number at all stays tolerated (read as no amount, kept in the body).
 */
export function webhookAmountProblem(parsed: unknown): string | undefined {
  if (!isObject(parsed)) return undefined;
  const data = Object.entries(parsed).find(([k]) => normalizeKey(k) === 'data')?.[1];
  for (const src of isObject(data) ? [parsed, data] : [parsed]) {
    for (const [k, v] of Object.entries(src)) {
      const key = normalizeKey(k);
      if (typeof v !== 'string' || !AMOUNT_FIELDS.includes(key)) continue;
      const problem = boundedDecimalProblem(v);
      if (problem) return `${key}: ${problem}`;
    }
  }
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function rawText(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : stringifyJson(v);
}

/** Below this a numeric timestamp is taken as seconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const SECONDS_BELOW = 1e11;
/** Plausible transaction times only: after 2009, and not beyond a day ahead of this clock. */
const EARLIEST_MS = Date.UTC(2009, 0, 1);

/**
 * The transaction's time, if the body carries one we can read: a number (seconds or
 * milliseconds, told apart by size) or an ISO date-time (no zone offset: UTC, as the
 * service's transaction list writes it). Anything else: undefined, never a guess.
 */
export function readTransactionTime(...sources: Array<Record<string, unknown>>): number | undefined {
  for (const src of sources) {
    for (const k of ['transactionTimeStamp', 'timestamp', 'createdAt']) {
      const v = src[k];
      let ms: number | undefined;
      if (typeof v === 'number' || (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()))) {
        const n = Number(v);
        ms = n < SECONDS_BELOW ? n * 1000 : n;
      } else if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v.trim())) {
        const t = v.trim();
        ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/i.test(t) ? t : `${t}Z`);
      }
      if (ms !== undefined && Number.isFinite(ms) && ms >= EARLIEST_MS && ms <= Date.now() + 86_400_000)
        return Math.round(ms);
    }
  }
  return undefined;
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
  if (dataRaw !== root)
    for (const [k, v] of Object.entries(root))
      if (k !== 'data' && k !== 'transactionType' && k !== 'type') extra[`envelope.${k}`] = v;

  const e: WebhookEvent = {
    kind: kindOfType(type?.name),
    typeName: type?.name ?? rawText(typeRaw),
    statusName: status?.name ?? rawText(statusRaw),
    hash: d.transactionHash ?? d.hash,
    amount: d.amount ?? d.amountRequested ?? d.amountSent,
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
    occurredAt: readTransactionTime(dataRaw, root),
    extra,
    body,
  };
  return stripUndefined(e);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys(value[k])]),
    );
  return value;
}

/** EVM hashes are hex and case-insensitive; others are left as sent. */
export function normalizeHash(hash: string): string {
  return /^0x[0-9a-f]+$/i.test(hash) ? hash.toLowerCase() : hash;
}

const digest = (v: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(sortKeys(v)))
    .digest('hex');

/** Key space of a transaction type: a merchant deposit and a deposit are one transaction family. */
function keySpace(e: WebhookEvent): string {
  return KIND_RULES[e.kind].keySpace ?? e.typeName ?? 'UNKNOWN';
}

/** EVM addresses are case-insensitive hex; others are left as sent. */
function normalizeAddress(a: string | undefined): string | undefined {
  return a && /^0x[0-9a-f]{40}$/i.test(a) ? a.toLowerCase() : a;
}

/** "150.250" and "150.25" are the same amount. */
function normalizeAmount(a: string | undefined): string | undefined {
  if (a === undefined) return undefined;
  try {
    return new Decimal(a).toFixed();
  } catch {
    return a;
  }
}

/**
 * What identifies a transaction that has no hash (yet): fields that stay the same across its
 * notifications. Never the checksum (it differs between deliveries of the same body) nor the
 * status (that is what moves). A withdrawal's requested amount, not what was sent (which may
 * only be known later).
 */
function stableFields(e: WebhookEvent): Record<string, string> {
  const f: Record<string, string | undefined> = {
    type: keySpace(e),
    reference: e.reference,
    merchantReference: e.merchantReference,
    receiveAddress: normalizeAddress(e.receiveAddress),
    depositAddress: normalizeAddress(e.depositAddress),
    receiverAddress: normalizeAddress(e.receiverAddress),
    senderAddress: normalizeAddress(e.senderAddress),
    amount: normalizeAmount(KIND_RULES[e.kind].ours ? (e.amountRequested ?? e.amount) : e.amount),
    currency: e.currency,
    network: e.network,
  };
  return stripUndefined(f) as Record<string, string>;
}

/**
 * An unrecognised payload has no fields we know to be its identity: what it says, minus the
 * checksums, is all there is (keying it on the stable fields alone would fold unrelated
 * notifications into one alert, and lose the others).
 */
function withoutChecksums(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutChecksums);
  if (isObject(v))
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k.toLowerCase() !== 'checksum')
        .map(([k, x]) => [k, withoutChecksums(x)]),
    );
  return v;
}

/**
 * The keys this transaction is known by, the one a new alert is filed under first:
 *  - a withdrawal with a merchantReference: by that reference (ours, fixed before it was
 *    sent), so its early notifications without a hash and the later ones with it meet;
 *  - by hash, deposits and merchant deposits (and reconciliation) in one key space;
 *  - with neither, by its stable fields.
 * A later key only finds an alert filed under it earlier, if that alert does not contradict
 * the event (see ingest): a withdrawal's hash finds the alert of a notification that carried
 * the hash but not the reference, never that of another reference paid in the same batch.
 */
export function transactionKeys(e: WebhookEvent): string[] {
  const space = keySpace(e);
  const keys: string[] = [];
  if (KIND_RULES[e.kind].ours && e.merchantReference) keys.push(`${space}:ref:${e.merchantReference}`);
  if (e.hash) keys.push(`${space}:${normalizeHash(e.hash)}`);
  if (keys.length === 0)
    keys.push(
      !KIND_RULES[e.kind].readable
        ? `${space}:body:${digest({ fields: stableFields(e), body: withoutChecksums(e.body) })}`
        : fieldsKey(e),
    );
  return keys;
}

const fieldsKey = (e: WebhookEvent): string => `${keySpace(e)}:fields:${digest(stableFields(e))}`;

/**
 * Keys looked up but never filed under: the stable-fields key of an event that now has a hash
 * (its earlier notifications without one were filed there), and `<type>:<hash>`, where alerts
 * were filed before deposits and merchant deposits shared one key space.
 */
export function lookupOnlyKeys(e: WebhookEvent): string[] {
  const keys = transactionKeys(e);
  const more: string[] = [];
  if (e.hash && KIND_RULES[e.kind].readable && !(KIND_RULES[e.kind].ours && e.merchantReference))
    more.push(fieldsKey(e));
  if (e.hash) more.push(`${e.typeName ?? 'UNKNOWN'}:${normalizeHash(e.hash)}`);
  return more.filter((k) => !keys.includes(k));
}

/** The key a new alert for this event is filed under. */
export function transactionKey(e: WebhookEvent): string {
  return transactionKeys(e)[0]!;
}

/**
 * One event per transaction status: a redelivery (whatever its checksum) has the same key.
 * For an alert not filed under a hash, the hash is part of it: the same status told again
 * with the hash at last is news (the hash is kept), not a duplicate.
 */
export function eventKey(e: WebhookEvent, alertId: string = transactionKey(e)): string {
  const base = `${alertId}:${e.statusName ?? 'UNKNOWN'}`;
  const hash = e.hash ? normalizeHash(e.hash) : undefined;
  return hash && !alertId.endsWith(`:${hash}`) ? `${base}:${hash}` : base;
}
