/**
 * The approvals a batch needs, judged on its total: the extras for new destinations added once
 * (not again at every approval), and every row sent once when they are complete.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NewDestinationRule, RollingLimit } from '../../src/policy/schema-patterns.js';
import type { Policy } from '../../src/policy/schema.js';
import { FREEZES } from '../../src/freeze/state.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import { ALLOWLISTED, CLIENT, DEST } from '../withdrawals/helpers.js';
import { batchWorld, HEAD, payoutFile, type BatchWorld } from './helpers.js';

let w: BatchWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe('the approvals of a batch payout', () => {
  it('20 rows of 2,000 to new destinations: the top tier and one extra approval, added once; each row sent once', async () => {
    w = await batchWorld();
    w.policy.withdrawals.new_destination = { above: { value: '1000' }, extra_approvals: 1 } as NewDestinationRule;
    const out = await w.batches.submit({ text: payoutFile(20, '2000'), fileName: 'payouts.csv' }, 'U0ALICE');
    if (!out.ok) throw new Error(JSON.stringify(out));
    const b = out.batch;
    expect(b.tier).toMatchObject({ approvals: 4, extra: 1, mustInclude: ['U0ERIN'] });
    for (const user of ['U0CAROL', 'U0DAVE', 'U0FRANK']) {
      expect(await w.batches.approve(b.id, user)).toMatchObject({ ok: true, complete: false });
      // The approvals asked for stay where they were: no extra added again with each approval.
      expect(w.batches.get(b.id)?.tier).toMatchObject({ approvals: 4, extra: 1 });
    }
    const last = await w.batches.approve(b.id, 'U0ERIN');
    if (!last.ok || !('execution' in last))
      throw new Error(`the fourth approval did not complete: ${JSON.stringify(last)}`);
    await last.execution;
    await w.batches.idle();
    expect(w.batches.progress(b.id)).toMatchObject({ rows: 20, completed: 20, failed: 0 });
    expect(w.posts()).toBe(20);
    const refs = w.sandbox
      .transactions()
      .filter((t) => t.transactionType === 'Withdrawal')
      .map((t) => t.reference);
    expect(new Set(refs).size).toBe(20);
    expect(refs).toHaveLength(20);
  });

  it('a limit escalating the batch at an approval asks the top tier, and that approval counts for its must_include', async () => {
    w = await batchWorld();
    const out = await w.batches.submit({ text: payoutFile(5, '300'), fileName: 'payouts.csv' }, 'U0ALICE');
    if (!out.ok) throw new Error(JSON.stringify(out));
    const id = out.batch.id;
    expect(out.batch.tier).toMatchObject({ approvals: 2, mustInclude: [] });
    expect(await w.batches.approve(id, 'U0CAROL')).toMatchObject({ ok: true, complete: false });
    // A rolling limit (unknown value: over it) with `escalate`, in force from U0ERIN's approval on.
    w.policy.withdrawals.limits = [{ per: 'all', window: '24h', value: '1', action: 'escalate' } as RollingLimit];
    expect(await w.batches.approve(id, 'U0ERIN')).toMatchObject({ ok: true, complete: false });
    expect(w.batches.get(id)?.tier).toMatchObject({ approvals: 3, mustInclude: ['U0ERIN'], escalated: true });
    expect(w.batches.get(id)?.approvals.at(-1)).toMatchObject({ user: 'U0ERIN', satisfies: ['U0ERIN'] });
    expect(await w.batches.approve(id, 'U0DAVE')).toMatchObject({ ok: true, complete: true });
  });

  it('two currencies, each low in its own list: the total value is judged by the value list too (unknown: its top tier)', async () => {
    w = await batchWorld();
    type Tiers = Policy['withdrawals']['tiers'][string];
    const tiers = w.policy.withdrawals.tiers as Record<string, Tiers>;
    tiers.USDT = [{ approvals: 1, must_include: [] }] as unknown as Tiers;
    tiers.value = [
      { max: '1000', approvals: 1, must_include: [] },
      { approvals: 3, must_include: ['U0ERIN'] },
    ] as unknown as Tiers;
    const text = [HEAD, `${DEST},10,USDT,BSC,${CLIENT},A-1`, `${DEST},1,ETH,ETH,${CLIENT},A-2`].join('\n');
    const out = await w.batches.submit({ text, fileName: 'mixed.csv' }, 'U0ALICE');
    if (!out.ok) throw new Error(JSON.stringify(out));
    expect(out.batch.tier).toMatchObject({ approvals: 3, mustInclude: ['U0ERIN'], basis: 'value' });
  });

  it('each row is stored with its allowlist status as judged at the approval', async () => {
    w = await batchWorld();
    const text = [HEAD, `${ALLOWLISTED},10,USDT,BSC,${CLIENT},A-1`, `${DEST},10,USDT,BSC,${CLIENT},A-2`].join('\n');
    const out = await w.batches.submit({ text, fileName: 'mixed.csv' }, 'U0ALICE');
    if (!out.ok) throw new Error(JSON.stringify(out));
    // Frozen: the rows as the approval wrote them, before any claim re-judges them.
    const freeze = { id: 'f1', by: 'U0ERIN', reason: 'incident', at: new Date(w.clock.now).toISOString() };
    await w.store.commit((tx) => tx.put(FREEZES, 'f1', freeze));
    expect(await w.batches.approve(out.batch.id, 'U0CAROL')).toMatchObject({ ok: true, complete: true });
    const rows = w.store
      .find(WITHDRAWALS, (r) => r.batch?.id === out.batch.id)
      .sort((a, b) => a.batch!.row - b.batch!.row);
    expect(rows.map((r) => r.allowlist.status)).toEqual(['listed', 'unlisted']);
    const at = new Date(w.clock.now).toISOString();
    await w.store.commit((tx) =>
      tx.put(FREEZES, 'f1', { ...freeze, unfrozen: { requestedBy: 'U0ERIN', confirmedBy: 'U0DAVE', at } }),
    );
  });
});
