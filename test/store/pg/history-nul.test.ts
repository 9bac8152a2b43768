/**
 * History on PostgreSQL with values holding `\u0000` (json keeps it, text cannot): evicting such a
 * record must not fail the group commit (a json `->>` on it would, and with it the leader and
 * every replica after it), and history still finds it by id and by each searched field.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collection } from '../../../src/store/index.js';
import { openPgStore } from '../../../src/store/pg/index.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../../helpers/pg.js';

interface Req {
  id: string;
  merchantReference: string;
  note: string;
}
interface Entry {
  seq: number;
  subject: string;
  details: { request?: string; note?: string };
}
const REQS = collection<Req>('reqs');
const LOG = collection<Entry>('log');

describe.skipIf(!pgAvailable)(`history with NUL in values${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let url = '';
  let admin: pg.Client;
  beforeAll(async () => {
    url = await createTestDatabase('history_nul');
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
  });

  it('evicts a withdrawal and an audit entry holding \\u0000 and reads them back by reference', async () => {
    let o = await openPgStore({ url, heartbeatMs: 100, leaseMs: 1_000 });
    const plain: Req = { id: 'w1', merchantReference: 'INV-7', note: 'pasted\u0000text' };
    const odd: Req = { id: 'w2', merchantReference: 'INV\u00008', note: 'x' };
    const entry: Entry = { seq: 1, subject: 'w\u00002', details: { request: 'w\u00002', note: '\u0000' } };
    await o.store.commit((tx) => {
      tx.put(REQS, 'w1', plain);
      tx.put(REQS, 'w2', odd);
      tx.put(LOG, '000001', entry);
    });
    await o.store.commit((tx) => {
      tx.evict(REQS, 'w1');
      tx.evict(REQS, 'w2');
      tx.evict(LOG, '000001');
    });
    // The commit was durable and the store still takes writes.
    expect(o.store.health().writable).toBe(true);
    await o.store.commit((tx) => tx.put(REQS, 'w3', { id: 'w3', merchantReference: 'INV-9', note: '' }));
    expect(o.store.health().writable).toBe(true);
    const cold = await admin.query("SELECT count(*)::int AS n FROM store_records WHERE cold AND collection = 'reqs'");
    expect(cold.rows[0].n).toBe(2);
    await o.store.close();

    o = await openPgStore({ url, heartbeatMs: 100, leaseMs: 1_000 });
    try {
      const h = o.store.history;
      expect(o.store.get(REQS, 'w1')).toBeUndefined();
      expect(await h.get(REQS, 'w1')).toEqual(plain);
      expect(await h.findBy(REQS, 'merchantReference', 'INV-7')).toEqual([plain]);
      expect((await h.findBy(REQS, 'merchantReference', 'inv-', { prefix: true })).map((r) => r.id)).toEqual([
        'w1',
        'w3',
      ]);
      // A reference holding NUL is found exactly, and only by itself (not by the same text without it).
      expect(await h.findBy(REQS, 'merchantReference', 'INV\u00008')).toEqual([odd]);
      expect(await h.findBy(REQS, 'merchantReference', 'INV8')).toEqual([]);
      expect(await h.findAny(REQS, 'merchantReference', ['INV-7', 'INV\u00008', 'INV8'])).toEqual([plain, odd]);
      expect(await h.findBy(LOG, 'subject', 'w\u00002')).toEqual([entry]);
      expect(await h.findBy(LOG, 'request', 'w\u00002')).toEqual([entry]);
      expect((await h.page(LOG, undefined, 10)).records).toEqual([entry]);
    } finally {
      await o.store.close();
    }
  });
});
