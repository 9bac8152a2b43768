/**
 * A batch row is decided only with its batch: one the send-time re-check finds short of approvals
 * is never reopened on its own (no single Approve, no Home entry, no re-check approval), and Stop
 * rejects every unsent row, whatever its state. Nothing is sent for any of them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FREEZES } from '../../src/freeze/state.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import { batchWorld, payoutFile, type BatchWorld } from './helpers.js';

let w: BatchWorld | undefined;
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(ok()).toBe(true);
};
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** A 6-row batch approved (one approval) while sends are frozen: its rows wait, approved, unsent. */
async function approvedWhileFrozen(bw: BatchWorld) {
  const out = await bw.batches.submit({ text: payoutFile(6, '10'), fileName: 'payouts.csv' }, 'U0ALICE');
  if (!out.ok) throw new Error(JSON.stringify(out));
  const freeze = { id: 'f1', by: 'U0ERIN', reason: 'incident', at: new Date(bw.clock.now).toISOString() };
  await bw.store.commit((tx) => tx.put(FREEZES, 'f1', freeze));
  expect(await bw.batches.approve(out.batch.id, 'U0CAROL')).toMatchObject({ ok: true });
  await bw.batches.idle();
  // The policy now asks two approvals of the batch's tier: the re-check at the claim finds them short.
  (bw.policy.withdrawals.tiers.default![0] as { approvals: number }).approvals = 2;
  const unfreeze = async () => {
    const at = new Date(bw.clock.now).toISOString();
    await bw.store.commit((tx) =>
      tx.put(FREEZES, 'f1', { ...freeze, unfrozen: { requestedBy: 'U0ERIN', confirmedBy: 'U0DAVE', at } }),
    );
  };
  const rows = () => bw.store.find(WITHDRAWALS, (r) => r.batch?.id === out.batch.id);
  return { batch: out.batch, unfreeze, rows };
}

describe('a batch row short of approvals at the send', () => {
  it('is not reopened on its own: it fails unsent, the batch needs re-approval, nobody can approve it singly', async () => {
    w = await batchWorld();
    const { unfreeze, rows } = await approvedWhileFrozen(w);
    await unfreeze();
    await until(() => rows().every((r) => r.state === 'failed'));
    for (const r of rows()) {
      expect(r.error?.message).toMatch(/batch needs re-approval/);
      expect(await w.service.approve(r.id, 'U0DAVE')).toMatchObject({ ok: false });
    }
    expect(await w.service.awaitingDecisionBy('U0DAVE')).toEqual([]);
    expect(await w.service.recheckPending()).toEqual([]);
    await w.batches.idle();
    expect(w.posts()).toBe(0);
  });

  it('a waiting batch row (as the re-check used to leave it) is refused singly, skipped by the re-check, and rejected by Stop', async () => {
    w = await batchWorld();
    const { batch, unfreeze, rows } = await approvedWhileFrozen(w);
    const [first] = rows();
    await w.store.commit((tx) => tx.put(WITHDRAWALS, first!.id, { ...first!, state: 'pending' }));
    (w.policy.withdrawals.tiers.default![0] as { approvals: number }).approvals = 1;
    expect(await w.service.approve(first!.id, 'U0DAVE')).toMatchObject({ ok: false });
    expect(await w.service.awaitingDecisionBy('U0DAVE')).toEqual([]);
    expect(await w.service.recheckPending()).toEqual([]);
    const stopped = await w.batches.stop(batch.id, 'U0ERIN');
    if (!stopped.ok) throw new Error(stopped.message);
    expect(stopped.stopped).toBe(6);
    expect(rows().map((r) => r.state)).toEqual(Array(6).fill('rejected'));
    await unfreeze();
    w.batches.resume();
    await w.batches.idle();
    await w.service.sendApproved();
    await w.service.idle();
    expect(w.posts()).toBe(0);
  });
});
