/** WALLET_PAGE_SIZE: the page size of every multi-page read (src/wallet/pager.ts), 50 unless set. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('WALLET_PAGE_SIZE', () => {
  it('defaults to 50, the size the spec documents as accepted', () => {
    expect(loadConfig({}).wallet.pageSize).toBe(50);
  });

  it('takes a whole number from 1 to 1000', () => {
    expect(loadConfig({ WALLET_PAGE_SIZE: '30' }).wallet.pageSize).toBe(30);
    for (const bad of ['0', '1001', '2.5', 'fifty'])
      expect(() => loadConfig({ WALLET_PAGE_SIZE: bad }), bad).toThrow(ConfigError);
    expect(() => loadConfig({ WALLET_PAGE_SIZE: 'fifty' })).toThrow(
      /WALLET_PAGE_SIZE: must be a whole number from 1 to 1000/,
    );
  });
});
