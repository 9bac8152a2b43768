/**
 * History on PostgreSQL (src/store/history.ts): an evicted record leaves memory and the leader's
 * start, yet every history read finds it (by id, by an indexed field, in pages), through a
 * restart and a takeover; one evicted while a read runs is found too. Real PostgreSQL.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collection, openStore, type Store } from '../../../src/store/index.js';
import { type LeaderSession, openPgStore } from '../../../src/store/pg/index.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../../helpers/pg.js';

interface Req {
  id: string;
  merchantReference: string;
  state: string;
}
interface Entry {
  seq: number;
  subject: string;
  details: { request?: string };
}
const REQS = collection<Req>('reqs');
const LOG = collection<Entry>('log');

const opened: Array<{ store: Store; leader: LeaderSession }> = [];
let url = '';
let admin: pg.Client;

async function open() {
  const o = await openPgStore({ url, heartbeatMs: 100, leaseMs: 1_000 });
  opened.push(o);
  return o.store;
}

const req = (i: number, state = 'completed'): Req => ({ id: `r${i}`, merchantReference: `Ref_${i}-x`, state });

async function fill(store: Store, n: number): Promise<void> {
  await store.commit((tx) => {
    for (let i = 1; i <= n; i++) {
      tx.put(REQS, `r${i}`, req(i));
      tx.put(LOG, String(i).padStart(6, '0'), { seq: i, subject: `r${i}`, details: {} });
    }
  });
}

/** Evicts the first `n` of both collections in one commit. */
async function evictFirst(store: Store, n: number): Promise<void> {
  await store.commit((tx) => {
    for (let i = 1; i <= n; i++) {
      tx.evict(REQS, `r${i}`);
      tx.evict(LOG, String(i).padStart(6, '0'));
    }
  });
}

async function allPages(store: Store, size: number): Promise<number[]> {
  const seqs: number[] = [];
  let after: string | undefined;
  for (;;) {
    const p = await store.history.page(LOG, after, size);
    seqs.push(...p.records.map((e) => e.seq));
    if (p.next === undefined) return seqs;
    after = p.next;
  }
}

