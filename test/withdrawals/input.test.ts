import { describe, expect, it } from 'vitest';
import { checkInput, noteThresholds } from '../../src/withdrawals/input.js';
import { testPolicy } from './helpers.js';

const policy = testPolicy();
const base = {
  amount: '10',
  currency: 'USDT',
  network: 'BSC',
  destination: '0x2222222222222222222222222222222222222222',
  clientEmail: 'client@example.com',
};
const rules = (r: ReturnType<typeof checkInput>) => (r.ok ? [] : (r.problems ?? [r]).map((p) => p.rule));

describe('checkInput: every field at once', () => {
  it('names every missing field, one problem each', () => {
    const r = checkInput(policy, { amount: '', currency: '', network: '', destination: '', clientEmail: '' });
    expect(rules(r)).toEqual(['amount', 'currency', 'network', 'destination', 'client_email']);
    expect(JSON.stringify(r)).not.toContain('Unknown');
  });

  it.each(['5,000 USDT', '250usdt', 'USDT 250', '$100'])('answers "%s" with the number only', (amount) => {
    expect(checkInput(policy, { ...base, amount })).toMatchObject({
      ok: false,
      rule: 'amount',
      message: 'Write the number only: the currency has its own field.',
    });
  });

  it('checks the destination against the network, whatever the currency', () => {
    expect(checkInput(policy, { ...base, currency: 'BTC', amount: '0.1' }).ok).toBe(true);
    expect(checkInput(policy, { ...base, currency: 'BTC', network: 'TRON', amount: '0.1' })).toMatchObject({
      ok: false,
      rule: 'destination',
      message: expect.stringContaining('Not an address on TRON (TRC-20): expected a TRON address'),
    });
    // An unknown network: its format cannot be judged, only the network is named.
    expect(rules(checkInput(policy, { ...base, network: 'MOON', destination: 'anything' }))).toEqual(['network']);
  });

  it('says in words when a mixed-case address has a broken checksum', () => {
    expect(checkInput(policy, { ...base, destination: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' })).toMatchObject({
      ok: false,
      rule: 'destination',
      message: "This address's capital letters do not match its checksum: copy it again from its source.",
    });
    expect(checkInput(policy, { ...base, destination: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }).ok).toBe(true);
  });

  it('gives the note thresholds in amounts', () => {
    const withNote = { ...policy, withdrawals: { ...policy.withdrawals, note_required_above: { USDT: '1000' } } };
    expect(noteThresholds(withNote)).toEqual(['1,000.00 USDT']);
  });
});
