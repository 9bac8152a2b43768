/**
 * Look-alike destinations (address poisoning), pure: the same first and last four characters
 * after any `0x` as a known address of the same family (every EVM network is one), but another address.
 */
import { describe, expect, it } from 'vitest';
import { looksAlike, lookalikeOf, shortAddress } from '../../src/screening/lookalike.js';

const DESK = '0x1234567890abcdef1234567890abcdef1234abcd';
const known = [
  { address: DESK, network: 'BSC', label: 'Exchange hot wallet' },
  { address: 'TQ8pPXb1w4zNEFMHkDmBvbXHd6wjVvxAJq', network: 'TRON', label: 'OTC desk' },
];

describe('look-alike destinations', () => {
  it('same first and last four (hex in any casing), another address: a look-alike of that entry on its network', () => {
    const poisoned = '0x1234000000000000000000000000000000ffABCD';
    expect(looksAlike(DESK, poisoned)).toBe(true);
    expect(lookalikeOf(poisoned, 'BSC', known)).toMatchObject({ label: 'Exchange hot wallet' });
    // The same EVM address on another EVM network: imitated there too (the family, not the network).
    expect(lookalikeOf(poisoned, 'ETH', known)).toMatchObject({ label: 'Exchange hot wallet' });
    expect(lookalikeOf(poisoned, 'ARBITRUM', known)).toMatchObject({ label: 'Exchange hot wallet' });
    // Another family's entry is not imitated.
    expect(lookalikeOf('TQ8pZZZZZZZZZZZZZZZZZZZZZZZZZZZZvxAJq', 'BSC', known)).toBeUndefined();
    expect(shortAddress(DESK)).toBe('0x1234…abcd');
  });

  it('the address itself (any casing), or one differing at either end, is no look-alike', () => {
    expect(lookalikeOf(DESK.toUpperCase().replace('0X', '0x'), 'BSC', known)).toBeUndefined();
    expect(lookalikeOf('0x1235000000000000000000000000000000ffabcd', 'BSC', known)).toBeUndefined();
    expect(lookalikeOf('0x1234000000000000000000000000000000ffabce', 'BSC', known)).toBeUndefined();
  });

  it('base58 compares exactly: case matters', () => {
    expect(lookalikeOf('TQ8pZZZZZZZZZZZZZZZZZZZZZZZZZZZZvxAJq', 'TRON', known)).toMatchObject({ label: 'OTC desk' });
    expect(lookalikeOf('Tq8pZZZZZZZZZZZZZZZZZZZZZZZZZZZZvxAJq', 'TRON', known)).toBeUndefined();
  });
});
