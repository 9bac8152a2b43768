/**
 * Variety: the sandbox answers in the alternatives the spec and the public record document,
 * drawn at random per response, so that every test that goes through the sandbox also checks
 * the client reads them all (docs/wallet-service-choices.md, "Sandbox variety"):
 *
 * - amounts as a JSON number or as a string of the same digits;
 * - enums as the name, the code, the code in a string, or an alias (MATIC/POLYGON, ETH/ETHEREUM,
 *   SDK casing such as "Successful");
 * - keys in camelCase or PascalCase (the public samples use both);
 * - envelopes: v1 `status` as 1 or "1"; v2 `message: null` or no message; login `roles` inside
 *   `data` or beside it; the webhook registration as a v1 or v2 envelope (`status` 1, "1" or
 *   true), an empty body or a line of plain text;
 * - a KYB-blocked login as 400, 401, 403 or a 200 with `isSuccessful: false`, its `kybStatus` as
 *   a name, a code or a numeric string.
 *
 * Draws come from a seeded PRNG (prng.ts) keyed by the seed, the request (method and target)
 * and how many times that request was seen, so a run is reproducible whatever the order in
 * which concurrent requests arrive. `SANDBOX_VARIETY_SEED` sets the seed (default 1); `off`
 * (or the option `variety: 'off'`) answers in the one canonical form only.
 */
import { isLosslessNumber } from 'lossless-json';
import {
  ADDRESS_GENERATION_STATUSES,
  CURRENCIES,
  type EnumMember,
  KYB_STATUSES,
  lookup,
  NETWORKS,
  TX_STATUSES,
  TX_TYPES,
} from '../wallet/enums.js';
import { WITHDRAWAL_STATUSES } from '../wallet/client/withdrawal-status.js';
import type { Reply } from './envelopes.js';
import type { SandboxRequest } from './http.js';
import { createRng, type Rng } from './prng.js';

/** What the answer is, so the right alternatives are drawn. */
export type Answer =
  | 'login'
  | 'refresh'
  | 'generate'
  | 'withdraw'
  | 'withdrawalStatus'
  | 'balances'
  | 'transactions'
  | 'webhook'
  | 'other';

export const DEFAULT_VARIETY_SEED = 1;

export interface Variety {
  readonly seed: number;
  vary(answer: Answer, req: SandboxRequest, reply: Reply): Reply;
}

/** The seed from an option or the environment; undefined: variety is off. */
export function varietySeed(
  option: number | 'off' | undefined,
  env = process.env.SANDBOX_VARIETY_SEED,
): number | undefined {
  if (option === 'off') return undefined;
  if (typeof option === 'number') return option;
  const v = env?.trim().toLowerCase();
  if (v === undefined || v === '') return DEFAULT_VARIETY_SEED;
  if (['off', 'false', 'no', 'none', '0'].includes(v)) return undefined;
  return /^\d+$/.test(v) ? Number(v) : DEFAULT_VARIETY_SEED;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const AMOUNT_KEYS = new Set(['amount', 'withdrawnAmount', 'transactionCharge', 'withdrawnAmountRequested', 'balance']);

/** The enum of each field, where it has one. */
const ENUM_KEYS: Readonly<Record<string, readonly EnumMember[]>> = {
  transactionStatus: TX_STATUSES,
  transactionType: TX_TYPES,
  currency: CURRENCIES,
  key: CURRENCIES,
  network: NETWORKS,
  networkChain: NETWORKS,
  paymentCurrency: CURRENCIES,
  transactionChargeCurrency: CURRENCIES,
  addressGenerationStatus: ADDRESS_GENERATION_STATUSES,
  kybStatus: KYB_STATUSES,
  withdrawalStatus: WITHDRAWAL_STATUSES,
};

/** Names the public SDK and docs write in another case than the spec (read case-insensitively). */
const SDK_CASE: Readonly<Record<string, string>> = {
  SUCCESSFUL: 'Successful',
  FAILED: 'Failed',
  PENDING: 'Pending',
  INITIATED: 'Initiated',
  Deposit: 'DEPOSIT',
  Withdrawal: 'WITHDRAWAL',
};

function enumForm(rng: Rng, members: readonly EnumMember[], value: unknown): unknown {
  const m = lookup(members, isLosslessNumber(value) ? value.toString() : value);
  if (!m) return value;
  const names = [m.name, ...m.aliases, ...(SDK_CASE[m.name] ? [SDK_CASE[m.name]!] : [])];
  return rng.pick<unknown>([m.code, String(m.code), rng.pick(names)]);
}

function amountForm(rng: Rng, value: unknown): unknown {
  if (isLosslessNumber(value) || typeof value === 'number') return rng.chance(0.5) ? value.toString() : value;
  return value;
}

/** Amounts and enums in their alternative forms, recursively. */
function varyValues(rng: Rng, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => varyValues(rng, v));
  if (!value || typeof value !== 'object' || isLosslessNumber(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const members = ENUM_KEYS[k];
    out[k] = AMOUNT_KEYS.has(k) ? amountForm(rng, v) : members ? enumForm(rng, members, v) : varyValues(rng, v);
  }
  return out;
}

/** PascalCase keys, recursively (`data` → `Data`, `isSuccessful` → `IsSuccessful`). */
function pascalKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pascalKeys);
  if (!value || typeof value !== 'object' || isLosslessNumber(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      k.charAt(0).toUpperCase() + k.slice(1),
      pascalKeys(v),
    ]),
  );
}

