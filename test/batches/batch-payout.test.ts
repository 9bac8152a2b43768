/**
 * Batch payouts end to end against the sandbox over HTTP, with the real store: submitted,
 * judged on the total, approved once, every row sent exactly once through the withdrawal claim,
 * stopped by an admin, and a result file that reconciles with the sandbox's own list.
 */
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/audit/index.js';
import { bookings } from '../../src/transactions/booking.js';
import { toCsv } from '../../src/transactions/export.js';
import { CLIENT, usdt } from '../withdrawals/helpers.js';
import { FREEZES } from '../../src/freeze/state.js';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { batchWorld, HEAD, payoutFile, type BatchWorld } from './helpers.js';

let w: BatchWorld | undefined;
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(ok()).toBe(true);
};
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function submitted(bw: BatchWorld, text: string) {
  const out = await bw.batches.submit({ text, fileName: 'payouts.csv' }, 'U0ALICE');
  if (!out.ok) throw new Error(JSON.stringify(out));
  return out.batch;
}

/** Every withdrawal the sandbox holds, by merchant reference. */
const sandboxByReference = (bw: BatchWorld) => {
  const m = new Map<string, ReturnType<BatchWorld['sandbox']['transactions']>>();
  for (const t of bw.sandbox.transactions().filter((x) => x.transactionType === 'Withdrawal'))
    m.set(t.reference, [...(m.get(t.reference) ?? []), t]);
  return m;
};

