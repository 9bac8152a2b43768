/**
 * The pure cores of balances and exact status: the `balance` rule, the settlement of an unknown
 * withdrawal by its status (the NotFound grace at its boundary), the low-balance transitions,
 * and how a reference finds a request.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findByReference } from '../../commands/treasury/withdrawal.js';
import { balanceIn } from '../../src/balances/book.js';
import {
  lowBalanceChanges,
  lowBalanceText,
  unrecorded,
  withMissingAsZero,
  type LowBalanceState,
} from '../../src/balances/low-balance.js';
import { decide } from '../../src/withdrawals/decide/index.js';
import { admitRequest, checkBalance } from '../../src/withdrawals/rules.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { CLIENT, DEST, T0, testPolicy } from '../withdrawals/helpers.js';

const policy = testPolicy();
const MINUTE = 60_000;

/** A request sent at T0 whose outcome is unknown. */
function unknownRequest(): WithdrawalRequest {
  const checked = admitRequest(
    policy,
    { amount: '50', currency: 'USDT', network: 'BSC', destination: DEST, clientEmail: CLIENT },
    true,
  );
  if (!checked.ok) throw new Error(checked.message);
  const d = decide(
    { type: 'request', requester: 'U0ALICE', checked, id: 'w1', merchantReference: 'ref-w1', existing: [] },
    undefined,
    { now: T0 - MINUTE, policy },
  );
  if (d.kind !== 'changed') throw new Error('not requested');
  return {
    ...d.next,
    state: 'unknown',
    sendStartedAt: new Date(T0).toISOString(),
    unknownReason: 'connection lost',
  };
}

const status = (s: 'not_found' | 'pending' | 'completed' | 'failed') => ({
  status: s,
  merchantReference: 'ref-w1',
  amount: s === 'completed' ? '50' : null,
  destinationAddress: null,
  transactionHash: s === 'completed' ? `0x${'a'.repeat(64)}` : null,
});

describe('checkBalance', () => {
  it('refuses only an amount above the balance; an unknown balance passes', () => {
    expect(checkBalance('1000', { amount: '1000', currency: 'USDT', network: 'BSC' })).toBeUndefined();
    expect(checkBalance(undefined, { amount: '1e9', currency: 'USDT', network: 'BSC' })).toBeUndefined();
    expect(checkBalance('1000', { amount: '2500', currency: 'USDT', network: 'BSC' })).toEqual({
      ok: false,
      rule: 'balance',
      message: 'The balance is 1,000.00 USDT on BSC; this request is for 2,500.00.',
    });
    // Exact decimals: one unit of the 18th decimal place over is over.
    expect(checkBalance('1', { amount: '1.000000000000000001', currency: 'ETH', network: 'ETH' })?.message).toBe(
      'The balance is 1 ETH on ETH; this request is for 1.000000000000000001.',
    );
  });

  it('the request command refuses with it, inside the decider', () => {
    const checked = admitRequest(
      policy,
      { amount: '2500', currency: 'USDT', network: 'BSC', destination: DEST, clientEmail: CLIENT },
      true,
    );
    if (!checked.ok) throw new Error(checked.message);
    const base = {
      type: 'request',
      requester: 'U0ALICE',
      checked,
      id: 'w1',
      merchantReference: 'r',
      existing: [],
    } as const;
    expect(decide({ ...base, balance: '1000' }, undefined, { now: T0, policy })).toMatchObject({
      kind: 'refused',
      reason: 'balance',
    });
    const unread = decide({ ...base, balance: null }, undefined, { now: T0, policy });
    expect(unread.kind === 'changed' && unread.next.balanceAtRequest).toEqual({
      balance: null,
      at: new Date(T0).toISOString(),
    });
  });
});

describe('settle-by-status', () => {
  const ctx = (now: number) => ({ now, policy });

  it('NotFound keeps it unknown until the grace (10 minutes by default) has passed since the send', () => {
    const r = unknownRequest();
    expect(decide({ type: 'settle-by-status', status: status('not_found') }, r, ctx(T0 + 10 * MINUTE - 1)).kind).toBe(
      'unchanged',
    );
    const d = decide({ type: 'settle-by-status', status: status('not_found') }, r, ctx(T0 + 10 * MINUTE));
    expect(d).toMatchObject({
      kind: 'changed',
      next: {
        state: 'failed',
        error: { kind: 'never_executed', message: 'Not sent: the wallet service has no record of it.' },
      },
      audit: { action: 'reconcile', actor: 'system', details: { outcome: 'never_executed', via: 'status' } },
      event: 'failed',
    });
  });

  it('the grace comes from the policy in force', () => {
    const r = unknownRequest();
    const short = { ...policy, withdrawals: { ...policy.withdrawals, not_found_grace: MINUTE } };
    expect(
      decide({ type: 'settle-by-status', status: status('not_found') }, r, { now: T0 + MINUTE, policy: short }).kind,
    ).toBe('changed');
  });

  it('Completed and Failed settle it; Pending keeps it unknown; anything not unknown is left alone', () => {
    const r = unknownRequest();
    expect(decide({ type: 'settle-by-status', status: status('completed') }, r, ctx(T0))).toMatchObject({
      next: { state: 'completed', result: { source: 'reconcile', via: 'status', amount: '50' } },
    });
    expect(decide({ type: 'settle-by-status', status: status('failed') }, r, ctx(T0))).toMatchObject({
      next: { state: 'failed', error: { kind: 'reported_failed' } },
    });
    expect(decide({ type: 'settle-by-status', status: status('pending') }, r, ctx(T0 + 99 * MINUTE)).kind).toBe(
      'unchanged',
    );
    for (const state of ['pending', 'approved', 'executing', 'completed', 'failed'] as const)
      expect(
        decide({ type: 'settle-by-status', status: status('not_found') }, { ...r, state }, ctx(T0 + 99 * MINUTE)).kind,
      ).toBe('unchanged');
  });
});