type Body = Record<string, unknown>;
const isObject = (v: unknown): v is Body => !!v && typeof v === 'object' && !Array.isArray(v) && !isLosslessNumber(v);

/** The webhook registration's success in one of its forms. */
function webhookSuccess(rng: Rng, reply: Reply): Reply {
  const b = isObject(reply.body) ? reply.body : {};
  switch (rng.int(0, 4)) {
    case 0:
      return { ...reply, body: { ...b, status: rng.pick<unknown>([1, '1', true]) } };
    case 1:
      return {
        ...reply,
        body: { data: b.data ?? null, isSuccessful: true, message: b.message ?? null, httpStatusCode: 200 },
      };
    case 2:
      return { status: reply.status, headers: { ...reply.headers, 'content-length': '0' }, body: undefined };
    case 3:
      return {
        status: reply.status,
        text: 'Webhook URL updated',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      };
    default:
      return reply;
  }
}

/** A KYB-blocked login, in any of the statuses a service may use. */
function kybRefusal(rng: Rng, reply: Reply, body: Body): Reply {
  const status = rng.pick([400, 401, 403, 200]);
  return { ...reply, status, body: { ...body, httpStatusCode: status === 200 ? 403 : status } };
}

export function createVariety(seed: number): Variety {
  const seen = new Map<string, number>();
  return {
    seed,
    vary(answer, req, reply) {
      if (answer === 'other' || reply.text !== undefined) return reply;
      const key = `${req.method} ${req.target}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      const rng = createRng((seed ^ fnv1a(key)) + Math.imul(n, 0x9e3779b1));
      const ok = reply.status >= 200 && reply.status < 300;
      if (answer === 'webhook' && ok) return webhookSuccess(rng, reply);
      if (!isObject(reply.body)) return reply;
      let body: Body = varyValues(rng, reply.body) as Body;
      let out: Reply = { ...reply, body };
      const data = isObject(body.data) ? body.data : undefined;
      if ((answer === 'login' || answer === 'refresh') && !ok && data?.kybStatus !== undefined) {
        out = kybRefusal(rng, out, body);
        body = out.body as Body;
      }
      if (ok && (body.status === 1 || body.status === '1')) body.status = rng.pick<unknown>([1, '1']);
      if (ok && body.isSuccessful === true && body.message === null && rng.chance(0.5)) delete body.message;
      if ((answer === 'login' || answer === 'refresh') && ok && data && Array.isArray(data.roles) && rng.chance(0.5)) {
        const { roles, ...rest } = data;
        body = { ...body, data: rest, roles };
      }
      // Error bodies of 401 are RFC 7807 (their own shape): their keys stay as they are.
      if (reply.status !== 401 && rng.chance(0.25)) body = pascalKeys(body) as Body;
      return { ...out, body };
    },
  };
}
