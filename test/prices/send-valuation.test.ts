/**
 * The value at send time is read once (issue 24 review N4): the re-check before the claim and the
 * recorded sendValuation judge the same price, even when the cache moves between two reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { T0, usdt, world, type World } from '../withdrawals/helpers.js';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe('the value at send time', () => {
  it('is read once for the request it sends: the re-check and the recorded sendValuation use the same price', async () => {
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
    await w.service.approve(r.request.id, 'U0CAROL');
    await w.service.idle();
    const sent = w.service.list().find((x) => x.id === r.request.id)!;
    expect(sent.state).toBe('completed');
    // Each decision reads the cache once (the limits' windows); the request's own value at the send is
    // the sender's one read, judged by the claim and recorded with it.
    const sendAudit = w.store.all(AUDIT_COLLECTION).find((e) => e.action === 'send' && e.subject === sent.id);
    expect(sendAudit?.details.value).toEqual(sent.sendValuation);
    expect(sent.sendValuation).toMatchObject({ kind: 'known' });
  });
});
