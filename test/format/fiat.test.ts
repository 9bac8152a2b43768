/**
 * formatPrice: a unit price for people. Cents from $10 up (as formatFiat writes values), four
 * significant digits below, so a stablecoin at $0.9984 is not "$1.00" and a small token is not
 * "$0.00"; never an exponent.
 */
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { formatFiat, formatPrice } from '../../src/format/fiat.js';
import { judgedWords } from '../../src/format/judged.js';
import { assetPriceLines } from '../../src/slack/price-words.js';

describe('formatPrice: one way to write a unit price', () => {
  it.each([
    ['0.99840704', '$0.9984'],
    ['0.000001', '$0.000001'],
    ['1.234', '$1.234'],
    ['0.0000123456', '$0.00001235'],
    // Four significant digits, rounded half up, and at least the cents.
    ['9.9994', '$9.999'],
    ['1.23449', '$1.234'],
    ['1.2345', '$1.235'],
    ['1', '$1.00'],
    ['1.5', '$1.50'],
    ['0.05', '$0.05'],
    ['0.1', '$0.10'],
    // $10 and up: cents and thousands separators, as every value.
    ['10', '$10.00'],
    ['10.004999', '$10.00'],
    ['64000', '$64,000.00'],
    ['3100.456', '$3,100.46'],
    // Rounds up to $10: written as a price of $10.
    ['9.99995', '$10.00'],
    ['9.9995', '$10.00'],
    // However small, no exponent.
    ['1e-7', '$0.0000001'],
    ['1.23456e-12', '$0.000000000001235'],
    ['0.00000000000000000001', '$0.00000000000000000001'],
    ['0', '$0.00'],
    ['-0.99841', '-$0.9984'],
    ['not a number', 'not a number'],
    ['Infinity', 'Infinity'],
  ])('%s → %s', (price, shown) => {
    expect(formatPrice(price)).toBe(shown);
  });

  it('takes a number as well as decimal text', () => {
    expect(formatPrice(0.99840704)).toBe('$0.9984');
    expect(formatPrice(1e-7)).toBe('$0.0000001');
  });

  it('below $10: never an exponent, within half a unit of the fourth significant digit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999 }), fc.integer({ min: 0, max: 30 }), (digits, shift) => {
        const price = new Decimal(digits).div(new Decimal(10).pow(shift + 6));
        const shown = formatPrice(price.toFixed());
        expect(shown).toMatch(/^\$(\d\.\d{2,}|10\.00)$/);
        const back = new Decimal(shown.slice(1));
        // Four significant digits, rounded: off by at most 0.05% of the price.
        expect(back.minus(price).abs().lte(price.times('0.0005'))).toBe(true);
      }),
    );
  });

  it('from $10 up, is formatFiat', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{1,12}(\.\d{1,12})?$/), (price) => {
        expect(formatPrice(price)).toBe(formatFiat(price));
      }),
    );
  });
});

describe('every unit price shown to people goes through formatPrice', () => {
  const now = Date.parse('2030-01-01T00:10:00.000Z');
  const at = '2030-01-01T00:08:00.000Z';

  it("/treasury status: each asset's current price and the price limits judge at", () => {
    const lines = assetPriceLines(
      [
        { currency: 'USDT', current: { price: '0.99840704', at }, policy: { price: '1', judged: { basis: 'peg' } } },
        { currency: 'WNT', current: { price: '0.0000123456', at } },
        { currency: 'BTC', current: { price: '64000.5', at } },
      ],
      now,
    );
    expect(lines.split('\n')).toEqual([
      'USDT $0.9984 (2 min ago) · limits judge at $1.00, the peg of USDT',
      'WNT $0.00001235 (2 min ago)',
      'BTC $64,000.50 (2 min ago)',
    ]);
  });

  it('a value judged above the current price names that price the same way', () => {
    const judged = judgedWords(
      {
        kind: 'known',
        usd: '45.67',
        price: '0.04567',
        at,
        source: 'CoinGecko',
        market: { usd: '41.20', price: '0.0412' },
        judged: { basis: 'high', lookbackMs: 7 * 86_400_000, seenAt: at },
      },
      'XEND',
    );
    expect(judged).toBe('judged at $0.04567, the highest price of the last 7 days');
  });
});
