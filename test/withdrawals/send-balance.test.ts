/**
 * The balance the send checks before its claim: read once per send, started by the approval
 * that completes the quorum (so the read runs beside that approval's commit), and only by an
 * approver's click. A balance that fell below the amount since the request still stops the send.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createBalanceBook } from '../../src/balances/book.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import type { BalanceSource, WithdrawalRequest } from '../../src/withdrawals/index.js';
import { CLIENT, quietLogger, usdt, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** The wallet service's balances, each read noting the state the store held for `watch` when it began. */
function watchedBalances(t: World): {
  source: BalanceSource;
  reads: Array<string | undefined>;
  watch: { id?: string };
} {
  const book = createBalanceBook({ wallet: t.wallet, logger: quietLogger(), now: () => t.clock.now });
  const reads: Array<string | undefined> = [];
  const watch: { id?: string } = {};
  return {
    reads,
    watch,
    source: {
      read: (currency, network) => {
        reads.push(watch.id ? t.store.get<WithdrawalRequest>(WITHDRAWALS, watch.id)?.state : undefined);
        return book.read(currency, network);
      },
      last: (currency, network) => book.last(currency, network),
    },
  };
}

const requested = async (input: ReturnType<typeof usdt>): Promise<WithdrawalRequest> => {
  const r = await w!.service.request(input, 'U0ALICE');
  if (!r.ok) throw new Error(`${r.rule}: ${r.message}`);
  return r.request;
};

describe('the balance checked before the send', () => {
  it('is read once, started by the last approval before that approval is committed', async () => {
    w = await world();
    const b = watchedBalances(w);
    w.rebuild({ balances: b.source });
    const r = await requested(usdt('1500')); // two approvals
    b.watch.id = r.id;
    b.reads.length = 0; // the request's own read

    const first = await w.service.approve(r.id, 'U0CAROL');
    expect(first.ok && first.execution).toBe(undefined);
    expect(b.reads).toEqual([]); // one more approval to come: nothing to send yet

    const last = await w.service.approve(r.id, 'U0DAVE');
    if (!last.ok || !last.execution) throw new Error('expected the last approval to start the send');
    expect((await last.execution).state).toBe('completed');
    // Began while the store still said pending: the read ran beside the approval's commit.
    expect(b.reads).toEqual(['pending']);
    expect(w.posts()).toBe(1);
  });

  it('a balance that fell below the amount since the request: failed, nothing sent', async () => {
    w = await world();
    const b = watchedBalances(w);
    w.rebuild({ balances: b.source });
    const r = await requested(usdt('500'));
    w.sandbox.setBalance(CLIENT, 'USDT', 'BSC', '100');
    const a = await w.service.approve(r.id, 'U0CAROL');
    if (!a.ok || !a.execution) throw new Error('expected the approval to start the send');
    const done = await a.execution;
    expect(done.state).toBe('failed');
    expect(w.posts()).toBe(0);
  });

  it('someone who may not approve starts no read: nobody else can make the app call the service', async () => {
    w = await world();
    const b = watchedBalances(w);
    w.rebuild({ balances: b.source });
    const r = await requested(usdt('500'));
    b.reads.length = 0;
    const refused = await w.service.approve(r.id, 'U0MALLORY');
    expect(refused.ok).toBe(false);
    const own = await w.service.approve(r.id, 'U0ALICE'); // an approver, but the requester
    expect(own.ok).toBe(false);
    expect(b.reads).toEqual([]);
    expect(w.service.get(r.id)?.state).toBe('pending');
  });
});
