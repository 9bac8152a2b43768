/**
 * The wallet service's enumerations, with the codes and aliases of the spec and of the
 * public documentation. Parsing is tolerant (names in any case, codes, numeric strings,
 * aliases); what we send is always the canonical code.
 */
import { z } from 'zod';

export interface EnumMember {
  code: number;
  /** Canonical display name. */
  name: string;
  /** Other names the service or its documentation uses for the same member. */
  aliases: readonly string[];
}

export interface CurrencyMember extends EnumMember {
  /** Decimal places the currency can carry; an amount with more digits is refused. */
  decimals: number;
}

function member<T extends EnumMember>(m: T): T {
  return m;
}

export const CURRENCIES: readonly CurrencyMember[] = [
  member({ code: 1, name: 'BTC', aliases: [], decimals: 8 }),
  member({ code: 2, name: 'LTC', aliases: [], decimals: 8 }),
  member({ code: 3, name: 'BNB', aliases: [], decimals: 18 }),
  member({ code: 4, name: 'USDT', aliases: [], decimals: 6 }),
  member({ code: 5, name: 'DAI', aliases: [], decimals: 18 }),
  member({ code: 6, name: 'BUSD', aliases: [], decimals: 18 }),
  member({ code: 7, name: 'XEND', aliases: [], decimals: 18 }),
  member({ code: 8, name: 'ETH', aliases: [], decimals: 18 }),
  // The spec calls code 9 POLYGON, the public docs MATIC: both are accepted.
  member({ code: 9, name: 'MATIC', aliases: ['POLYGON'], decimals: 18 }),
  member({ code: 10, name: 'WNT', aliases: [], decimals: 18 }),
  member({ code: 11, name: 'USDC', aliases: [], decimals: 6 }),
  member({ code: 12, name: 'cUSD', aliases: [], decimals: 18 }),
  member({ code: 13, name: 'cEUR', aliases: [], decimals: 18 }),
  member({ code: 14, name: 'CELO', aliases: [], decimals: 18 }),
  member({ code: 15, name: 'TRX', aliases: [], decimals: 6 }),
  member({ code: 16, name: 'USDJ', aliases: [], decimals: 18 }),
  member({ code: 17, name: 'TUSD', aliases: [], decimals: 18 }),
];

export const NETWORKS: readonly EnumMember[] = [
  member({ code: 1, name: 'BSC', aliases: [] }),
  // The spec writes ETH, the public docs ETHEREUM: both are accepted.
  member({ code: 2, name: 'ETH', aliases: ['ETHEREUM'] }),
  member({ code: 3, name: 'POLYGON', aliases: ['MATIC'] }),
  member({ code: 4, name: 'CELO', aliases: [] }),
  member({ code: 5, name: 'ARBITRUM', aliases: [] }),
  member({ code: 6, name: 'AVALANCHE', aliases: [] }),
  member({ code: 7, name: 'HECOCHAIN', aliases: ['HECO'] }),
  member({ code: 8, name: 'TRON', aliases: [] }),
];

/** Webhook TransactionStatus. */
export const WEBHOOK_STATUSES: readonly EnumMember[] = [
  member({ code: 1, name: 'ABOUT_TO_INITIATE', aliases: [] }),
  member({ code: 2, name: 'PENDING', aliases: [] }),
  member({ code: 3, name: 'CONFIRMED', aliases: [] }),
  member({ code: 4, name: 'FAILED', aliases: [] }),
  member({ code: 5, name: 'NOT_PROPAGATED', aliases: [] }),
];

/** Webhook TransactionTypeEnum. */
export const WEBHOOK_TYPES: readonly EnumMember[] = [
  member({ code: 1, name: 'DEPOSIT', aliases: [] }),
  member({ code: 2, name: 'WITHDRAW', aliases: ['WITHDRAWAL'] }),
  member({ code: 3, name: 'TRANSFER', aliases: [] }),
  member({ code: 4, name: 'MERCHANT_DEPOSIT', aliases: [] }),
  member({ code: 5, name: 'REMITTANCE', aliases: [] }),
];

/**
 * Transaction-list filter and record status: the spec's Successful 1 and Failed 2, and the public
 * SDK's Pending 0 and Initiated 3. Only Successful and Failed are final.
 */
export const TX_STATUSES: readonly EnumMember[] = [
  member({ code: 0, name: 'PENDING', aliases: [] }),
  member({ code: 1, name: 'SUCCESSFUL', aliases: ['SUCCESS'] }),
  member({ code: 2, name: 'FAILED', aliases: ['FAILURE'] }),
  member({ code: 3, name: 'INITIATED', aliases: [] }),
];

