/**
 * Batch payouts in the digest: batches requested, waiting, finished, stopped and not approved in
 * the period, their rows sent (totals per currency) and failed, from the real store after real
 * sends to the sandbox, drawn by the digest's own renderer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BATCHES } from '../../src/batches/index.js';
import { buildDigest } from '../../src/digest/build.js';
import { FREEZES } from '../../src/freeze/state.js';
import { renderDigest } from '../../src/slack/digest-message.js';
import { visibleText } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { batchWorld, HEAD, payoutFile, type BatchWorld } from './helpers.js';

let w: BatchWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const digestOf = (bw: BatchWorld, days = 1) =>
  buildDigest({
    now: bw.clock.now,
    days,
    records: [],
    truncated: false,
    withdrawals: bw.service.list(),
    batches: bw.store.all(BATCHES),
  });

describe('batch payouts in the digest', () => {
  it('counts each batch by what happened to it in the period, and its rows sent and failed', async () => {
    w = await batchWorld({ pace: { concurrency: 1, perSecond: 40 } });
    const submit = async (text: string, name: string) => {
      const out = await w!.batches.submit({ text, fileName: name }, 'U0ALICE');
      if (!out.ok) throw new Error(JSON.stringify(out));
      return out.batch;
    };
    expect(digestOf(w).batches).toBeUndefined();
    // Sent in full, with one row the sandbox fails (an unknown client).
    const sent = await submit(
      [payoutFile(4, '10'), `0x2222222222222222222222222222222222222222,5,USDT,BSC,nobody@example.com,X-1`].join('\n'),
      'sent.csv',
    );
    await w.batches.approve(sent.id, 'U0CAROL');
    await w.batches.idle();
    // Stopped by an admin after some rows.
    // In the commit of its second row completed, sends are frozen: the runner offers no further row, so
    // the stop finds the batch sending with exactly two rows sent, however fast or slow the runner is.
    const stopped = await submit(payoutFile(30, '1', 'S'), 'stopped.csv');
    const at = new Date(w.clock.now).toISOString();
    const freeze = { id: 'f1', by: 'U0ERIN', reason: 'hold the rest', at };
    let done = 0;
    const off = w.service.subscribe((e, tx) => {
      if (e.type === 'completed' && e.request.batch?.id === stopped.id && ++done === 2) tx.put(FREEZES, 'f1', freeze);
    });
    await w.batches.approve(stopped.id, 'U0CAROL');
    await until('two rows sent', () => w!.store.get(FREEZES, 'f1'));
    off();
    await w.batches.idle();
    expect(w.batches.get(stopped.id)?.state).toBe('sending');
    expect((await w.batches.stop(stopped.id, 'U0ERIN')).ok).toBe(true);
    await w.store.commit((tx) =>
      tx.put(FREEZES, 'f1', { ...freeze, unfrozen: { requestedBy: 'U0ERIN', confirmedBy: 'U0DAVE', at } }),
    );
    await w.batches.idle();
    // Rejected; and one still waiting.
    const rejected = await submit(payoutFile(2, '3', 'R'), 'rejected.csv');
    expect((await w.batches.reject(rejected.id, 'U0CAROL', 'wrong month')).ok).toBe(true);
    await submit(
      [HEAD, `0x2222222222222222222222222222222222222222,7,USDT,BSC,${'payouts@client.example'},W-1`].join('\n'),
      'w.csv',
    );

    const p = w.batches.progress(stopped.id)!;
    expect(p).toMatchObject({ completed: 2, notSent: 28 });
    const d = digestOf(w);
    expect(d.batches).toEqual({
      requested: 4,
      waiting: 1,
      finished: 1,
      stopped: 1,
      notApproved: 1,
      sent: { rows: 4 + p.completed, totals: { USDT: String(40 + p.completed) } },
      failed: 1,
    });
    expect(visibleText(renderDigest(d))).toContain(
      `*Batch payouts*: 4 requested · 1 waiting for approval · 1 finished · :octagonal_sign: 1 stopped by an admin · 1 rejected or expired (nothing sent) · ${4 + p.completed} rows sent (${40 + p.completed}.00 USDT) · :x: 1 row failed`,
    );
    // Two days on, the last 24 hours hold only the batch still waiting (it expired meanwhile: not approved).
    w.clock.now += 2 * 86_400_000;
    await w.batches.expireDue();
    expect(digestOf(w).batches).toEqual({
      requested: 0,
      waiting: 0,
      finished: 0,
      stopped: 0,
      notApproved: 1,
      sent: { rows: 0, totals: {} },
      failed: 0,
    });
  });
});
