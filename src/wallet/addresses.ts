/**
 * Address formats by network, shared by the sandbox (generation) and the withdrawal policy
 * (validation of destinations). The NETWORK decides, never the currency: the wallet service's
 * networks (BSC, ETH, POLYGON, CELO, ARBITRUM, AVALANCHE, HECOCHAIN, TRON: public-facts.md)
 * are all account chains where every asset, BTC included, is a token at the chain's own
 * address format (BTC on BSC is a BEP-20 token at a 0x address). Bitcoin's own network is not
 * one of them, so no bech32 address is ever a valid destination or deposit address here.
 */
import { createHash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3';
import bs58check from 'bs58check';
import type { EnumMember } from './enums.js';

export type AddressFamily = 'evm' | 'tron';

/** The address family of a network of the service's list: TRON's base58, else an EVM chain's 0x hex. */
export function addressFamily(network: Pick<EnumMember, 'name'>): AddressFamily {
  return network.name === 'TRON' ? 'tron' : 'evm';
}

const DESCRIPTIONS: Record<AddressFamily, string> = {
  evm: '0x followed by 40 hexadecimal characters',
  tron: 'a TRON address: T followed by 33 letters and digits',
};

export function describeFormat(family: AddressFamily): string {
  return DESCRIPTIONS[family];
}

/**
 * An EVM address with its EIP-55 checksum: each letter upper-case where the matching nibble of
 * keccak-256 of the lower-case hex (without 0x) is 8 or more.
 */
export function toChecksumAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(hex))).toString('hex');
  return `0x${[...hex].map((c, i) => (Number.parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('')}`;
}

/**
 * A mixed-case EVM address whose capitals do not match its EIP-55 checksum: a mistyped or
 * altered address (all lower- or all upper-case carries no checksum and is accepted as it is).
 */
export function brokenChecksum(family: AddressFamily, address: string): boolean {
  if (family !== 'evm' || !/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return false;
  return toChecksumAddress(address) !== address;
}

/** Said wherever a typed address's checksum is broken. */
export const BROKEN_CHECKSUM =
  "This address's capital letters do not match its checksum: copy it again from its source.";

export function isValidAddress(family: AddressFamily, address: string): boolean {
  switch (family) {
    case 'evm':
      return /^0x[0-9a-fA-F]{40}$/.test(address) && !brokenChecksum(family, address);
    case 'tron':
      try {
        const payload = bs58check.decode(address);
        return address.startsWith('T') && payload.length === 21 && payload[0] === 0x41;
      } catch {
        return false;
      }
  }
}

/** A deterministic address for a seed: the same seed always gives the same address. */
export function deriveAddress(family: AddressFamily, seed: string): string {
  const twenty = createHash('sha256').update(seed).digest().subarray(0, 20);
  return family === 'evm'
    ? `0x${twenty.toString('hex')}`
    : bs58check.encode(Buffer.concat([Buffer.from([0x41]), twenty]));
}
