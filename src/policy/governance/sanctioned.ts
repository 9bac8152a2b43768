/**
 * The governed policy's screening of the allowlist: a change that adds an address on the sanctions
 * list (src/screening) cannot be proposed, nor approved once the address is listed after it was
 * proposed. Pure: whether an address is sanctioned comes in as a fact.
 */
import type { Policy } from '../schema.js';
import { addressKey } from './types.js';

/** Why an address may not be allowlisted (it is sanctioned now), or undefined. */
export type SanctionedFact = (address: string) => string | undefined;

/** Why `next` may not be proposed: an address it adds to the allowlist is sanctioned now; undefined when none is. */
export function sanctionedAdditions(
  current: Policy,
  next: Policy,
  facts: { sanctioned?: SanctionedFact | undefined },
): string | undefined {
  if (!facts.sanctioned) return undefined;
  const known = new Set(current.withdrawals.allowlist.addresses.map((a) => addressKey(a.network, a.address)));
  const problems = next.withdrawals.allowlist.addresses
    .filter((a) => !known.has(addressKey(a.network, a.address)))
    .flatMap((a) => {
      const why = facts.sanctioned!(a.address);
      return why ? [`withdrawals.allowlist.addresses: ${a.address} (${a.label}) cannot be allowlisted: ${why}`] : [];
    });
  return problems.length ? problems.join('\n') : undefined;
}
