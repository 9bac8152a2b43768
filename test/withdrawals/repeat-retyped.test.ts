/**
 * A payout retyped by hand (the repeat hold, src/withdrawals/hold/), through the real
 * service, store and sandbox: the destination compared as the app compares addresses (case), a
 * report holding requests of the same details outside the family too, and a retyped request made
 * ON HOLD (never refused) where "New request with the same details" would be refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { usdt, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

// Mixed case with a valid EIP-55 checksum (a mixed-case address with a broken one is refused).
const MIXED = '0xabCDeF0123456789AbcdEf0123456789aBCDEF01';

/** Stored as the status settlement leaves it: failed, never executed (nothing reached the service). */
async function neverExecuted(w: World, id: string): Promise<WithdrawalRequest> {
  const r = w.service.get(id)!;
  const o = {
    ...r,
    state: 'failed' as const,
    sendStartedAt: new Date(w.clock.now).toISOString(),
    error: { kind: 'never_executed' as const, message: 'Not sent: the wallet service has no record of it.' },
  };
  await w.store.commit((tx) => tx.put(WITHDRAWALS, o.id, o));
  return o;
}

const SERVICE_STATUS = { PENDING: 2, CONFIRMED: 3, FAILED: 4 } as const;

/**
 * The service reports `r` after all. Since invariant 14 a webhook is only a claim: its report is
 * the sandbox's status for the reference (set here), asked when the notification arrives. The
 * status named is the one shown (Completed is shown as CONFIRMED).
 */
async function reported(w: World, r: WithdrawalRequest, status: string): Promise<void> {
  w.sandbox.setWithdrawalStatus(r.merchantReference, SERVICE_STATUS[status as keyof typeof SERVICE_STATUS]);
  await w.service.onWithdrawalEvent({ merchantReference: r.merchantReference, status });
}

async function made(w: World, input: ReturnType<typeof usdt>, user = 'U0ALICE'): Promise<WithdrawalRequest> {
  const r = await w.service.request(input, user);
  if (!r.ok) throw new Error(r.message);
  return r.request;
}

