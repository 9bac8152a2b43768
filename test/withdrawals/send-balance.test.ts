/**
 * The balance the send checks before its claim: read once per send, started by the approval
 * that completes the quorum (so the read runs beside that approval's commit), and only by an
 * approver's click. A balance that fell below the amount since the request still stops the send.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createBalanceBook } from '../../src/balances/book.js';
import { giveWay } from '../../src/util/give-way.js';
import type { BalanceSource, WithdrawalRequest } from '../../src/withdrawals/index.js';
import type { WithdrawalHooks } from '../../src/withdrawals/types.js';
import { CLIENT, quietLogger, usdt, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** The wallet service's balances; each read is noted in `log` when it begins. */
function watchedBalances(t: World): { source: BalanceSource; log: string[] } {
  const book = createBalanceBook({ wallet: t.wallet, logger: quietLogger(), now: () => t.clock.now });
  const log: string[] = [];
  return {
    log,
    source: {
      read: (currency, network) => {
        log.push('balance read');
        return book.read(currency, network);
      },
      last: (currency, network) => book.last(currency, network),
    },
  };
}

/** A world whose service reads balances through `watchedBalances`; `hooks` may note into the same log. */
async function watchedWorld(hooks?: (log: string[]) => WithdrawalHooks): Promise<string[]> {
  w = await world();
  const b = watchedBalances(w);
  w.rebuild({ balances: b.source, ...(hooks ? { hooks: hooks(b.log) } : {}) });
  return b.log;
}

const requested = async (input: ReturnType<typeof usdt>): Promise<WithdrawalRequest> => {
  const r = await w!.service.request(input, 'U0ALICE');
  if (!r.ok) throw new Error(`${r.rule}: ${r.message}`);
  return r.request;
};

describe('the balance checked before the send', () => {
  it('is read once, started by the last approval before that approval is durable', async () => {
    const log = await watchedWorld((noted) => ({
      afterApprovalDurable: async () => void noted.push('approval durable'),
    }));
    const r = await requested(usdt('1500')); // two approvals
    log.length = 0; // the request's own read

    const first = await w!.service.approve(r.id, 'U0CAROL');
    expect(first.ok && first.execution).toBe(undefined);
    expect(log).toEqual(['approval durable']); // one more approval to come: nothing to send yet

    log.length = 0;
    const last = await w!.service.approve(r.id, 'U0DAVE');
    if (!last.ok || !last.execution) throw new Error('expected the last approval to start the send');
    expect((await last.execution).state).toBe('completed');
    // Began while the approval was being written: the read ran beside its commit, not after it.
    expect(log).toEqual(['balance read', 'approval durable']);
    expect(w!.posts()).toBe(1);
  });

  it('a balance that fell below the amount since the request: failed, nothing sent', async () => {
    await watchedWorld();
    const r = await requested(usdt('500'));
    w!.sandbox.setBalance(CLIENT, 'USDT', 'BSC', '100');
    const a = await w!.service.approve(r.id, 'U0CAROL');
    if (!a.ok || !a.execution) throw new Error('expected the approval to start the send');
    const done = await a.execution;
    expect(done.state).toBe('failed');
    expect(w!.posts()).toBe(0);
  });

  it('someone who may not approve starts no read: nobody else can make the app call the service', async () => {
    const log = await watchedWorld();
    const r = await requested(usdt('500'));
    log.length = 0;
    const refused = await w!.service.approve(r.id, 'U0MALLORY');
    expect(refused.ok).toBe(false);
    const own = await w!.service.approve(r.id, 'U0ALICE'); // an approver, but the requester
    expect(own.ok).toBe(false);
    expect(log).toEqual([]);
    expect(w!.service.get(r.id)?.state).toBe('pending');
  });

  it('holds the outbox back only while the last approval is turned into a send, and lets go on every other path', async () => {
    w = await world();
    const sendsFirst = giveWay(60_000); // no cap in the way: every hold must be ended by the app
    const failHook = { on: false };
    w.rebuild({
      goFirst: sendsFirst.hold,
      hooks: {
        afterApprovalDurable: () => {
          if (failHook.on) throw new Error('crash point');
        },
      },
    });
    const cleared = () =>
      Promise.race([sendsFirst.clear().then(() => true), new Promise((r) => setTimeout(r, 50, false))]);

    // The last approval: held from its commit until the call is on its way, then let go.
    const two = await requested(usdt('1500'));
    expect((await w.service.approve(two.id, 'U0CAROL')).ok).toBe(true);
    const last = await w.service.approve(two.id, 'U0DAVE');
    if (!last.ok || !last.execution) throw new Error('expected the last approval to start the send');
    expect((await last.execution).state).toBe('completed');
    expect(await cleared()).toBe(true);

    // Refused inside the commit after all (the same approver twice: no head start is even taken).
    const again = await requested(usdt('1500'));
    expect((await w.service.approve(again.id, 'U0CAROL')).ok).toBe(true);
    expect((await w.service.approve(again.id, 'U0CAROL')).ok).toBe(false);
    expect(await cleared()).toBe(true);

    // The tier's must_include is missing (ETH above 5 needs someone of S0TREASURY): refused in the commit, let go.
    const eth = await requested({ ...usdt('10'), currency: 'ETH', network: 'ETH' });
    expect((await w.service.approve(eth.id, 'U0CAROL')).ok).toBe(true);
    const missing = await w.service.approve(eth.id, 'U0DAVE');
    expect(missing.ok && missing.execution).toBeFalsy();
    expect(await cleared()).toBe(true);

    // Something fails between the approval and the send: let go too.
    const crash = await requested(usdt('10'));
    failHook.on = true;
    await expect(w.service.approve(crash.id, 'U0CAROL')).rejects.toThrow('crash point');
    expect(await cleared()).toBe(true);
  });
});