/** Successful or Failed (any form `lookup` accepts); Pending, Initiated and unknown ones are not final. */
export function isFinalTxStatus(value: unknown): boolean {
  const code = lookup(TX_STATUSES, value)?.code;
  return code === 1 || code === 2;
}

/** Transaction-list filter and record type. */
export const TX_TYPES: readonly EnumMember[] = [
  member({ code: 1, name: 'Deposit', aliases: [] }),
  member({ code: 2, name: 'Withdrawal', aliases: ['WITHDRAW'] }),
];

/** addressGenerationStatus (public docs). */
export const ADDRESS_GENERATION_STATUSES: readonly EnumMember[] = [
  member({ code: 1, name: 'generated', aliases: [] }),
  member({ code: 2, name: 'pending', aliases: ['pending generation'] }),
  member({ code: 3, name: 'failed', aliases: ['generation failed'] }),
];

/** Merchant KYB status (public docs), and what the merchant must do about each blocking state. */
export const KYB_STATUSES: readonly EnumMember[] = [
  member({ code: 1, name: 'UnVerified', aliases: ['UNVERIFIED'] }),
  member({ code: 2, name: 'Initiated', aliases: [] }),
  member({ code: 3, name: 'InProgress', aliases: ['IN_PROGRESS'] }),
  member({ code: 4, name: 'Approved', aliases: ['VERIFIED'] }),
  member({ code: 5, name: 'Rejected', aliases: [] }),
];

export const KYB_ADVICE: Readonly<Record<string, string>> = {
  UnVerified: 'Complete the KYB verification in the wallet service dashboard.',
  Initiated: 'Verification has started: wait for it to finish.',
  InProgress: 'Verification is in progress: wait for it to finish.',
  Rejected: 'Verification was rejected: resubmit the KYB documents.',
};

const normalize = (s: string) =>
  s
    .trim()
    .toUpperCase()
    .replace(/[\s_-]+/g, '_');

/**
 * Resolve a name (any case, alias), a code, or a numeric string to its member.
 * Returns undefined for anything else.
 */
export function lookup<T extends EnumMember>(members: readonly T[], value: unknown): T | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? members.find((m) => m.code === value) : undefined;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return members.find((m) => m.code === Number(trimmed));
  const key = normalize(trimmed);
  return members.find((m) => normalize(m.name) === key || m.aliases.some((a) => normalize(a) === key));
}

/** A list of accepted names, for error messages ("accepted: BTC, LTC, ..."). */
export function acceptedNames(members: readonly EnumMember[]): string {
  return members.map((m) => (m.aliases.length ? `${m.name} (${m.aliases.join('/')})` : m.name)).join(', ');
}

/** zod schema that accepts any form of a member and yields the member itself. */
export function enumSchema<T extends EnumMember>(members: readonly T[], label: string) {
  return z.union([z.number(), z.string()]).transform((v, ctx) => {
    const m = lookup(members, v);
    if (!m) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown ${label} ${JSON.stringify(v)}; accepted: ${acceptedNames(members)}`,
      });
      return z.NEVER;
    }
    return m;
  });
}

export const currencySchema = enumSchema(CURRENCIES, 'currency');
export const networkSchema = enumSchema(NETWORKS, 'network');

export const currency = (v: unknown) => lookup(CURRENCIES, v);
export const network = (v: unknown) => lookup(NETWORKS, v);

/**
 * The one order of webhook statuses (alerts and withdrawals both rank by it): a status only
 * ever replaces a lower one. The final statuses share the top rank, so once one is reached
 * nothing later changes it. Unknown names are absent (callers rank them 0). No prototype, so
 * a status text such as "constructor" is simply absent too.
 */
export const WEBHOOK_STATUS_RANK: Readonly<Record<string, number>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, number>, {
    ABOUT_TO_INITIATE: 1,
    PENDING: 2,
    CONFIRMED: 3,
    FAILED: 3,
    NOT_PROPAGATED: 3,
  }),
);

/** CONFIRMED, FAILED or NOT_PROPAGATED (by canonical name; any form `lookup` accepts works too). */
export function isFinalWebhookStatus(name: unknown): boolean {
  const canonical =
    typeof name === 'string' && name in WEBHOOK_STATUS_RANK ? name : lookup(WEBHOOK_STATUSES, name)?.name;
  return canonical !== undefined && WEBHOOK_STATUS_RANK[canonical] === WEBHOOK_STATUS_RANK.CONFIRMED;
}
