/**
 * A completed payment counts once in the paid summary however often it leaves memory: put again
 * after its eviction (hot once more) and evicted again, the second fold is skipped (the
 * paid_folded mark, written by the commit that folds). With `new_destination` above $400, one
 * 250 USDT payment leaves a 500 USDT request to the same address "new"; counted twice it would
 * not be. Real PostgreSQL (only a store that evicts folds).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { moveCold, WITHDRAWAL_HOT_DAYS, WITHDRAWAL_RULE } from '../../src/history/rules.js';
import type { Valuation } from '../../src/money/value.js';
import type { Store } from '../../src/store/index.js';
import { openPgStore } from '../../src/store/pg/index.js';
import { PAID_DESTINATIONS, paidSummary } from '../../src/withdrawals/paid-summary.js';
import { judgeNewDestination } from '../../src/withdrawals/pattern-rules.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { newRequest } from '../helpers/withdrawal-request.js';
import { T0, testPolicy, usdt } from '../withdrawals/helpers.js';

const DAY = 86_400_000;
const paid: WithdrawalRequest = (() => {
  const r = newRequest({ policy: testPolicy(), input: usdt('250'), now: T0 });
  return {
    ...r,
    state: 'completed',
    history: [...r.history, { at: new Date(T0 + DAY).toISOString(), state: 'completed', by: 'system' }],
  };
})();
const known = (usd: string): Valuation => ({
  kind: 'known',
  usd,
  price: '1',
  at: new Date(T0).toISOString(),
  source: 'test',
});

function verdict(store: Store) {
  const policy = testPolicy();
  const withRule = {
    ...policy,
    withdrawals: { ...policy.withdrawals, new_destination: { above: { value: '400' }, extra_approvals: 1 } },
  };
  const next = { ...newRequest({ policy, input: usdt('500'), now: T0 + 200 * DAY }), id: 'w-next' };
  return judgeNewDestination(next, {
    step: 'request',
    now: T0 + 200 * DAY,
    policy: withRule,
    valuation: known('500'),
    requests: () => store.all(WITHDRAWALS),
    valueOf: (o) => known(o.amount),
    valueOfAmount: (_c, amount) => known(amount),
    paid: paidSummary(store),
    counted: () => [],
  });
}

describe.skipIf(!pgAvailable)(`a payment folded once${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  it('prune, put again, prune again, restart: the summary counts it once and the destination is still new', async () => {
    const url = await createTestDatabase('fold_once');
    const open = async () => {
      const { store } = await openPgStore({ url });
      stores.push(store);
      return store;
    };
    let store = await open();
    await store.commit((tx) => tx.put(WITHDRAWALS, paid.id, paid));
    const now = T0 + DAY + (WITHDRAWAL_HOT_DAYS + 1) * DAY;
    expect(await moveCold(store, WITHDRAWAL_RULE, now)).toBe(1);
    // Hot again: its copy from history put back (as a late update would), then moved again.
    const copy = await store.history.get(WITHDRAWALS, paid.id);
    await store.commit((tx) => tx.put(WITHDRAWALS, paid.id, copy!));
    expect(store.get(WITHDRAWALS, paid.id)).toBeDefined();
    expect(await moveCold(store, WITHDRAWAL_RULE, now)).toBe(1);
    await store.close();

    store = await open();
    expect(store.get(WITHDRAWALS, paid.id)).toBeUndefined();
    expect(store.all(PAID_DESTINATIONS).map((d) => [d.amounts, d.payments])).toEqual([[{ USDT: '250' }, 1]]);
    expect((await store.history.get(WITHDRAWALS, paid.id))?.paidFolded).toBe(true);
    // $250 paid before, below $400: the 500 USDT request is still to a new destination.
    expect(verdict(store)).toEqual({ kind: 'count', extraApprovals: 1 });
  }, 60_000);
});
