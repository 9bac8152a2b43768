/** The pure comparison of a verification call's fields with the approved request (src/verification/fields.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Approved, fieldMismatches, parseCallFields } from '../../src/verification/fields.js';

const EVM = '0x2222222222222222222222222222222222222222';
const TRON = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const approved: Approved = { destination: EVM, amount: '100', currency: 'USDT', network: 'BSC' };
const differing = (r: Approved, query: string) =>
  fieldMismatches(r, parseCallFields(new URLSearchParams(query))).map((m) => `${m.field}=${m.asked}`);

describe('fieldMismatches', () => {
  it('a call with the reference alone, or other parameters, carries nothing to compare', () => {
    expect(differing(approved, 'reference=x')).toEqual([]);
    expect(differing(approved, 'reference=x&checksum=abc&memo=5000')).toEqual([]);
  });

  it('names every documented spelling, in any case, and compares each value', () => {
    expect(
      differing(
        approved,
        'AMOUNT=7&withdrawnAmountRequested=8&Currency=BTC&paymentCurrency=2&NETWORKCHAIN=TRON&network=5&DestinationAddress=0x3&destination=0x4',
      ),
    ).toEqual([
      'destination=0x3',
      'destination=0x4',
      'amount=7',
      'amount=8',
      'currency=BTC',
      'currency=2',
      'network=TRON',
      'network=5',
    ]);
  });

  it('currency and network by code, name in any case, or alias', () => {
    expect(differing(approved, 'currency=4&currency=usdt&networkChain=1&network=bsc')).toEqual([]);
    const eth: Approved = { ...approved, currency: 'MATIC', network: 'ETH' };
    expect(differing(eth, 'currency=POLYGON&currency=9&networkChain=ETHEREUM&networkChain=2')).toEqual([]);
    expect(differing(eth, 'networkChain=POLYGON')).toEqual(['network=POLYGON']);
  });

  it('the destination as its family compares it: EVM in any case, TRON exactly', () => {
    expect(differing(approved, `destinationAddress=${EVM.toUpperCase().replace('0X', '0x')}`)).toEqual([]);
    const tron: Approved = { ...approved, destination: TRON, network: 'TRON' };
    expect(differing(tron, `destinationAddress=${TRON}`)).toEqual([]);
    expect(differing(tron, `destinationAddress=${TRON.toLowerCase()}`)).toEqual([`destination=${TRON.toLowerCase()}`]);
  });

  it('an amount is equal as a decimal in any plain spelling, and any other amount differs', () => {
    const digits = fc.stringMatching(/^[1-9]\d{0,14}$/);
    fc.assert(
      fc.property(digits, fc.stringMatching(/^\d{0,17}[1-9]$/), fc.nat(6), (int, frac, zeros) => {
        const amount = `${int}.${frac}`;
        const r = { ...approved, amount };
        // Written with more trailing zeros, or leading ones: the same amount.
        expect(differing(r, `amount=0${amount}${'0'.repeat(zeros)}`)).toEqual([]);
        // One more digit after the last: another amount, however small the difference.
        const more = `${amount}1`;
        expect(differing(r, `amount=${more}`)).toEqual([`amount=${more}`]);
      }),
    );
  });

  it('a value that does not parse differs, whatever it would mean elsewhere', () => {
    for (const v of ['', ' ', 'abc', '1e2', '0x64', '+100', '-100', '100,00', '1,000', '100.', '.5', 'NaN', 'Infinity'])
      expect(differing(approved, `amount=${encodeURIComponent(v)}`), v).toEqual([`amount=${v}`]);
    expect(differing(approved, 'currency=DOGE&networkChain=0&destination=')).toEqual([
      'destination=',
      'currency=DOGE',
      'network=0',
    ]);
  });
});
