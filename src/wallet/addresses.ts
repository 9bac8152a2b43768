/**
 * Address formats by network, shared by the sandbox (generation) and the withdrawal
 * policy (validation of destinations). BTC and LTC live on their own chains whatever
 * network the request names, so their addresses are bech32.
 */
import { createHash } from 'node:crypto';
import { bech32 } from 'bech32';
import bs58check from 'bs58check';
import type { CurrencyMember, EnumMember } from './enums.js';

export type AddressFamily = 'evm' | 'tron' | 'btc' | 'ltc';

export function addressFamily(currency: CurrencyMember, network: EnumMember): AddressFamily {
  if (currency.name === 'BTC') return 'btc';
  if (currency.name === 'LTC') return 'ltc';
  if (network.name === 'TRON') return 'tron';
  return 'evm';
}

const DESCRIPTIONS: Record<AddressFamily, string> = {
  evm: '0x followed by 40 hexadecimal characters',
  tron: 'a TRON base58 address starting with T (34 characters)',
  btc: 'a bech32 Bitcoin address (bc1... or tb1...)',
  ltc: 'a bech32 Litecoin address (ltc1... or tltc1...)',
};

export function describeFormat(family: AddressFamily): string {
  return DESCRIPTIONS[family];
}

function isBech32(address: string, prefixes: string[]): boolean {
  try {
    const decoded = bech32.decode(address.toLowerCase());
    return prefixes.includes(decoded.prefix) && decoded.words.length > 0;
  } catch {
    return false;
  }
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
    case 'btc':
      return isBech32(address, ['bc', 'tb']);
    case 'ltc':
      return isBech32(address, ['ltc', 'tltc']);
  }
}

/** A deterministic address for a seed: the same seed always gives the same address. */
export function deriveAddress(family: AddressFamily, seed: string, testnet = true): string {
  const digest = createHash('sha256').update(seed).digest();
  const twenty = digest.subarray(0, 20);
  switch (family) {
    case 'evm':
      return `0x${twenty.toString('hex')}`;
    case 'tron':
      return bs58check.encode(Buffer.concat([Buffer.from([0x41]), twenty]));
    case 'btc':
    case 'ltc': {
      const hrp = family === 'btc' ? (testnet ? 'tb' : 'bc') : testnet ? 'tltc' : 'ltc';
      return bech32.encode(hrp, [0, ...bech32.toWords(twenty)]);
    }
  }
}
