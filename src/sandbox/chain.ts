/**
 * What a blockchain would give the sandbox: transaction hashes in each chain's format,
 * outside counterparties' addresses, and testnet block-explorer links.
 */
import { createHash } from 'node:crypto';
import { addressFamily, deriveAddress, type AddressFamily } from '../wallet/addresses.js';
import type { CurrencyMember, EnumMember } from '../wallet/enums.js';
import { explorerFor, type Explorer } from '../wallet/explorers.js';

/** EVM hashes are 0x + 64 hex; TRON writes the 64 hex digits bare. */
export function txHash(family: AddressFamily, seed: string): string {
  const hex = createHash('sha256').update(`tx:${seed}`).digest('hex');
  return family === 'evm' ? `0x${hex}` : hex;
}

/** An address that belongs to nobody in the sandbox (a deposit's sender, a withdrawal's destination). */
export function externalAddress(network: EnumMember, seed: string): string {
  return deriveAddress(addressFamily(network), `external:${seed}`);
}

// A sandbox stands in for a testnet deployment, so its links point at the test networks' explorers.
function explorer(currency: CurrencyMember, network: EnumMember): Explorer {
  const e = explorerFor(currency.name, network.name, 'testnet');
  // Every member of NETWORKS has an explorer; a new network without one should fail loudly here.
  if (!e) throw new Error(`no testnet explorer for ${currency.name} on ${network.name}`);
  return e;
}

// The hash and address are appended as given (no safety filter): the sandbox plays the
// service, which links whatever hash the chain reported.
export function txUrl(currency: CurrencyMember, network: EnumMember, hash: string): string {
  return explorer(currency, network).tx + hash;
}

export function addressUrl(currency: CurrencyMember, network: EnumMember, address: string): string {
  return explorer(currency, network).address + address;
}
