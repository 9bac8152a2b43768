import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collection, openStore, StoreClosedError, StoreCorruptError, type Store } from '../../src/store/index.js';
import { removeTempDirs, tempDir } from './helpers.js';

const open: Store[] = [];
async function openAt(dir: string, compactAfterBytes?: number): Promise<Store> {
  const s = await openStore({ dir, compactAfterBytes });
  open.push(s);
  return s;
}
async function reopen(s: Store, compactAfterBytes?: number): Promise<Store> {
  const dir = s.stats().dir;
  await s.close();
  return openAt(dir, compactAfterBytes);
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await removeTempDirs();
});

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
const NUMBERS = collection<number>('n');
const REQUESTS = collection<Rec>('withdrawals');

class Conflict extends Error {}

describe('store basics', () => {
  it('puts, gets, lists in insertion order, finds, counts and deletes', async () => {
    const s = await openAt(await tempDir());
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

    const again = await reopen(s);
    expect(again.all(W).map((v) => `${v.id}:${v.state}`)).toEqual(['10:new', 'b:updated', 'a:new', '1:new']);
    expect(again.get(OTHER, 'k')).toEqual({ v: 1 });
    expect(again.stats().records).toBe(5);
  });

  it('hands out deep-frozen copies, never the caller’s object', async () => {
    const s = await openAt(await tempDir());
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
    const s = await openAt(await tempDir());
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
    const s = await openAt(await tempDir());
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
    const again = await reopen(s);
    expect(again.all(C)).toEqual([{ v: 1 }]);
  });

  it('a value that is not JSON rejects the whole commit', async () => {
    const s = await openAt(await tempDir());
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
    const s = await openAt(await tempDir());
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
    const s = await openAt(await tempDir());
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
    expect((await reopen(s)).get(REQUESTS, 'w1')?.state).toBe('executing');
  });

  it('a later commit sees an earlier one before it is durable, and resolves after it', async () => {
    const s = await openAt(await tempDir());
    const order: string[] = [];
    const a = s.commit((tx) => tx.put(C, 'a', 1)).then(() => order.push('a'));
    const b = s.commit((tx) => tx.get(C, 'a')).then((seen) => order.push(`b saw ${String(seen)}`));
    const c = s.commit(() => 'nothing written').then((r) => order.push(r));
    await Promise.all([a, b, c]);
    expect(order).toEqual(['a', 'b saw 1', 'nothing written']);
  });

  it('rejects commits after close', async () => {
    const s = await openAt(await tempDir());
    await s.close();
    await expect(s.commit((tx) => tx.put(C, 'a', 1))).rejects.toBeInstanceOf(StoreClosedError);
  });
});

