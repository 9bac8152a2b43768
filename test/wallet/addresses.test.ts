import { describe, expect, it } from 'vitest';
import { brokenChecksum, isValidAddress, toChecksumAddress } from '../../src/wallet/addresses.js';

// EIP-55's own examples.
const CHECKSUMMED = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

describe('EVM addresses and EIP-55', () => {
  it('computes the checksum of the EIP examples', () => {
    for (const a of CHECKSUMMED) expect(toChecksumAddress(a.toLowerCase())).toBe(a);
  });

  it('accepts a correct mixed-case address, all lower-case and all upper-case', () => {
    for (const a of CHECKSUMMED) {
      expect(isValidAddress('evm', a), a).toBe(true);
      expect(isValidAddress('evm', a.toLowerCase())).toBe(true);
      expect(isValidAddress('evm', `0x${a.slice(2).toUpperCase()}`)).toBe(true);
      expect(brokenChecksum('evm', a)).toBe(false);
    }
  });

  it('refuses a mixed-case address whose capitals do not match', () => {
    // One letter's case flipped.
    const broken = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
    expect(isValidAddress('evm', broken)).toBe(false);
    expect(brokenChecksum('evm', broken)).toBe(true);
    // Not an address at all is a format problem, not a checksum one.
    expect(brokenChecksum('evm', '0x1234')).toBe(false);
    expect(brokenChecksum('tron', broken)).toBe(false);
  });
});
