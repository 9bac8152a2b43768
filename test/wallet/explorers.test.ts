import { describe, expect, it } from 'vitest';
import { explorerAddressUrl, explorerTxUrl } from '../../src/wallet/explorers.js';

describe('explorer links follow the network, not the currency', () => {
  it('links BTC on BSC to BscScan (a BEP-20 token), never to a Bitcoin explorer', () => {
    const a = '0x1111111111111111111111111111111111111111';
    expect(explorerAddressUrl(a, 'BTC', 'BSC')).toBe(`https://bscscan.com/address/${a}`);
    expect(explorerTxUrl('0xabc', 'LTC', 'ETHEREUM', 'testnet')).toBe('https://sepolia.etherscan.io/tx/0xabc');
    expect(explorerTxUrl('abc', 'BTC', 'TRON')).toBe('https://tronscan.org/#/transaction/abc');
  });

  it('gives no link for an unknown network or an unsafe hash', () => {
    expect(explorerTxUrl('abc', 'BTC', 'BITCOIN')).toBeUndefined();
    expect(explorerTxUrl('abc"><x', 'USDT', 'BSC')).toBeUndefined();
  });
});
