/**
 * The /tx filter language: key=value words. Everything a user can get wrong is reported
 * with what is accepted; nothing is silently ignored.
 */
import { z } from 'zod';
import type { TransactionFilter } from '../wallet/client.js';
import { emailAddress } from '../wallet/schemas.js';
import { CURRENCIES, NETWORKS, acceptedNames, lookup, type CurrencyMember, type EnumMember } from '../wallet/enums.js';

/** One /tx page: at most the size the spec documents as accepted (a larger one may be refused or clamped). */
export const MAX_PAGE_SIZE = 50;
export const DEFAULT_PAGE_SIZE = 10;

/** The client's filter, with members resolved and paging fixed. */
export interface TxQuery extends Omit<TransactionFilter, 'currency' | 'network' | 'page' | 'pageSize'> {
  /** A client's e-mail: matched through the addresses the app knows as theirs (client-read.ts), not by the service. */
  client?: string;
  currency?: CurrencyMember;
  network?: EnumMember;
  page: number;
  pageSize: number;
}

/** The filters as the user wrote them, normalised; small enough to live in a button value. */
export type RawFilters = Partial<Record<FilterKey, string>>;

export const FILTER_KEYS = [
  'client',
  'currency',
  'network',
  'status',
  'type',
  'hash',
  'address',
  'from',
  'to',
  'page',
  'size',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export const FILTER_HELP =
  'client=name@example.com currency=USDT network=BSC status=confirmed|failed type=deposit|withdrawal hash=0x… address=0x… from=YYYY-MM-DD to=YYYY-MM-DD page=N size=N';

function parseDate(value: string, endOfDay: boolean): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  // Reject dates that rolled over (2026-02-31).
  if (d.getUTCFullYear() !== Number(m[1]) || d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3]))
    return undefined;
  return endOfDay ? new Date(d.getTime() + 86_400_000 - 1) : d;
}

export type ParseResult =
  | { ok: true; query: TxQuery; raw: RawFilters }
  | {
      ok: false;
      errors: string[] /** status=pending was asked: the answer says where pending items are. */;
      pending?: true;
    };

/**
 * Pending items are not in the wallet's transaction list (it lists confirmed and failed ones):
 * said where they are instead of "not accepted".
 */
export const PENDING_ELSEWHERE =
  "Pending items are not in the wallet's transaction list, which holds only confirmed and failed transactions. Withdrawals waiting for approval or for the network are listed by /treasury pending.";

/** The schema of a whole number within bounds, built once per bounds (a command checks two per request). */
const wholeNumbers = new Map<string, z.ZodCoercedNumber>();
function wholeNumber(min: number, max: number): z.ZodCoercedNumber {
  const key = `${min}:${max}`;
  const known = wholeNumbers.get(key);
  if (known) return known;
  const made = z.coerce.number().int().min(min).max(max);
  wholeNumbers.set(key, made);
  return made;
}

export function parseFilters(words: string[]): ParseResult {
  const errors: string[] = [];
  const raw: RawFilters = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) {
      errors.push(`“${word}” is not a filter; write key=value (${FILTER_HELP})`);
      continue;
    }
    const key = word.slice(0, eq).toLowerCase();
    const value = word.slice(eq + 1);
    if (!(FILTER_KEYS as readonly string[]).includes(key)) {
      errors.push(`unknown filter “${key}”; accepted: ${FILTER_KEYS.join(', ')}`);
      continue;
    }
    if (value === '') {
      errors.push(`${key} needs a value`);
      continue;
    }
    if (raw[key as FilterKey] !== undefined) errors.push(`${key} is given twice`);
    raw[key as FilterKey] = value;
  }
  const result = fromRaw(raw);
  return errors.length
    ? {
        ok: false,
        errors: [...errors, ...(result.ok ? [] : result.errors)],
        ...(!result.ok && result.pending ? { pending: true as const } : {}),
      }
    : result;
}

/** Validate already-separated filters (from the command, or back from a button). */
export function fromRaw(raw: RawFilters): ParseResult {
  const errors: string[] = [];
  const query: TxQuery = { page: 1, pageSize: DEFAULT_PAGE_SIZE };
  let pending = false;
  if (raw.client !== undefined) {
    const e = emailAddress.safeParse(raw.client.trim());
    if (e.success) query.client = e.data.toLowerCase();
    else errors.push(`client must be the client's e-mail address, not “${raw.client}”`);
  }
  if (raw.currency !== undefined) {
    const c = lookup(CURRENCIES, raw.currency);
    if (c) query.currency = c;
    else errors.push(`unknown currency “${raw.currency}”; accepted: ${acceptedNames(CURRENCIES)}`);
  }
  if (raw.network !== undefined) {
    const n = lookup(NETWORKS, raw.network);
    if (n) query.network = n;
    else errors.push(`unknown network “${raw.network}”; accepted: ${acceptedNames(NETWORKS)}`);
  }
  if (raw.status !== undefined) {
    const s = raw.status.toLowerCase();
    // "confirmed" is the word every message uses; "successful", the service's, is still accepted.
    if (s === 'confirmed' || s === 'successful') query.status = 'successful';
    else if (s === 'failed') query.status = 'failed';
    else if (s === 'pending') {
      pending = true;
      errors.push(PENDING_ELSEWHERE);
    } else errors.push(`status must be confirmed or failed, not “${raw.status}”`);
  }
  if (raw.type !== undefined) {
    const t = raw.type.toLowerCase();
    if (t === 'deposit' || t === 'withdrawal') query.type = t;
    else errors.push(`type must be deposit or withdrawal, not “${raw.type}”`);
  }
  if (raw.hash !== undefined) {
    if (/^[A-Za-z0-9]{8,128}$/.test(raw.hash)) query.hash = raw.hash;
    else errors.push(`hash “${raw.hash}” does not look like a transaction hash`);
  }
  if (raw.address !== undefined) {
    if (/^[A-Za-z0-9]{20,128}$/.test(raw.address)) query.address = raw.address;
    else errors.push(`address “${raw.address}” does not look like a wallet address`);
  }
  for (const key of ['from', 'to'] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    const d = parseDate(v, key === 'to');
    if (d) query[key] = d;
    else errors.push(`${key} must be a date written YYYY-MM-DD, not “${v}”`);
  }
  if (query.from && query.to && query.from > query.to) errors.push('from is after to');
  const int = (key: 'page' | 'size', min: number, max: number) => {
    const v = raw[key];
    if (v === undefined) return undefined;
    const n = wholeNumber(min, max).safeParse(v);
    if (n.success && /^\d+$/.test(v)) return n.data;
    errors.push(`${key} must be a whole number from ${min} to ${max}, not “${v}”`);
    return undefined;
  };
  query.page = int('page', 1, 1_000_000) ?? 1;
  query.pageSize = int('size', 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  if (errors.length) return { ok: false, errors, ...(pending ? { pending: true as const } : {}) };
  return { ok: true, query, raw };
}

/** "currency=USDT status=failed" for headers; "none" when unfiltered. */
export function describeFilters(raw: RawFilters): string {
  const parts = Object.entries(raw)
    .filter(([k]) => k !== 'page' && k !== 'size')
    .map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(' ') : 'none';
}