describe('low-balance transitions', () => {
  const thresholds = { USDT: '1000' };
  const row = (balance: string, network = 'BSC') => ({ currency: 'USDT', network, balance });

  it('announces a fall and a recovery once each, and only for currencies with a threshold', () => {
    expect(
      lowBalanceChanges(thresholds, [row('850'), { currency: 'ETH', network: 'ETH', balance: '0' }], () => undefined),
    ).toEqual([{ key: 'USDT:BSC', kind: 'low', currency: 'USDT', network: 'BSC', balance: '850', threshold: '1000' }]);
    const low = () => ({ low: true, since: 'x' });
    expect(lowBalanceChanges(thresholds, [row('999.999999')], low)).toEqual([]);
    expect(lowBalanceChanges(thresholds, [row('1000')], low)).toMatchObject([{ kind: 'recovered' }]);
    expect(lowBalanceText({ kind: 'low', currency: 'USDT', network: 'BSC', balance: '850', threshold: '1000' })).toBe(
      '⚠️ Low balance: USDT on BSC is 850.00 (below 1,000.00)',
    );
  });

  it('a known asset missing from a reading counts as 0 (low); one never seen says nothing', () => {
    const known = [{ currency: 'USDT', network: 'TRON' }];
    const reading = withMissingAsZero([row('5000')], known);
    expect(reading).toEqual([row('5000'), row('0', 'TRON')]);
    const seen = (key: string) =>
      key === 'USDT:TRON' ? { low: false, since: 'x', currency: 'USDT', network: 'TRON' } : undefined;
    expect(lowBalanceChanges(thresholds, reading, seen)).toEqual([
      { key: 'USDT:TRON', kind: 'low', currency: 'USDT', network: 'TRON', balance: '0', threshold: '1000' },
    ]);
    // Listed again above the threshold: recovered.
    const low = (key: string) => (key === 'USDT:TRON' ? { low: true, since: 'x' } : undefined);
    expect(lowBalanceChanges(thresholds, withMissingAsZero([row('5000', 'TRON')], known), low)).toMatchObject([
      { key: 'USDT:TRON', kind: 'recovered' },
    ]);
    // Never seen, not listed: nothing.
    expect(lowBalanceChanges(thresholds, withMissingAsZero([row('5000')], []), () => undefined)).toEqual([]);
  });

  it('records first sight of an asset with a threshold (and fills in records without the asset), nothing else', () => {
    const rows = [row('5000'), row('5', 'TRON'), { currency: 'ETH', network: 'ETH', balance: '1' }];
    expect(unrecorded(thresholds, rows, () => undefined)).toEqual([row('5000'), row('5', 'TRON')]);
    const old = (key: string) => (key === 'USDT:BSC' ? { low: false, since: 'x' } : undefined);
    expect(unrecorded(thresholds, rows, old)).toEqual([row('5000'), row('5', 'TRON')]);
    const full = (key: string) => {
      const [currency, network] = key.split(':');
      return { low: false, since: 'x', currency, network };
    };
    expect(unrecorded(thresholds, rows, full)).toEqual([]);
  });

  it('over any sequence of readings, alerts alternate low/recovered and match each crossing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 40 }), (balances) => {
        let state: LowBalanceState | undefined;
        const kinds: string[] = [];
        for (const b of balances) {
          for (const c of lowBalanceChanges(thresholds, [row(String(b))], () => state)) {
            kinds.push(c.kind);
            state = { low: c.kind === 'low', since: '' };
          }
        }
        expect(kinds).toEqual(kinds.map((_, i) => (i % 2 === 0 ? 'low' : 'recovered')));
        const crossings = balances.reduce(
          (acc, b) => {
            const low = b < 1000;
            return { low, n: acc.n + (low !== acc.low ? 1 : 0) };
          },
          { low: false, n: 0 },
        ).n;
        expect(kinds).toHaveLength(crossings);
      }),
    );
  });

  it('an asset the service does not list has an unknown balance (not 0)', () => {
    expect(balanceIn([row('5')], 'usdt', 'bsc')).toBe('5');
    expect(balanceIn([row('5')], 'USDT', 'TRON')).toBeUndefined();
    expect(balanceIn([], 'USDT', 'BSC')).toBeUndefined();
  });
});

describe('findByReference', () => {
  const r = (id: string, merchantReference: string) => ({ id, merchantReference }) as WithdrawalRequest;
  const all = [r('i1', 'abcdef12-0000'), r('i2', 'abcdef99-0000'), r('i3', 'ffff0000-1111')];
  it('exact reference or id first, else a prefix (the card short reference)', () => {
    expect(findByReference(all, 'abcdef12-0000').map((x) => x.id)).toEqual(['i1']);
    expect(findByReference(all, 'i3').map((x) => x.id)).toEqual(['i3']);
    expect(findByReference(all, 'ABCDEF12').map((x) => x.id)).toEqual(['i1']);
    expect(findByReference(all, 'abcdef').map((x) => x.id)).toEqual(['i1', 'i2']);
    expect(findByReference(all, 'zzzzzz')).toEqual([]);
  });
});
