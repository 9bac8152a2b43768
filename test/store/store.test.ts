import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collection, openStore, StoreCorruptError, type Store } from '../../src/store/index.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { storeContract } from './contract.js';

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

/** The embedded store's own cases use these collections (the contract's are in contract.ts). */
const N = collection<{ i: number; amount?: string; pad?: string }>('n');
/** The same name where hand-written journal lines put plain numbers in it. */
const NUMBERS = collection<number>('n');

storeContract({ open: async () => openAt(await tempDir()), reopen: (s) => reopen(s) });

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