describe.skipIf(!pgAvailable)(`history on PostgreSQL${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  beforeAll(async () => {
    url = await createTestDatabase('history');
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
  });
  afterEach(async () => {
    for (const o of opened.splice(0)) await o.store.close();
    await admin.query('TRUNCATE store_records');
  });

  it('an evicted record leaves memory and the next start, and history still reads it', async () => {
    let store = await open();
    await fill(store, 10);
    await evictFirst(store, 6);
    expect(store.count(REQS)).toBe(4);
    expect(store.get(REQS, 'r1')).toBeUndefined();
    expect(store.stats().records).toBe(8);
    const cold = await admin.query("SELECT count(*)::int AS n FROM store_records WHERE cold AND collection = 'reqs'");
    expect(cold.rows[0].n).toBe(6);

    await store.close();
    store = await open();
    // The start loaded the hot set only.
    expect(store.counts()).toEqual({ reqs: 4, log: 4 });
    expect(await store.history.get(REQS, 'r2')).toEqual(req(2));
    expect(await store.history.get(REQS, 'r9')).toEqual(req(9));
    expect(await store.history.get(REQS, 'nope')).toBeUndefined();
    expect((await store.history.findBy(REQS, 'merchantReference', 'Ref_3-x')).map((r) => r.id)).toEqual(['r3']);
    // Exact is exact: another case is no match; `_` in a prefix is a character, not a wildcard.
    expect(await store.history.findBy(REQS, 'merchantReference', 'ref_3-x')).toEqual([]);
    expect(
      (await store.history.findBy(REQS, 'merchantReference', 'ref_1', { prefix: true })).map((r) => r.id).sort(),
    ).toEqual(['r1', 'r10']);
    expect(await store.history.findBy(REQS, 'merchantReference', 'refX1', { prefix: true })).toEqual([]);
    expect((await store.history.findBy(LOG, 'subject', 'r5')).map((e) => e.seq)).toEqual([5]);
    // Many at once (an export's references): cold and hot, exact only, each once.
    const many = await store.history.findAny(REQS, 'merchantReference', [
      'Ref_9-x',
      'Ref_2-x',
      'ref_3-x',
      'nope',
      'Ref_2-x',
    ]);
    expect(many.map((r) => r.id)).toEqual(['r2', 'r9']);
    // Pages walk cold and hot in id order, each once.
    expect(await allPages(store, 3)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // New ids go after every row, the cold ones too: a put does not take an old place.
    await store.commit((tx) => tx.put(REQS, 'r11', req(11)));
    const ords = await admin.query<{ id: string; ord: string }>(
      "SELECT id, ord FROM store_records WHERE collection = 'reqs' ORDER BY ord DESC LIMIT 1",
    );
    expect(ords.rows[0]?.id).toBe('r11');
  });

  it('pages in byte order of ids, cold and hot merged, whatever the database locale sorts', async () => {
    const store = await open();
    const ids = ['a', 'B', '_x', 'C', '-y', 'b'];
    await store.commit((tx) => {
      for (const [i, id] of ids.entries()) tx.put(LOG, id, { seq: i, subject: id, details: {} });
    });
    await store.commit((tx) => {
      for (const id of ['a', 'C', '-y']) tx.evict(LOG, id);
    });
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const p = await store.history.page(LOG, after, 2);
      seen.push(...p.records.map((e) => e.subject));
      if (p.next === undefined) break;
      after = p.next;
    }
    expect(seen).toEqual(['-y', 'B', 'C', '_x', 'a', 'b']);
  });

  it('a takeover loads the hot set only, and the standby reads the history', async () => {
    const first = await open();
    await fill(first, 5);
    await evictFirst(first, 3);
    const standby = openPgStore({ url, heartbeatMs: 100, leaseMs: 1_000 });
    await first.close();
    const o = await standby;
    opened.push(o);
    expect(o.store.counts()).toEqual({ reqs: 2, log: 2 });
    expect((await o.store.history.findBy(REQS, 'merchantReference', 'Ref_1-x')).map((r) => r.state)).toEqual([
      'completed',
    ]);
  });

  it('a record put again after it went cold is hot again, once, with its new value', async () => {
    const store = await open();
    await fill(store, 2);
    await evictFirst(store, 2);
    await store.commit((tx) => tx.put(REQS, 'r1', req(1, 'reopened')));
    expect(store.get(REQS, 'r1')?.state).toBe('reopened');
    expect(await store.history.findBy(REQS, 'merchantReference', 'Ref_1-x')).toEqual([req(1, 'reopened')]);
    await store.close();
    const again = await open();
    expect(again.get(REQS, 'r1')?.state).toBe('reopened');
    expect(again.get(REQS, 'r2')).toBeUndefined();
    // Put again while a read runs (its row hot again before the query): the read finds memory's copy.
    const reading = again.history.get(REQS, 'r2');
    const finding = again.history.findBy(REQS, 'merchantReference', 'Ref_2-x');
    const paging = again.history.page(REQS, undefined, 10);
    const scanning = again.history.scan(REQS, undefined, 10)[Symbol.asyncIterator]().next();
    void again.commit((tx) => tx.put(REQS, 'r2', req(2, 'reopened')));
    expect(await reading).toEqual(req(2, 'reopened'));
    expect(await finding).toEqual([req(2, 'reopened')]);
    expect((await paging).records).toEqual([req(1, 'reopened'), req(2, 'reopened')]);
    expect((await scanning).value).toEqual([req(1, 'reopened'), req(2, 'reopened')]);
  });

  it('put and evicted in one group commit: written, then cold; a record evicted during a read is found', async () => {
    const store = await open();
    await Promise.all([
      store.commit((tx) => tx.put(REQS, 'r1', req(1))),
      store.commit((tx) => tx.evict(REQS, 'r1')),
      store.commit((tx) => tx.put(REQS, 'r2', req(2))),
    ]);
    expect(store.get(REQS, 'r1')).toBeUndefined();
    const reading = store.history.findBy(REQS, 'merchantReference', 'Ref_2-x');
    void store.commit((tx) => tx.evict(REQS, 'r2'));
    expect((await reading).map((r) => r.id)).toEqual(['r2']);
    expect(await store.history.get(REQS, 'r1')).toEqual(req(1));
    expect(await store.history.get(REQS, 'r2')).toEqual(req(2));
    // Evicting what is not there (or already cold) writes nothing and changes nothing.
    await store.commit((tx) => tx.evict(REQS, 'r1'));
    expect(store.stats().records).toBe(0);
  });
});

describe.skipIf(!pgAvailable)(`history's indexes${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  it('each lookup history makes is an index scan, never a scan of the history', async () => {
    const db = await createTestDatabase('history_plan');
    const o = await openPgStore({ url: db });
    const c = new pg.Client({ connectionString: db });
    await c.connect();
    try {
      await c.query('SET enable_seqscan = off');
      // Cold rows with distinct fields, analyzed: on an empty table every index costs the same.
      await c.query(
        `INSERT INTO store_records (collection, id, ord, value, cold, ref, subject, request)
         SELECT c, c || g, g, '{}'::json, true, 'r' || g, 's' || g, 'q' || g
         FROM generate_series(1, 3000) g, unnest(ARRAY['w', 'a']) c`,
      );
      await c.query('ANALYZE store_records');
      const plan = async (where: string) =>
        (await c.query(`EXPLAIN SELECT id, value FROM store_records WHERE ${where} ORDER BY id LIMIT 10`)).rows
          .map((r: Record<string, string>) => Object.values(r)[0])
          .join('\n');
      expect(await plan("collection = 'w' AND cold AND lower(ref) LIKE 'r12%'")).toMatch(/store_records_reference/);
      expect(await plan("collection = 'w' AND cold AND lower(ref) = lower('Ab') AND ref = 'Ab'")).toMatch(
        /store_records_reference/,
      );
      expect(
        await plan("collection = 'w' AND cold AND lower(ref) = ANY(ARRAY['ab']) AND ref = ANY(ARRAY['Ab'])"),
      ).toMatch(/store_records_reference/);
      expect(await plan("collection = 'a' AND cold AND subject = 'x'")).toMatch(/store_records_subject/);
      expect(await plan("collection = 'a' AND cold AND request = 'x'")).toMatch(/store_records_request/);
      const pages = await c.query(
        `EXPLAIN SELECT id, value FROM store_records WHERE collection = 'a' AND cold AND id COLLATE "C" > '0001' ORDER BY id COLLATE "C" LIMIT 10`,
      );
      expect(pages.rows.map((r: Record<string, string>) => Object.values(r)[0]).join('\n')).toMatch(
        /store_records_cold_id/,
      );
      const hot = (
        await c.query('EXPLAIN SELECT collection, id, value, ord FROM store_records WHERE NOT cold ORDER BY ord')
      ).rows
        .map((r: Record<string, string>) => Object.values(r)[0])
        .join('\n');
      expect(hot).toMatch(/store_records_hot/);
    } finally {
      await c.end();
      await o.store.close();
    }
  });
});

describe('history on the embedded store', () => {
  it('keeps everything in memory (evict is a no-op) and reads it as history', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'history-'));
    const store = await openStore({ dir });
    try {
      await fill(store, 5);
      await evictFirst(store, 5);
      expect(store.count(REQS)).toBe(5);
      expect((await store.history.findBy(REQS, 'merchantReference', 'REF_', { prefix: true })).length).toBe(5);
      expect(await allPages(store, 2)).toEqual([1, 2, 3, 4, 5]);
      await store.commit((tx) => tx.put(LOG, '000000', { seq: 0, subject: 's', details: { request: 'r1' } }));
      expect(await allPages(store, 4)).toEqual([0, 1, 2, 3, 4, 5]);
      expect((await store.history.findBy(LOG, 'request', 'r1')).map((e) => e.seq)).toEqual([0]);
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
