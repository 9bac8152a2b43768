/**
 * The store's contract, run against each backend (the embedded store in store.test.ts, PostgreSQL
 * in pg/store-pg.test.ts): what domain code relies on, whatever holds the records.
 */
import { describe, expect, it } from 'vitest';
import { collection, StoreClosedError, type Store } from '../../src/store/index.js';

export interface Backend {
  /** A fresh, empty store. */
  open(): Promise<Store>;
  /** Closes s and opens the same store again. */
  reopen(s: Store): Promise<Store>;
}

interface Rec {
  id: string;
  state: string;
  amount?: string;
}

/** The tests' own collections: the store knows no names, any will do. */
const W = collection<Rec>('w');
const OTHER = collection<{ v: number }>('other');
const C = collection<unknown>('c');
const N = collection<{ i: number; amount?: string; pad?: string }>('n');
/** The same name where hand-written journal lines put plain numbers in it. */
const REQUESTS = collection<Rec>('withdrawals');

class Conflict extends Error {}

export function storeContract(backend: Backend): void {
  describe('store basics', () => {
    it('puts, gets, lists in insertion order, finds, counts and deletes', async () => {
      const s = await backend.open();
      expect(s.get(W, 'x')).toBeUndefined();
      expect(s.all(W)).toEqual([]);
      expect(s.count(W)).toBe(0);

      const r = await s.commit((tx) => {
        // integer-like ids on purpose: a plain object would reorder them
        for (const id of ['10', 'b', '2', 'a', '1']) tx.put(W, id, { id, state: 'new', amount: '0.10' });
        tx.put(OTHER, 'k', { v: 1 });
        return 'done';
      });
      expect(r).toBe('done');
      expect(s.all(W).map((v) => v.id)).toEqual(['10', 'b', '2', 'a', '1']);
      expect(s.get(W, '2')).toEqual({ id: '2', state: 'new', amount: '0.10' });
      expect(s.count(W)).toBe(5);
      expect(s.find(W, (v) => v.id < '2').map((v) => v.id)).toEqual(['10', '1']);

      await s.commit((tx) => {
        tx.put(W, 'b', { id: 'b', state: 'updated' }); // keeps its place
        tx.delete(W, '2');
        tx.delete(W, 'never-existed');
      });
      expect(s.all(W).map((v) => `${v.id}:${v.state}`)).toEqual(['10:new', 'b:updated', 'a:new', '1:new']);
      expect(s.stats().records).toBe(5);

      const again = await backend.reopen(s);
      expect(again.all(W).map((v) => `${v.id}:${v.state}`)).toEqual(['10:new', 'b:updated', 'a:new', '1:new']);
      expect(again.get(OTHER, 'k')).toEqual({ v: 1 });
      expect(again.stats().records).toBe(5);
    });

    it('hands out deep-frozen copies, never the caller’s object', async () => {
      const s = await backend.open();
      const VALUES = collection<{ nested: { list: number[] }; when: unknown }>('c');
      const value = { nested: { list: [1, 2] }, when: new Date(0) };
      await s.commit((tx) => tx.put(VALUES, '1', value));
      value.nested.list.push(3);
      const got = s.get(VALUES, '1')!;
      expect(got.nested.list).toEqual([1, 2]);
      // stored as JSON, exactly what a restart will load
      expect(got.when).toBe('1970-01-01T00:00:00.000Z');
      expect(Object.isFrozen(got)).toBe(true);
      expect(Object.isFrozen(got.nested.list)).toBe(true);
      expect(() => got.nested.list.push(4)).toThrow(TypeError);
    });

    it('a transaction sees its own writes', async () => {
      const s = await backend.open();
      await s.commit((tx) => {
        tx.put(C, 'a', 1);
        tx.put(C, 'b', 2);
      });
      const seen = await s.commit((tx) => {
        tx.put(C, 'z', 26);
        tx.delete(C, 'a');
        tx.put(C, 'b', 20);
        return { b: tx.get(C, 'b'), a: tx.get(C, 'a'), all: tx.all(C) };
      });
      expect(seen).toEqual({ b: 20, a: undefined, all: [20, 26] });
      expect(s.all(C)).toEqual([20, 26]);
    });
  });

  describe('atomicity', () => {
    it('a throwing fn changes nothing and its error rejects the promise', async () => {
      const s = await backend.open();
      await s.commit((tx) => tx.put(C, 'keep', { v: 1 }));
      const before = s.stats();
      const boom = new Error('boom');
      await expect(
        s.commit((tx) => {
          tx.put(C, 'new', { v: 2 });
          tx.put(C, 'keep', { v: 99 });
          tx.delete(C, 'keep');
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(s.all(C)).toEqual([{ v: 1 }]);
      expect(s.stats().seq).toBe(before.seq);
      const again = await backend.reopen(s);
      expect(again.all(C)).toEqual([{ v: 1 }]);
    });

    it('a value that is not JSON rejects the whole commit', async () => {
      const s = await backend.open();
      await expect(
        s.commit((tx) => {
          tx.put(C, 'ok', { v: 1 });
          tx.put(C, 'bad', { n: 10n });
        }),
      ).rejects.toThrow(TypeError);
      await expect(s.commit((tx) => tx.put(C, 'u', undefined))).rejects.toThrow(/values must be JSON/);
      expect(s.count(C)).toBe(0);
    });

    it('refuses async commit functions and nested commits, applying nothing', async () => {
      const s = await backend.open();
      await expect(
        s.commit(async (tx) => {
          tx.put(C, 'a', 1);
        }),
      ).rejects.toThrow(/synchronous/);
      let inner: unknown;
      await s.commit((tx) => {
        inner = s.commit((t2) => t2.put(C, 'inner', 1)).catch((e: unknown) => e);
        tx.put(C, 'outer', 1);
      });
      expect(await inner).toBeInstanceOf(Error);
      expect(String(await inner)).toMatch(/inside a commit function/);
      expect(s.all(C)).toEqual([1]);
      expect(s.get(C, 'outer')).toBe(1);
    });

    it('compare-and-set: of two racing transitions exactly one wins', async () => {
      const s = await backend.open();
      await s.commit((tx) => tx.put(REQUESTS, 'w1', { id: 'w1', state: 'approved' }));
      const execute = () =>
        s.commit((tx) => {
          const r = tx.get(REQUESTS, 'w1');
          if (r?.state !== 'approved') throw new Conflict(`w1 is ${r?.state}`);
          tx.put(REQUESTS, 'w1', { ...r, state: 'executing' });
          return 'mine';
        });
      const results = await Promise.allSettled([execute(), execute(), execute()]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected).toHaveLength(2);
      for (const r of rejected) expect(r.reason).toBeInstanceOf(Conflict);
      expect((await backend.reopen(s)).get(REQUESTS, 'w1')?.state).toBe('executing');
    });

    it('a later commit sees an earlier one before it is durable, and resolves after it', async () => {
      const s = await backend.open();
      const order: string[] = [];
      const a = s.commit((tx) => tx.put(C, 'a', 1)).then(() => order.push('a'));
      const b = s.commit((tx) => tx.get(C, 'a')).then((seen) => order.push(`b saw ${String(seen)}`));
      const c = s.commit(() => 'nothing written').then((r) => order.push(r));
      await Promise.all([a, b, c]);
      expect(order).toEqual(['a', 'b saw 1', 'nothing written']);
    });

    it('rejects commits after close', async () => {
      const s = await backend.open();
      await s.close();
      await expect(s.commit((tx) => tx.put(C, 'a', 1))).rejects.toBeInstanceOf(StoreClosedError);
    });
  });

  describe('group commit', () => {
    it('1000 concurrent commits share far fewer fsyncs and all survive a reopen', async () => {
      const s = await backend.open();
      const flushesBefore = s.stats().flushes;
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) =>
          s.commit((tx) => {
            tx.put(N, String(i), { i, amount: `${i}.01` });
            return i;
          }),
        ),
      );
      expect(results).toEqual(Array.from({ length: 1000 }, (_, i) => i));
      const flushes = s.stats().flushes - flushesBefore;
      expect(flushes).toBeGreaterThan(0);
      expect(flushes).toBeLessThan(50);
      expect(s.stats().commits).toBe(1000);

      // and commits trickling in while a flush is running are batched too
      const trickle: Promise<unknown>[] = [];
      for (let i = 1000; i < 1200; i++) {
        trickle.push(s.commit((tx) => tx.put(N, String(i), { i, amount: `${i}.01` })));
        if (i % 10 === 0) await new Promise((r) => setImmediate(r));
      }
      await Promise.all(trickle);
      // 20 bursts of 10: without batching this would be 200 flushes
      expect(s.stats().flushes - flushesBefore - flushes).toBeLessThanOrEqual(25);

      const again = await backend.reopen(s);
      expect(again.count(N)).toBe(1200);
      expect(again.all(N).map((v) => v.i)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
    });
  });
}
