/**
 * The value at send time is read once (issue 24 review N4): the re-check before the claim and the
 * recorded sendValuation judge the same price, even when the cache moves between two reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { T0, usdt, world, type World } from '../withdrawals/helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe('the value at send time', () => {
  it('is read once per send: the re-check and the recorded sendValuation use the same price', async () => {
    let reads = 0;
    // A cache whose price moves at every read (as if a refresh landed between two reads).
    const prices = (): PriceSnapshot => {
      reads += 1;
      return {
        now: T0,
        maxAgeMs: 300_000,
        quotes: { USDT: { price: String(1 + reads / 1000), at: new Date(T0).toISOString(), source: 'test' } },
      };
    };
    w = await world({ service: { prices } });
    const r = await w.service.request(usdt('100'), 'U0ALICE');
    if (!r.ok) throw new Error(r.message);
    const before = reads;
    await w.service.approve(r.request.id, 'U0CAROL');
    await w.service.idle();
    const sent = w.service.list().find((x) => x.id === r.request.id)!;
    expect(sent.state).toBe('completed');
    expect(reads - before).toBe(1);
    expect(sent.sendValuation).toMatchObject({ kind: 'known', price: String(1 + (before + 1) / 1000) });
  });
});
