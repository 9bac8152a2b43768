import { describe, expect, it } from 'vitest';
import { depositWarning, tokenNote } from '../../src/format/network.js';
import { CURRENCIES, NETWORKS } from '../../src/wallet/enums.js';

describe('tokenNote: any currency that is not the network’s own coin is a token on it', () => {
  it('names coins with a chain of their own, whichever they are', () => {
    expect(tokenNote('BTC', 'BSC')).toBe(
      'BTC on BSC is a BEP-20 token at a BSC address: BTC sent over the Bitcoin network itself is lost.',
    );
    expect(tokenNote('ETH', 'BSC')).toBe(
      'ETH on BSC is a BEP-20 token at a BSC address: ETH sent over the Ethereum network itself is lost.',
    );
    expect(tokenNote('TRX', 'BSC')).toBe(
      'TRX on BSC is a BEP-20 token at a BSC address: TRX sent over the TRON network itself is lost.',
    );
    expect(tokenNote('USDT', 'TRON')).toBe('USDT on TRON is a TRC-20 token at a TRON address.');
  });

  it('says nothing of a network’s own coin', () => {
    for (const [c, n] of [
      ['BNB', 'BSC'],
      ['ETH', 'ETH'],
      ['ETH', 'ARBITRUM'],
      ['MATIC', 'POLYGON'],
      ['CELO', 'CELO'],
      ['TRX', 'TRON'],
    ])
      expect(tokenNote(c!, n!), `${c} on ${n}`).toBeUndefined();
    expect(depositWarning('TRX', 'TRON')).toBe('Send only TRX on TRON (TRC-20); anything else may be lost.');
  });

  it('covers every network of the service: at most one currency per network is its own', () => {
    for (const n of NETWORKS) {
      const native = CURRENCIES.filter((c) => tokenNote(c.name, n.name) === undefined);
      expect(native.length, n.name).toBeLessThanOrEqual(1);
    }
  });
});
