import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount } from '../../src/format/amount.js';
import { formatAmount as fromWithdrawals } from '../../src/withdrawals/index.js';

describe('formatAmount: one way to write every amount', () => {
  it.each([
    ['25000', 'USDT', '25,000.00 USDT'],
    ['1234.5', 'USDT', '1,234.50 USDT'],
    ['3718.7', 'usdt', '3,718.70 usdt'],
    ['0.000123', 'USDC', '0.000123 USDC'],
    ['1000', 'DAI', '1,000.00 DAI'],
    ['0.25', 'BTC', '0.25 BTC'],
    ['1.10000', 'BTC', '1.1 BTC'],
    ['20000', 'ETH', '20,000 ETH'],
    ['0.000000000000000001', 'ETH', '0.000000000000000001 ETH'],
    ['1234567.123456789012345678', 'BNB', '1,234,567.123456789012345678 BNB'],
    ['007', undefined, '7'],
    ['-1500.5', 'USDT', '-1,500.50 USDT'],
    ['1e-7', 'BTC', '0.0000001 BTC'],
    ['not a number', 'USDT', 'not a number USDT'],
  ])('%s %s → %s', (amount, currency, shown) => {
    expect(formatAmount(amount, currency)).toBe(shown);
  });

  it('the withdrawals domain uses the same formatter', () => {
    expect(fromWithdrawals).toBe(formatAmount);
  });

  it('never loses a digit: removing the separators gives the same number back', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{1,30}(\.\d{1,30})?$/),
        fc.constantFrom('USDT', 'BTC', 'ETH', undefined),
        (amount, currency) => {
          const shown = formatAmount(amount, currency);
          const number = shown.split(' ')[0]!.replace(/,/g, '');
          const trim = (s: string) =>
            (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s).replace(/^0+(?=\d)/, '');
          expect(trim(number)).toBe(trim(amount));
          expect(shown.split(' ')[0]).toMatch(/^\d{1,3}(,\d{3})*(\.\d+)?$/);
        },
      ),
    );
  });
});
