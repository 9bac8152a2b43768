/**
 * The policy rules a withdrawal request must pass before anyone is asked to approve it.
 * Pure functions over the policy and the requests already stored, so the service can run
 * the stateful ones (daily limit, "never paid before") inside its commit.
 */
import { z } from 'zod';
import { addressFamily, describeFormat, isValidAddress, type AddressFamily } from '../wallet/addresses.js';
import { CURRENCIES, NETWORKS, acceptedNames, lookup, type CurrencyMember, type EnumMember } from '../wallet/enums.js';
import type { Policy, Tier } from '../policy/schema.js';
import { Dec, formatAmount, parseAmount, sumAmounts } from './money.js';
import { NOT_COUNTED_STATES, type AllowlistInfo, type RequestInput, type RequestRule, type WithdrawalRequest } from './types.js';

export const DAY_MS = 24 * 3_600_000;

export type Refusal = { ok: false; rule: RequestRule; message: string };

export interface CheckedInput {
  ok: true;
  amount: string;
  currency: CurrencyMember;
  network: EnumMember;
  family: AddressFamily;
  destination: string;
  clientEmail: string;
  note: string;
  tier: { index: number; max: string | null; approvals: number; mustInclude: string[] };
}

const refuse = (rule: RequestRule, message: string): Refusal => ({ ok: false, rule, message });
const emailSchema = z.email();

/** The stateless rules: format, decimals, destination, tier. */
export function checkInput(policy: Policy, input: RequestInput): CheckedInput | Refusal {
  const currency = lookup(CURRENCIES, input.currency);
  if (!currency) return refuse('currency', `Unknown currency "${input.currency}". Accepted: ${acceptedNames(CURRENCIES)}.`);
  const network = lookup(NETWORKS, input.network);
  if (!network) return refuse('network', `Unknown network "${input.network}". Accepted: ${acceptedNames(NETWORKS)}.`);

  const parsed = parseAmount(input.amount);
  if (!parsed.ok) return refuse('amount', `Amount refused: ${parsed.message}.`);
  if (parsed.decimals > currency.decimals) {
    return refuse('decimals', `Amount refused: ${currency.name} allows at most ${currency.decimals} decimal places, ${parsed.text} has ${parsed.decimals}.`);
  }

  const clientEmail = String(input.clientEmail ?? '').trim();
  if (!emailSchema.safeParse(clientEmail).success) return refuse('client_email', `"${clientEmail}" is not an e-mail address.`);

  const destination = String(input.destination ?? '').trim();
  const family = addressFamily(currency, network);
  if (!isValidAddress(family, destination)) {
    return refuse('destination', `The destination is not a valid ${currency.name} address on ${network.name}: expected ${describeFormat(family)}.`);
  }

  const tier = selectTier(policy, currency.name, parsed.text);
  if (!tier) {
    return refuse('tier', `No approval tier of the policy covers ${formatAmount(parsed.text, currency.name)}: the amount is above every tier's max.`);
  }
  return { ok: true, amount: parsed.text, currency, network, family, destination, clientEmail, note: String(input.note ?? '').trim(), tier };
}

/** The currency's own tier list, else `default`; the first tier whose max >= amount (no max = no upper bound). */
export function selectTier(policy: Policy, currencyName: string, amount: string): CheckedInput['tier'] | undefined {
  const tiers: Tier[] = policy.withdrawals.tiers[currencyName] ?? policy.withdrawals.tiers.default ?? [];
  const index = tiers.findIndex((t) => t.max === undefined || new Dec(t.max).gte(amount));
  const t = tiers[index];
  if (!t) return undefined;
  return { index, max: t.max ?? null, approvals: t.approvals, mustInclude: [...t.must_include] };
}

export function sameAddress(family: AddressFamily, a: string, b: string): boolean {
  // Hex and bech32 are case-insensitive; base58 (TRON) is not.
  return family === 'tron' ? a === b : a.toLowerCase() === b.toLowerCase();
}

/** Allowlist rule (enforce refuses, warn flags, off ignores) and the "never paid before" flag. */
export function checkAllowlist(
  policy: Policy,
  c: Pick<CheckedInput, 'family' | 'destination' | 'network'>,
  existing: readonly WithdrawalRequest[],
): AllowlistInfo | Refusal {
  const { mode, addresses } = policy.withdrawals.allowlist;
  const neverPaidBefore = !existing.some(
    (r) => r.state === 'completed' && r.network === c.network.name && sameAddress(c.family, r.destination, c.destination),
  );
  if (mode === 'off') return { status: 'off', neverPaidBefore };
  const entry = addresses.find((a) => a.network === c.network.name && sameAddress(c.family, a.address, c.destination));
  if (entry) return { status: 'listed', label: entry.label, neverPaidBefore };
  if (mode === 'enforce') {
    return refuse('allowlist', `${c.destination} on ${c.network.name} is not on the allowlist, and the policy only allows withdrawals to allowlisted addresses.`);
  }
  return { status: 'unlisted', neverPaidBefore };
}

/** Requests in the rolling 24 h window that count towards the daily limit: every state except rejected, expired, failed. */
export function countedRequests(existing: readonly WithdrawalRequest[], currency: string, nowMs: number): WithdrawalRequest[] {
  const since = nowMs - DAY_MS;
  return existing.filter(
    (r) => r.currency === currency && !NOT_COUNTED_STATES.includes(r.state) && Date.parse(r.createdAt) > since,
  );
}

export interface DailyUsage {
  currency: string;
  used: string;
  limit: string | null;
  remaining: string | null;
}

export function dailyUsage(policy: Policy, existing: readonly WithdrawalRequest[], currency: string, nowMs: number): DailyUsage {
  const used = sumAmounts(countedRequests(existing, currency, nowMs).map((r) => r.amount));
  const limit = policy.withdrawals.daily_limit[currency];
  return {
    currency,
    used: used.toFixed(),
    limit: limit ?? null,
    remaining: limit === undefined ? null : Dec.max(0, new Dec(limit).minus(used)).toFixed(),
  };
}

export function checkDailyLimit(
  policy: Policy,
  existing: readonly WithdrawalRequest[],
  currency: string,
  amount: string,
  nowMs: number,
): Refusal | undefined {
  const usage = dailyUsage(policy, existing, currency, nowMs);
  if (usage.limit === null) return undefined;
  const after = new Dec(usage.used).plus(amount);
  if (after.lte(usage.limit)) return undefined;
  return refuse(
    'daily_limit',
    `The daily limit for ${currency} is ${formatAmount(usage.limit, currency)} (rolling 24 h, pending requests included): ` +
      `${formatAmount(usage.used, currency)} is already requested, so at most ${formatAmount(usage.remaining ?? '0', currency)} more can be requested now.`,
  );
}