describe('a payout retyped by hand', () => {
  it('the destination in another letter case is the same payout: linked, then held, nothing sent', async () => {
    w = await world();
    const o = await neverExecuted(w, (await made(w, usdt('50', { destination: MIXED }))).id);
    const again = await made(w, usdt('50', { destination: MIXED.toLowerCase() }));
    expect(again).toMatchObject({ repeatOf: o.id, repeatLinked: 'same-details' });
    expect(again.hold).toBeUndefined();
    await reported(w, o, 'CONFIRMED');
    expect(w.service.get(again.id)?.hold).toMatchObject({ original: o.id, status: 'CONFIRMED' });
    await w.service.approve(again.id, 'U0CAROL');
    await w.service.idle();
    expect(w.service.get(again.id)?.state).toBe('approved');
    expect(w.posts()).toBe(0);
  });

  it('linked to the latest of two matching requests, it is held when the OTHER one is reported', async () => {
    w = await world();
    const a = await made(w, usdt('50', { note: 'inv A' }));
    const b = await made(w, usdt('50', { note: 'inv B' }));
    w.clock.now += 1000;
    const oa = await neverExecuted(w, a.id);
    const ob = await neverExecuted(w, b.id);
    const c = await made(w, usdt('50'));
    // Linked to one of them only...
    expect([oa.id, ob.id]).toContain(c.repeatOf);
    const [linked, other] = c.repeatOf === oa.id ? [oa, ob] : [ob, oa];
    // ...and still held by a report of the other: a request of the same details made after it.
    await reported(w, other, 'CONFIRMED');
    expect(w.service.get(c.id)?.hold).toMatchObject({ kind: 'original_reported_sent', original: other.id });
    await w.service.approve(c.id, 'U0CAROL');
    await w.service.idle();
    expect(w.posts()).toBe(0);
    // A second report (of the linked one) adds no second hold.
    const before = w.events.length;
    await reported(w, linked, 'PENDING');
    expect(w.events.slice(before).filter((e) => e.type === 'held')).toEqual([]);
  });

  it('a request with the same details made BEFORE the reported one is not held (not a retype of it)', async () => {
    w = await world();
    const earlier = await made(w, usdt('50', { note: 'December' }));
    w.clock.now += 1000;
    const o = await neverExecuted(w, (await made(w, usdt('50', { note: 'January' }))).id);
    await reported(w, o, 'FAILED');
    expect(w.service.get(earlier.id)?.hold).toBeUndefined();
  });

  for (const status of ['CONFIRMED', 'FAILED'])
    it(`a recurring payout after the earlier one was reported ${status} is made on hold, and can be sent anyway`, async () => {
      w = await world();
      const o = await neverExecuted(w, (await made(w, usdt('50', { note: 'January' }))).id);
      await reported(w, o, status);
      w.clock.now += 90 * 86_400_000;
      const later = await w.service.request(usdt('50', { note: 'April' }), 'U0ALICE');
      // Not refused for ever: made, on hold, saying why.
      expect(later).toMatchObject({
        ok: true,
        request: { state: 'pending', repeatOf: o.id, hold: { kind: 'retyped', original: o.id, status } },
      });
      if (!later.ok) return;
      await w.service.approve(later.request.id, 'U0CAROL');
      await w.service.idle();
      expect(w.posts()).toBe(0);
      // An admin who checked: a separate payout, sent anyway.
      const released = await w.service.settleHold(later.request.id, 'U0ERIN', 'release', 'April payout, separate');
      expect(released).toMatchObject({ ok: true });
      await w.service.idle();
      expect(w.service.get(later.request.id)?.state).toBe('completed');
      expect(w.posts()).toBe(1);
    });

  it('retyped while another request of that payout is under way: made on hold (the explicit repeat is refused)', async () => {
    w = await world();
    const o = await neverExecuted(w, (await made(w, usdt('50'))).id);
    const repeat = await w.service.request({ ...usdt('50'), repeatOf: o.id }, 'U0ALICE');
    expect(repeat.ok).toBe(true);
    const refused = await w.service.request({ ...usdt('50'), repeatOf: o.id }, 'U0BOB');
    expect(refused).toMatchObject({ ok: false, rule: 'repeat' });
    if (!repeat.ok || refused.ok) return;
    expect(refused.message).toContain(`ref \`${repeat.request.merchantReference.slice(0, 8)}\``);
    const retyped = await w.service.request(usdt('50'), 'U0BOB');
    expect(retyped).toMatchObject({
      ok: true,
      request: { hold: { kind: 'retyped', original: repeat.request.id, earlierState: 'pending' } },
    });
    if (!retyped.ok) return;
    await w.service.approve(repeat.request.id, 'U0CAROL');
    await w.service.approve(retyped.request.id, 'U0CAROL');
    await w.service.idle();
    // One sent, the held one not.
    expect(w.posts()).toBe(1);
    expect(w.service.get(retyped.request.id)?.state).toBe('approved');
  });

  it('a request held only because an earlier one was under way is held anew, and called, when the payout is reported', async () => {
    w = await world();
    const x = await neverExecuted(w, (await made(w, usdt('50'))).id);
    w.clock.now += 1000;
    const repeat = await made(w, { ...usdt('50'), repeatOf: x.id } as ReturnType<typeof usdt>);
    const retyped = await made(w, usdt('50', { note: 'retyped' }), 'U0BOB');
    expect(retyped.hold).toMatchObject({ kind: 'retyped', earlierState: 'pending' });
    const before = w.events.length;
    await reported(w, x, 'CONFIRMED');
    // The stronger reason replaces the weaker one: the admin reads that the payout was reported, and is called.
    expect(w.service.get(retyped.id)?.hold).toMatchObject({ original: x.id, status: 'CONFIRMED' });
    expect(w.service.get(retyped.id)?.hold?.earlierState).toBeUndefined();
    const held = w.events
      .slice(before)
      .filter((e) => e.type === 'held')
      .map((e) => e.request.id);
    expect(held).toEqual(expect.arrayContaining([repeat.id, retyped.id]));
    await w.service.approve(retyped.id, 'U0CAROL');
    await w.service.idle();
    expect(w.posts()).toBe(0);
  });

  it('a later payout of the same details after the payout was paid is neither held nor flagged when an old request is reported', async () => {
    w = await world();
    const x = await neverExecuted(w, (await made(w, usdt('50', { note: 'January' }))).id);
    w.clock.now += 1000;
    const jan = await made(w, usdt('50', { note: 'January, retyped' }));
    expect(jan.repeatOf).toBe(x.id);
    await complete(w, jan.id);
    w.clock.now += 1000;
    const feb = await made(w, usdt('50', { note: 'February' }));
    expect(feb.repeatOf).toBeUndefined();
    await complete(w, feb.id);
    w.clock.now += 1000;
    const mar = await made(w, usdt('50', { note: 'March' }));
    await reported(w, x, 'FAILED');
    // January was the retype of the reported request: it may have been paid twice. February and March are new payouts.
    expect(w.service.get(jan.id)?.doublePaymentRisk).toMatchObject({ original: x.id });
    expect(w.service.get(feb.id)?.doublePaymentRisk).toBeUndefined();
    expect(w.service.get(mar.id)?.hold).toBeUndefined();
  });
});

async function complete(w: World, id: string): Promise<void> {
  await w.service.approve(id, 'U0CAROL');
  await w.service.idle();
  const r = w.service.get(id)!;
  await reported(w, r, 'CONFIRMED');
  expect(w.service.get(id)?.state).toBe('completed');
}
