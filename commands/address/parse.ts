/** `/address <client-email> <currency> <network>`: the three words, each checked, every problem named. */
import { words } from '../../src/slack/text.js';
import { emailAddress } from '../../src/wallet/schemas.js';
import { closest } from './suggest.js';
import {
  CURRENCIES,
  NETWORKS,
  acceptedNames,
  lookup,
  type CurrencyMember,
  type EnumMember,
} from '../../src/wallet/enums.js';

export const USAGE = 'Usage: `/address <client-email> <currency> <network>`, e.g. `/address alice@client.com USDT BSC`';

function didYouMean(members: readonly EnumMember[], typed: string): string {
  const s = closest(members, typed);
  return s ? `: did you mean *${s}*?` : '';
}

export type AddressArgs = { email: string; currency: CurrencyMember; network: EnumMember };

export function parseAddressArgs(text: string): { ok: true; args: AddressArgs } | { ok: false; errors: string[] } {
  const w = words(text);
  if (w.length !== 3) {
    return { ok: false, errors: [`expected 3 values (client e-mail, currency, network), got ${w.length}`] };
  }
  const [email, cur, net] = w as [string, string, string];
  const errors: string[] = [];
  if (!emailAddress.safeParse(email).success) errors.push(`“${email}” is not an e-mail address`);
  const currency = lookup(CURRENCIES, cur);
  if (!currency)
    errors.push(
      `unknown currency “${cur}”${didYouMean(CURRENCIES, cur)}; accepted: ${acceptedNames(CURRENCIES)} (or their codes)`,
    );
  const network = lookup(NETWORKS, net);
  if (!network)
    errors.push(
      `unknown network “${net}”${didYouMean(NETWORKS, net)}; accepted: ${acceptedNames(NETWORKS)} (or their codes)`,
    );
  if (errors.length || !currency || !network) return { ok: false, errors };
  return { ok: true, args: { email, currency, network } };
}
