/**
 * The withdrawal fields a verification call may carry besides its reference, and their
 * comparison with the approved request. The documented call (shared/spec/public-facts.md) names
 * only the reference, and the checksum binds the destination; a deployment may add the amount,
 * currency and network as query parameters, and then each value it sends must be the approved
 * one: a reference reused for more, or on another chain, is someone else's withdrawal.
 *
 * Parameter names are those the service itself uses for these fields, compared without regard
 * to case (its samples write both `networkChain` and `NetworkChain`):
 *   destination: `destinationAddress` (the withdrawal call and its result), `destination`;
 *   amount: `amount` (the withdrawal call, transaction records, `Amount` in webhooks),
 *           `withdrawnAmountRequested` (the withdrawal result's requested amount);
 *   currency: `currency` (the call, records, webhooks), `paymentCurrency` (the result);
 *   network: `networkChain` (the call, the result, webhooks), `network` (transaction records).
 * Not `withdrawnAmount`: the result's amount after the service's fee handling, which the spec
 * does not define, so equal to the approved amount only by chance.
 *
 * Pure: the query in, the mismatches out. Every value counts: a field named twice (or in two
 * spellings) matches only if every value does, and a value that does not parse never matches.
 */
import { z } from 'zod';
import { addressFamily } from '../wallet/addresses.js';
import { CURRENCIES, type EnumMember, lookup, NETWORKS } from '../wallet/enums.js';
import { Dec } from '../money/decimal.js';
import { sameAddress } from '../withdrawals/rules.js';
import type { WithdrawalRequest } from '../withdrawals/index.js';

export const CALL_FIELDS = ['destination', 'amount', 'currency', 'network'] as const;
export type CallField = (typeof CALL_FIELDS)[number];

const SPELLINGS: Readonly<Record<CallField, readonly string[]>> = {
  destination: ['destinationAddress', 'destination'],
  amount: ['amount', 'withdrawnAmountRequested'],
  currency: ['currency', 'paymentCurrency'],
  network: ['networkChain', 'network'],
};

/** The field a query parameter names, whatever its case; undefined for any other parameter. */
const FIELD_OF: ReadonlyMap<string, CallField> = new Map(
  CALL_FIELDS.flatMap((field) => SPELLINGS[field].map((name) => [name.toLowerCase(), field] as const)),
);

const text = z.string().trim().min(1).max(200);
const canonicalName = (members: readonly EnumMember[]) =>
  text.transform((value, ctx) => {
    const m = lookup(members, value);
    if (m) return m.name;
    ctx.addIssue({ code: 'custom', message: 'not a known member' });
    return z.NEVER;
  });
/**
 * Each value as understood: the amount a plain decimal as the withdrawal call writes it ("100",
 * "100.00"; no sign, exponent, grouping, nor the hex decimal.js would also read), currency and
 * network by the wallet enums' lookup (a code, a name in any case, an alias) to their canonical name.
 */
const VALUE: Readonly<Record<CallField, z.ZodType<string, string>>> = {
  destination: text,
  amount: text.regex(/^\d+(\.\d+)?$/),
  currency: canonicalName(CURRENCIES),
  network: canonicalName(NETWORKS),
};

/** One value a call carried: as asked (any text), and as understood (undefined: it does not parse). */
export interface Carried {
  asked: string;
  value: string | undefined;
}

/** The fields a call carried, each with every value it carried; a field not carried is absent. */
export type CallFields = Readonly<Partial<Record<CallField, readonly Carried[]>>>;

export function parseCallFields(query: URLSearchParams): CallFields {
  const out: Partial<Record<CallField, Carried[]>> = {};
  for (const [name, asked] of query) {
    const field = FIELD_OF.get(name.toLowerCase());
    if (!field) continue;
    const parsed = VALUE[field].safeParse(asked);
    const values = out[field] ?? [];
    values.push({ asked, value: parsed.success ? parsed.data : undefined });
    out[field] = values;
  }
  return out;
}

/** What a comparison reads of the request. */
export type Approved = Pick<WithdrawalRequest, 'destination' | 'amount' | 'currency' | 'network'>;

const SAME: Readonly<Record<CallField, (r: Approved, value: string) => boolean>> = {
  destination: sameDestination,
  amount: (r, value) => new Dec(value).eq(r.amount),
  currency: (r, value) => value === lookup(CURRENCIES, r.currency)?.name,
  network: (r, value) => value === lookup(NETWORKS, r.network)?.name,
};

export interface FieldMismatch {
  field: CallField;
  /** The value as asked (any text: shorten and escape it to show it). */
  asked: string;
}

/** Every carried value that is not the approved one, in CALL_FIELDS order; none when all match (or none was carried). */
export function fieldMismatches(r: Approved, call: CallFields): FieldMismatch[] {
  return CALL_FIELDS.flatMap((field) =>
    (call[field] ?? [])
      .filter((c) => c.value === undefined || !SAME[field](r, c.value))
      .map((c) => ({ field, asked: c.asked })),
  );
}

/** The same address as the approved one, compared as its family requires (TRON's base58 is case-sensitive). */
function sameDestination(r: Approved, address: string): boolean {
  const network = lookup(NETWORKS, r.network);
  // A stored request always names a known network; if not, only an exact match is the same.
  if (!network) return address === r.destination;
  return sameAddress(addressFamily(network), address, r.destination);
}
