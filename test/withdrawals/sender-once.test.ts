/**
 * The sender's bookkeeping of sends in flight: a second start for the same request joins the
 * first (so inFlight() and idle() stay true to what is calling the wallet), and sendApproved()
 * waits for the sends in flight before picking up what is still approved.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSender } from '../../src/withdrawals/sender.js';
import { createShell } from '../../src/withdrawals/shell.js';
import { WITHDRAWALS, type WithdrawalRequest } from '../../src/withdrawals/index.js';
import { quietLogger, usdt, world, type World } from './helpers.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { FREEZES } from '../../src/freeze/state.js';
import { until } from '../helpers/wait.js';

let w: World | undefined;
const latches: Array<() => void> = [];
afterEach(async () => {
  // A failed test leaves its send held: let it finish so the world closes.
  for (const open of latches.splice(0)) open();
  await w?.close();
  w = undefined;
});

/** The request with as many approvals as its tier asks (the claim judges them by the rule table). */
const asApproved = (r: WithdrawalRequest): WithdrawalRequest => ({
  ...r,
  state: 'approved',
  approvals: ['U0CAROL', 'U0DAVE', 'U0ERIN'].slice(0, r.tier.approvals).map((user) => ({
    user,
    at: r.createdAt,
    satisfies: [...r.tier.mustInclude],
  })),
});

/** A point the test opens: whoever awaits `wait()` is held until `open()`. */
function latch() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  let reached!: () => void;
  const arrived = new Promise<void>((r) => {
    reached = r;
  });
  latches.push(open);
  return {
    open,
    arrived,
    wait: async () => {
      reached();
      await opened;
    },
  };
}

describe('sender.start', () => {
  it('a second start for a request in flight joins the first: still in flight until the one wallet call is done', async () => {
    w = await world();
    const x = w;
    // A request made through the service, marked approved by hand so only this sender sends it.
    const r = await x.service.request(usdt('100'), 'U0ALICE');
    if (!r.ok) throw new Error(r.message);
    const gate = latch();
    const shell = createShell({
      store: x.store,
      policy: fixedPolicy(x.policy),
      now: () => x.clock.now,
      logger: quietLogger(),
    });
    const sender = createSender(shell, {
      wallet: x.wallet,
      hooks: { afterExecutingDurable: () => gate.wait() },
      logger: quietLogger(),
    });
    const approved = asApproved(r.request);
    await x.store.commit((tx) => tx.put(WITHDRAWALS, approved.id, approved));
    const first = sender.start(approved);
    const second = sender.start(approved);
    expect(second).toBe(first);
    await gate.arrived;
    // Every claim committed (the loser's too), and what follows it run.
    await x.store.commit(() => undefined);
    await new Promise(setImmediate);
    expect(sender.inFlight(approved.id)).toBe(true);
    let idle = false;
    const idled = sender.idle().then(() => {
      idle = true;
    });
    await x.store.commit(() => undefined);
    await new Promise(setImmediate);
    expect(idle).toBe(false);
    gate.open();
    const [a, b] = await Promise.all([first, second]);
    await idled;
    expect(a.state).toBe('completed');
    expect(b).toBe(a);
    expect(sender.inFlight(approved.id)).toBe(false);
    expect(x.posts()).toBe(1);
  });
});

describe('sendApproved', () => {
  it('waits for the sends in flight before picking up what is approved', async () => {
    const gate = latch();
    w = await world({ service: { hooks: { afterExecutingDurable: () => gate.wait() } } });
    const x = w;
    const r = await x.service.request(usdt('100'), 'U0ALICE');
    if (!r.ok) throw new Error(r.message);
    // One approval completes the quorum (tier up to 1000): the service starts the send, held executing.
    expect((await x.service.approve(r.request.id, 'U0CAROL')).ok).toBe(true);
    await gate.arrived;
    let done = false;
    const picked = x.service.sendApproved().then((v) => {
      done = true;
      return v;
    });
    // Whatever sendApproved would commit is committed by now, and what follows it run.
    await x.store.commit(() => undefined);
    await new Promise(setImmediate);
    expect(done).toBe(false);
    gate.open();
    expect(await picked).toEqual({ sent: [], expired: [] });
    expect(x.service.get(r.request.id)?.state).toBe('completed');
    expect(x.posts()).toBe(1);
  });

  it('a start that joined a send ending without sending is not lost: the request still approved is sent once', async () => {
    w = await world();
    const x = w;
    const r = await x.service.request(usdt('100'), 'U0ALICE');
    if (!r.ok) throw new Error(r.message);
    const shell = createShell({
      store: x.store,
      policy: fixedPolicy(x.policy),
      now: () => x.clock.now,
      logger: quietLogger(),
    });
    // Each send reads the balance before its claim: the test decides when each read answers.
    const reads: Array<ReturnType<typeof latch>> = [];
    const sender = createSender(shell, {
      wallet: x.wallet,
      hooks: {},
      logger: quietLogger(),
      balances: {
        read: async () => {
          const gate = latch();
          reads.push(gate);
          await gate.wait();
          return undefined;
        },
        last: () => undefined,
      },
    });
    const approved = asApproved(r.request);
    const freeze = { id: 'f1', by: 'U0ERIN', reason: 'test', at: new Date(x.clock.now).toISOString() };
    await x.store.commit((tx) => {
      tx.put(WITHDRAWALS, approved.id, approved);
      tx.put(FREEZES, freeze.id, freeze);
    });
    const first = sender.start(approved);
    await until('the first send reads the balance', () => reads.length === 1);
    // Asked for again while the first runs (as the approval completing it again would): joins it.
    expect(sender.start(approved)).toBe(first);
    reads[0]!.open(); // the first claims under the freeze: nothing is sent, the request stays approved
    expect((await first).state).toBe('approved');
    expect(x.posts()).toBe(0);
    // The start that joined it is not dropped: a second send reads the balance, and the freeze is lifted meanwhile.
    await until('a second send reads the balance', () => reads.length === 2);
    await x.store.commit((tx) =>
      tx.put(FREEZES, freeze.id, {
        ...freeze,
        unfrozen: { requestedBy: 'U0ERIN', confirmedBy: 'U0DAVE', at: freeze.at },
      }),
    );
    reads[1]!.open();
    await sender.idle();
    expect(x.store.get<WithdrawalRequest>(WITHDRAWALS, approved.id)?.state).toBe('completed');
    expect(x.posts()).toBe(1);
  });
});