describe('a batch payout', () => {
  it('100 rows of 600: the total needs the top tier (3 approvals with U0ERIN); approved once, each row sent once; the result file reconciles', async () => {
    w = await batchWorld();
    const b = await submitted(w, payoutFile(100, '600'));
    expect(b.tier).toMatchObject({ approvals: 3, mustInclude: ['U0ERIN'] });
    expect(b.totals.perCurrency).toEqual({ USDT: '60000' });
    expect(w.posts()).toBe(0);
    expect(await w.batches.approve(b.id, 'U0ALICE')).toMatchObject({ ok: false, reason: 'own_request' });
    expect(await w.batches.approve(b.id, 'U0CAROL')).toMatchObject({ ok: true, complete: false });
    expect(await w.batches.approve(b.id, 'U0CAROL')).toMatchObject({ ok: false, reason: 'already_approved' });
    expect(await w.batches.approve(b.id, 'U0DAVE')).toMatchObject({ ok: true, complete: false });
    expect(await w.batches.approve(b.id, 'U0FRANK')).toMatchObject({ ok: false, reason: 'must_include_required' });
    // Nothing moved before the last approval.
    expect(w.posts()).toBe(0);
    const last = await w.batches.approve(b.id, 'U0ERIN');
    if (!last.ok || !('execution' in last)) throw new Error('the last approval did not start the sends');
    const stats = await last.execution;
    await w.batches.idle();
    expect(stats.started).toBe(100);
    expect(stats.maxInFlight).toBeLessThanOrEqual(4);
    expect(w.batches.get(b.id)?.state).toBe('done');
    expect(w.batches.progress(b.id)).toMatchObject({ rows: 100, completed: 100, failed: 0 });
    expect(w.posts()).toBe(100);
    // The result file: one line per row, each reference once in the sandbox, the same amount, address and fee.
    const lines = parse(w.batches.results(b.id)!, { columns: true }) as Array<Record<string, string>>;
    expect(lines).toHaveLength(100);
    const listed = sandboxByReference(w);
    expect(listed.size).toBe(100);
    for (const l of lines) {
      const [t, ...more] = listed.get(l.merchant_reference!) ?? [];
      expect(more).toEqual([]);
      expect(l.status).toBe('sent');
      expect(l.batch_id).toBe(b.id);
      expect(t?.amount).toBe(l.amount);
      expect(t?.toAddress.toLowerCase()).toBe(l.address!.toLowerCase());
      expect(l.fee).toBe(t?.charge);
      // The hash comes later (the service's status or list); when the file has it, it is the service's.
      expect(['', t?.transactionHash]).toContain(l.transaction_hash);
      expect(l.service_reference).not.toBe('');
    }
    expect(verifyAudit(w.store).ok).toBe(true);
  });

  it('flags the same file submitted again within 30 days, and takes it once the requester confirms', async () => {
    w = await batchWorld();
    const text = payoutFile(3, '10');
    const first = await submitted(w, text);
    const again = await w.batches.submit({ text, fileName: 'copy.csv' }, 'U0BOB');
    expect(again).toMatchObject({ ok: false, kind: 'repeat', repeatOf: { id: first.id } });
    const confirmed = await w.batches.submit({ text, fileName: 'copy.csv', confirmRepeat: true }, 'U0BOB');
    expect(confirmed.ok && confirmed.batch.repeatOf?.id).toBe(first.id);
    // Past 30 days it is a new file again.
    w.clock.now += 31 * 24 * 3_600_000;
    const later = await w.batches.submit({ text, fileName: 'next-month.csv' }, 'U0BOB');
    expect(later.ok).toBe(true);
  });

  it('flags the same payouts re-saved: rows re-sorted, the address in capitals, "10" written "10.00", CRLF line ends', async () => {
    w = await batchWorld();
    const hex = 'abcdef0000000000000000000000000000000001';
    const row = (address: string, amount: string, ref: string) => `${address},${amount},USDT,BSC,${CLIENT},${ref}`;
    const text = [HEAD, row(`0x${hex}`, '10', 'A'), row(`0x${hex}`, '20', 'B')].join('\n');
    const first = await submitted(w, text);
    const resaved = [HEAD, row(`0x${hex.toUpperCase()}`, '20.00', 'B'), row(`0x${hex.toUpperCase()}`, '10.0', 'A')];
    const again = await w.batches.submit({ text: resaved.join('\r\n'), fileName: 'resaved.csv' }, 'U0BOB');
    expect(again).toMatchObject({ ok: false, kind: 'repeat', repeatOf: { id: first.id } });
  });

  it('answers a file with bad rows with every error, and requests nothing', async () => {
    w = await batchWorld();
    const lines = payoutFile(30, (i) => (i % 3 === 0 ? 'ten' : '5')).split('\n');
    const out = await w.batches.submit({ text: lines.join('\n'), fileName: 'bad.csv' }, 'U0ALICE');
    expect(out.ok === false && out.kind === 'errors' && out.errors.length).toBe(10);
    expect(w.batches.list()).toEqual([]);
  });

  it('counts a pending batch against the daily limit of a single request, and the batch as a whole', async () => {
    w = await batchWorld({ policy: { dailyLimit: { USDT: '50000' } } });
    const over = await w.batches.submit({ text: payoutFile(100, '600'), fileName: 'big.csv' }, 'U0ALICE');
    expect(over).toMatchObject({ ok: false, kind: 'refused', message: expect.stringMatching(/limit/) });
    await submitted(w, payoutFile(80, '600'));
    const single = await w.service.request(usdt('2500'), 'U0BOB');
    expect(single).toMatchObject({ ok: false, rule: 'daily_limit' });
    // Past its deadline, unapproved: expired, nothing sent, and it counts no more.
    w.clock.now += 2 * 3_600_000;
    expect((await w.batches.expireDue()).map((b) => b.state)).toEqual(['expired']);
    expect(await w.batches.approve(w.batches.list()[0]!.id, 'U0CAROL')).toMatchObject({
      ok: false,
      reason: 'not_pending',
    });
    expect((await w.service.request(usdt('2500'), 'U0BOB')).ok).toBe(true);
    expect(w.posts()).toBe(0);
  });

  it('a failed row is listed with the service’s reason and never blocks the others', async () => {
    w = await batchWorld();
    const text = [
      payoutFile(5, '10'),
      `0x2222222222222222222222222222222222222222,10,USDT,BSC,nobody@example.com,X-1`,
    ].join('\n');
    const b = await submitted(w, text);
    await w.batches.approve(b.id, 'U0CAROL');
    await w.batches.idle();
    expect(w.batches.progress(b.id)).toMatchObject({ completed: 5, failed: 1 });
    const lines = parse(w.batches.results(b.id)!, { columns: true }) as Array<Record<string, string>>;
    expect(lines[5]).toMatchObject({ row: '7', status: 'failed' });
    expect(lines[5]?.reason).not.toBe('');
    // The exports: one line per row sent, each with its batch id.
    const page = await w.wallet.listTransactions({ pageSize: 50 });
    const csv = parse(toCsv(bookings(page.records, { requests: w.service.list() })), { columns: true }) as Array<
      Record<string, string>
    >;
    const sent = csv.filter((l) => l.type === 'withdrawal');
    expect(sent).toHaveLength(5);
    expect(sent.every((l) => l.batchId === b.id)).toBe(true);
  });

  it('an admin stops the rest: rows already sent stay sent, the others are never sent', async () => {
    w = await batchWorld({ pace: { concurrency: 1, perSecond: 40 } });
    const b = await submitted(w, payoutFile(40, '10'));
    const a = await w.batches.approve(b.id, 'U0CAROL');
    expect(a.ok).toBe(true);
    while ((w.batches.progress(b.id)?.completed ?? 0) < 5) await new Promise((r) => setTimeout(r, 5));
    expect(await w.batches.stop(b.id, 'U0CAROL')).toMatchObject({ ok: false, reason: 'not_admin' });
    const stopped = await w.batches.stop(b.id, 'U0ERIN');
    if (!stopped.ok) throw new Error(stopped.message);
    await w.batches.idle();
    const p = w.batches.progress(b.id)!;
    expect(p.completed + p.notSent).toBe(40);
    expect(p.notSent).toBe(stopped.stopped);
    expect(p.completed).toBeGreaterThanOrEqual(5);
    expect(p.completed).toBeLessThan(40);
    expect(w.posts()).toBe(p.completed);
    expect(w.batches.get(b.id)).toMatchObject({ state: 'stopped', stopped: { by: 'U0ERIN' } });
    const lines = parse(w.batches.results(b.id)!, { columns: true }) as Array<Record<string, string>>;
    expect(lines.filter((l) => l.status === 'sent')).toHaveLength(p.completed);
    expect(lines.filter((l) => l.status === 'not sent')).toHaveLength(p.notSent);
    // A second pass (a restart, a retry) sends nothing more.
    w.batches.resume();
    await w.batches.idle();
    expect(w.posts()).toBe(p.completed);
  });

  it('while sends are frozen no row is offered to the claim; the batch carries on once unfrozen', async () => {
    w = await batchWorld();
    const b = await submitted(w, payoutFile(6, '10'));
    const freeze = { id: 'f1', by: 'U0ERIN', reason: 'incident', at: new Date(w.clock.now).toISOString() };
    await w.store.commit((tx) => tx.put(FREEZES, 'f1', freeze));
    await w.batches.approve(b.id, 'U0CAROL');
    await w.batches.idle();
    expect(w.posts()).toBe(0);
    expect(w.batches.progress(b.id)).toMatchObject({ toSend: 6, completed: 0 });
    // Offered to no claim: no "held" audit entry per row while frozen.
    expect(w.store.all(AUDIT_COLLECTION).filter((e) => e.action === 'send_held')).toEqual([]);
    const at = new Date(w.clock.now).toISOString();
    await w.store.commit((tx) =>
      tx.put(FREEZES, 'f1', { ...freeze, unfrozen: { requestedBy: 'U0ERIN', confirmedBy: 'U0DAVE', at } }),
    );
    // The retry (50 ms in tests; 30 s and the job's resume in the app) sends them, each once.
    await until(() => w!.batches.get(b.id)?.state === 'done');
    expect(w.posts()).toBe(6);
  });
});
