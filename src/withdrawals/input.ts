/**
 * The stateless rules of a request's input: every field checked, every problem named at once
 * (one per field), so a form or a one-line command is corrected in one go. A field that is
 * empty is named as missing, never reported as an unknown value; a check that needs another
 * field (decimals need the currency, the address format the network) is made when that field
 * is usable and skipped otherwise.
 */
import { thresholdAmount } from '../format/fiat.js';
import { networkWithStandard } from '../format/network.js';
import {
  addressFamily,
  BROKEN_CHECKSUM,
  brokenChecksum,
  describeFormat,
  isValidAddress,
  type AddressFamily,
} from '../wallet/addresses.js';
import { emailAddress } from '../wallet/schemas.js';
import { CURRENCIES, NETWORKS, acceptedNames, lookup, type CurrencyMember, type EnumMember } from '../wallet/enums.js';
import type { Policy } from '../policy/schema.js';
import { NO_PRICES, valueAt, type PriceSnapshot, type Valuation } from '../prices/index.js';
import { formatAmount } from '../format/amount.js';
import { parseAmount } from '../money/decimal.js';
import { noteMissing, tierFor, type TierChoice } from './value-rules.js';
import type { RequestInput, RequestRule } from './types.js';

/** One thing wrong with the input: the rule (which field it belongs to) and the words a person sees. */
export interface Problem {
  rule: RequestRule;
  message: string;
}

/** A refused request: the first problem, and every problem when the input had several (one per field). */
export type Refusal = { ok: false; rule: RequestRule; message: string; problems?: readonly Problem[] };

export interface CheckedInput {
  ok: true;
  amount: string;
  currency: CurrencyMember;
  network: EnumMember;
  family: AddressFamily;
  destination: string;
  clientEmail: string;
  note: string;
  tier: TierChoice;
  /** The value at request time (a fact from the price cache; absent or unknown is the strictest case). */
  valuation?: Valuation;
}

// "5,000 USDT", "250usdt", "USDT 250", "$100": a number with a currency (or a symbol) beside it.
const WITH_UNIT = /^(?:[A-Za-z$€£]+\s*)?([\d.,]+)(?:\s*[A-Za-z$€£]+)?$/;

function amountProblem(typed: string): Problem | { text: string; decimals: number } {
  if (!typed) return { rule: 'amount', message: 'Enter the amount, e.g. 250.50.' };
  const parsed = parseAmount(typed);
  if (parsed.ok) return parsed;
  const unit = WITH_UNIT.exec(typed);
  if (unit?.[1] && /[A-Za-z$€£]/.test(typed) && parseAmount(unit[1]).ok)
    return { rule: 'amount', message: 'Write the number only: the currency has its own field.' };
  return { rule: 'amount', message: `Amount refused: ${parsed.message}.` };
}

/** Every stateless rule: format, decimals, destination, client, tier, note; all problems at once. */
export function checkInput(
  policy: Policy,
  input: RequestInput,
  prices: PriceSnapshot = NO_PRICES,
): CheckedInput | Refusal {
  const problems: Problem[] = [];
  const typed = (v: unknown) => String(v ?? '').trim();

  const amountText = typed(input.amount);
  const amount = amountProblem(amountText);
  if ('rule' in amount) problems.push(amount);

  const currencyText = typed(input.currency);
  const currency = currencyText ? lookup(CURRENCIES, currencyText) : undefined;
  if (!currencyText) problems.push({ rule: 'currency', message: 'Choose the currency.' });
  else if (!currency)
    problems.push({
      rule: 'currency',
      message: `Unknown currency "${currencyText}". Accepted: ${acceptedNames(CURRENCIES)}.`,
    });

  const networkText = typed(input.network);
  const network = networkText ? lookup(NETWORKS, networkText) : undefined;
  if (!networkText) problems.push({ rule: 'network', message: 'Choose the network.' });
  else if (!network)
    problems.push({
      rule: 'network',
      message: `Unknown network "${networkText}". Accepted: ${acceptedNames(NETWORKS)}.`,
    });

  const parsed = 'rule' in amount ? undefined : amount;
  if (parsed && currency && parsed.decimals > currency.decimals)
    problems.push({
      rule: 'decimals',
      message: `Amount refused: ${currency.name} allows at most ${currency.decimals} decimal places, ${parsed.text} has ${parsed.decimals}.`,
    });

  const destination = typed(input.destination);
  // The network decides the format (BTC on BSC is a BEP-20 token at a 0x address): checked once the network is known.
  const family = network ? addressFamily(network) : undefined;
  if (!destination) problems.push({ rule: 'destination', message: 'Enter the destination address.' });
  else if (family && brokenChecksum(family, destination))
    problems.push({ rule: 'destination', message: BROKEN_CHECKSUM });
  else if (network && family && !isValidAddress(family, destination))
    problems.push({
      rule: 'destination',
      message: `Not an address on ${networkWithStandard(network.name)}: expected ${describeFormat(family)}${currency ? ` (${currency.name} on ${network.name} uses ${network.name}'s addresses)` : ''}.`,
    });

  const clientEmail = typed(input.clientEmail);
  if (!clientEmail)
    problems.push({ rule: 'client_email', message: 'Enter the client’s e-mail (whose wallet the funds leave from).' });
  else if (!emailAddress.safeParse(clientEmail).success)
    problems.push({ rule: 'client_email', message: `"${clientEmail}" is not an e-mail address.` });

  const valuation = parsed && currency ? valueAt(prices, currency.name, parsed.text) : undefined;
  const tier = parsed && currency ? selectTier(policy, currency.name, parsed.text, valuation) : undefined;
  if (parsed && currency && !tier)
    problems.push({
      rule: 'tier',
      message: `No approval tier of the policy covers ${formatAmount(parsed.text, currency.name)}: the amount is above every tier's max.`,
    });

  const note = typed(input.note);
  // The rule table's note rule, as a field problem of the form.
  const noNote =
    parsed && currency
      ? noteMissing(policy, { note, currency: currency.name, amount: parsed.text }, valuation)
      : undefined;
  if (noNote) problems.push({ rule: 'note', message: noNote });

  const [first] = problems;
  if (first) return { ok: false, rule: first.rule, message: first.message, problems };
  // Every field passed, so each is present (the checks above refuse whatever is missing).
  return {
    ok: true,
    amount: parsed!.text,
    currency: currency!,
    network: network!,
    family: family!,
    destination,
    clientEmail,
    note,
    tier: tier!,
    ...(valuation ? { valuation } : {}),
  };
}

/**
 * The currency's own tier list, else `value` (by USD value; the last tier when the value is
 * unknown), else `default`; the first tier whose max >= amount (no max = no upper bound).
 */
export function selectTier(
  policy: Policy,
  currencyName: string,
  amount: string,
  valuation?: Valuation,
): CheckedInput['tier'] | undefined {
  return tierFor(policy, currencyName, amount, valuation);
}

/** The amounts above which a note is required ("1,000.00 USDT", "$1,000.00 in value"), for the form's hint. */
export function noteThresholds(policy: Policy): string[] {
  return Object.entries(policy.withdrawals.note_required_above).map(([key, above]) => thresholdAmount(key, above));
}
