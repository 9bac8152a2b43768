/**
 * Address formats by network, shared by the sandbox (generation) and the withdrawal policy
 * (validation of destinations). The NETWORK decides, never the currency: the wallet service's
 * networks (BSC, ETH, POLYGON, CELO, ARBITRUM, AVALANCHE, HECOCHAIN, TRON: public-facts.md)
 * are all account chains where every asset, BTC included, is a token at the chain's own
 * address format (BTC on BSC is a BEP-20 token at a 0x address). Bitcoin's own network is not
 * one of them, so no bech32 address is ever a valid destination or deposit address here.
 */
import { createHash } from 'node:crypto';
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

export function isValidAddress(family: AddressFamily, address: string): boolean {
  switch (family) {
    case 'evm':
      return /^0x[0-9a-fA-F]{40}$/.test(address);
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
