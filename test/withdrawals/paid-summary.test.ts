/**
 * A completed payment that leaves memory (its commit folds it into the paid summary) still counts
 * for what read every completed payment: the card's "never paid before", a known client and the
 * fee estimate. The eviction is played here as the history pass does it: fold and take out in one
 * commit (on the embedded store, taking out is a delete).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { foldPaid, PAID_CLIENTS, PAID_DESTINATIONS } from '../../src/withdrawals/paid-summary.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { usdt, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function paidAndGone(w: World, fold: boolean): Promise<WithdrawalRequest> {
  const made = await w.service.request(usdt('10'), 'U0ALICE');
  if (!made.ok) throw new Error(made.message);
  const approved = await w.service.approve(made.request.id, 'U0CAROL');
  expect(approved.ok && (await approved.execution)?.state).toBe('completed');
  const done = w.store.get(WITHDRAWALS, made.request.id)!;
  await w.store.commit((tx) => {
    if (fold) foldPaid(tx, done);
    tx.delete(WITHDRAWALS, done.id);
  });
  return done;
}

describe('the paid summary', () => {
  it('keeps "paid before", the known client and the fee estimate once the payment left memory', async () => {
    w = await world({ policy: { allowlist: 'warn' } });
    const done = await paidAndGone(w, true);
    expect(w.store.count(WITHDRAWALS)).toBe(0);
    expect(w.store.all(PAID_DESTINATIONS)).toEqual([expect.objectContaining({ amounts: { USDT: '10' }, payments: 1 })]);
    expect(w.store.all(PAID_CLIENTS)).toHaveLength(1);
    expect(w.service.feeEstimate('USDT', 'BSC')).toBeDefined();

    // The same EVM address on another EVM network, in other casing: paid before.
    const again = await w.service.request(
      usdt('10', { network: 'POLYGON', destination: done.destination.toUpperCase().replace('0X', '0x') }),
      'U0BOB',
    );
    expect(again.ok && again.request.allowlist.neverPaidBefore).toBe(false);
    expect(again.ok && again.request.newClient).toBeFalsy();
  });

  it('without the fold the payment is forgotten (what the summary is for)', async () => {
    w = await world({ policy: { allowlist: 'warn' } });
    await paidAndGone(w, false);
    const again = await w.service.request(usdt('10'), 'U0BOB');
    expect(again.ok && again.request.allowlist.neverPaidBefore).toBe(true);
    expect(again.ok && again.request.newClient).toBe(true);
    expect(w.service.feeEstimate('USDT', 'BSC')).toBeUndefined();
  });
});
