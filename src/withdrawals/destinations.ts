/**
 * When two addresses are one destination, and the one key that names it (the paid-summary's, the
 * limits' grouping). Pure, and a leaf: the rules, the holds and the summaries all read it.
 */
import { addressFamily, type AddressFamily } from '../wallet/addresses.js';
import { NETWORKS, lookup } from '../wallet/enums.js';
import type { WithdrawalRequest } from './types.js';

export function sameAddress(family: AddressFamily, a: string, b: string): boolean {
  // Hex is case-insensitive (checksum casing); base58 (TRON) is not.
  return family === 'tron' ? a === b : a.toLowerCase() === b.toLowerCase();
}

export const familyOf = (network: string) => {
  const n = lookup(NETWORKS, network);
  return n ? addressFamily(n) : undefined;
};

/**
 * Whether two requests pay the same destination. An EVM address is one key on every EVM network
 * (the same holder: splitting payments across BSC and Ethereum must not split a limit), compared
 * without case (checksum casing); a TRON (base58) or unknown network's address is the same only
 * on the same network, exactly.
 */
export function sameDestination(
  a: Pick<WithdrawalRequest, 'network' | 'destination'>,
  b: Pick<WithdrawalRequest, 'network' | 'destination'>,
): boolean {
  const fa = familyOf(a.network);
  if (fa === 'evm' && familyOf(b.network) === 'evm') return sameAddress('evm', a.destination, b.destination);
  return a.network === b.network && a.destination === b.destination;
}

/**
 * The key of a destination, equal exactly when sameDestination says two are the same: an EVM
 * address lowercased under one key for every EVM network, any other as written on its network.
 */
export function destinationKey(d: Pick<WithdrawalRequest, 'network' | 'destination'>): string {
  return familyOf(d.network) === 'evm' ? `evm:${d.destination.toLowerCase()}` : `${d.network}:${d.destination}`;
}