describe('group commit', () => {
  it('1000 concurrent commits share far fewer fsyncs and all survive a reopen', async () => {
    const s = await openAt(await tempDir());
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

    const again = await reopen(s);
    expect(again.count(N)).toBe(1200);
    expect(again.all(N).map((v) => v.i)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
  });
});

describe('compaction', () => {
  it('snapshots past the threshold, cuts the journal, and reopens to the same state', async () => {
    const dir = await tempDir();
    const s = await openAt(dir, 2000);
    const pad = 'x'.repeat(100);
    for (let round = 0; round < 20; round++) {
      // several commits in flight so that some land while a snapshot is being written
      await Promise.all(
        Array.from({ length: 10 }, (_, k) => {
          const i = round * 10 + k;
          return s.commit((tx) => {
            tx.put(N, String(i), { i, pad });
            if (i % 7 === 0) tx.delete(N, String(i - 3));
          });
        }),
      );
    }
    const st = s.stats();
    expect(st.compactions).toBeGreaterThan(0);
    expect(st.snapshotBytes).toBeGreaterThan(0);
    // 200 lines of ~180 bytes were written; most of them were cut away
    expect(st.journalBytes).toBeLessThan((200 * 180) / 2);
    const expected = s.all(N);
    expect(expected.length).toBe(st.records);

    const snap = JSON.parse(await fs.readFile(path.join(dir, 'state.json'), 'utf8')) as { seq: number };
    expect(snap.seq).toBeGreaterThan(0);

    const again = await reopen(s, 2000);
    expect((await fs.stat(path.join(dir, 'journal.jsonl'))).size).toBe(s.stats().journalBytes);
    expect(again.all(N)).toEqual(expected);
    expect(again.stats().seq).toBe(st.seq);
    // and it keeps working after the reopen
    await again.commit((tx) => tx.put(N, 'after', { i: -1, pad }));
    expect((await reopen(again)).get(N, 'after')).toEqual({ i: -1, pad });
  });

  it('after a crash between snapshot and journal cut, replay skips what the snapshot holds', async () => {
    const dir = await tempDir();
    await fs.writeFile(
      path.join(dir, 'state.json'),
      JSON.stringify({
        version: 1,
        seq: 2,
        collections: {
          n: [
            ['a', 1],
            ['b', 2],
          ],
        },
      }),
    );
    const lines = [
      { seq: 1, ops: [{ op: 'put', c: 'n', id: 'a', v: 1 }] },
      { seq: 2, ops: [{ op: 'put', c: 'n', id: 'b', v: 2 }] },
      { seq: 3, ops: [{ op: 'put', c: 'n', id: 'c', v: 3 }] },
      {
        seq: 4,
        ops: [
          { op: 'del', c: 'n', id: 'a' },
          { op: 'put', c: 'n', id: 'b', v: 20 },
        ],
      },
    ];
    await fs.writeFile(path.join(dir, 'journal.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const s = await openAt(dir);
    expect(s.all(NUMBERS)).toEqual([20, 3]);
    expect(s.stats().seq).toBe(4);
  });
  it('after a crash right after a snapshot that is ahead of the journal, keeps committing', async () => {
    const dir = await tempDir();
    // the snapshot holds commits 1..3; the journal got only 1..2 before the crash
    await fs.writeFile(
      path.join(dir, 'state.json'),
      JSON.stringify({
        version: 1,
        seq: 3,
        collections: {
          n: [
            ['a', 1],
            ['b', 2],
            ['c', 3],
          ],
        },
      }),
    );
    const lines = [
      { seq: 1, ops: [{ op: 'put', c: 'n', id: 'a', v: 1 }] },
      { seq: 2, ops: [{ op: 'put', c: 'n', id: 'b', v: 2 }] },
    ];
    await fs.writeFile(path.join(dir, 'journal.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const s = await openAt(dir);
    expect(s.all(NUMBERS)).toEqual([1, 2, 3]);
    await s.commit((tx) => tx.put(NUMBERS, 'd', 4));
    const again = await reopen(s);
    expect(again.all(NUMBERS)).toEqual([1, 2, 3, 4]);
    expect(again.stats().seq).toBe(4);
  });
});

describe('recovery', () => {
  async function journalOf3(): Promise<{ dir: string; journal: string; good: string }> {
    const dir = await tempDir();
    const s = await openAt(dir);
    for (let i = 0; i < 3; i++) await s.commit((tx) => tx.put(N, String(i), { i }));
    await s.close();
    const journal = path.join(dir, 'journal.jsonl');
    return { dir, journal, good: await fs.readFile(journal, 'utf8') };
  }

  it('drops a torn last line, truncates it away, and carries on', async () => {
    const { dir, journal, good } = await journalOf3();
    await fs.appendFile(journal, '{"seq":4,"ops":[{"op":"put","c":"n","id":"3","v":{"i"');
    const s = await openAt(dir);
    expect(s.all(N)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect(await fs.readFile(journal, 'utf8')).toBe(good);
    await s.commit((tx) => tx.put(N, '3', { i: 3 }));
    expect((await reopen(s)).count(N)).toBe(4);
  });

  it('drops an unparseable last line even when newline-terminated (zero-filled block)', async () => {
    const { dir, journal, good } = await journalOf3();
    await fs.appendFile(journal, '\0\0\0\0\0\n');
    const s = await openAt(dir);
    expect(s.count(N)).toBe(3);
    expect(await fs.readFile(journal, 'utf8')).toBe(good);
  });

  it('refuses to open when a line in the middle is corrupt, naming file and line', async () => {
    const { dir, journal, good } = await journalOf3();
    const lines = good.split('\n');
    lines[1] = `${lines[1]!.slice(0, 10)}#${lines[1]!.slice(11)}`;
    await fs.writeFile(journal, lines.join('\n'));
    const err = await openStore({ dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreCorruptError);
    expect((err as Error).message).toContain(journal);
    expect((err as Error).message).toContain('line 2');
    // the file is left as it was, and the failed open released the lock
    expect(await fs.readFile(journal, 'utf8')).toBe(lines.join('\n'));
    await expect(openStore({ dir })).rejects.toBeInstanceOf(StoreCorruptError);
  });

  it('refuses a journal with missing commits', async () => {
    const { dir, journal, good } = await journalOf3();
    const lines = good.split('\n');
    lines.splice(1, 1);
    await fs.writeFile(journal, lines.join('\n'));
    await expect(openStore({ dir })).rejects.toThrow(/seq 3 follows 1/);
  });

  it('refuses an unreadable snapshot', async () => {
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'state.json'), '{"version":1,"seq":');
    await expect(openStore({ dir })).rejects.toBeInstanceOf(StoreCorruptError);
  });

  it('removes leftover temp files of an interrupted snapshot', async () => {
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'state.json.tmp'), '{"half');
    await fs.writeFile(path.join(dir, 'journal.jsonl.tmp'), '{"half');
    await openAt(dir);
    const names = await fs.readdir(dir);
    expect(names).not.toContain('state.json.tmp');
    expect(names).not.toContain('journal.jsonl.tmp');
  });
});
