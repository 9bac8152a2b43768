/** store.compact(): after deletes, a snapshot now and a cut journal, so the files shrink and a reopen reads the same. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collection, openStore } from '../../src/store/index.js';
import { removeTempDirs, tempDir } from './helpers.js';

const THINGS = collection<{ n: number; pad: string }>('things');
const size = async (dir: string) => {
  let total = 0;
  for (const f of ['state.json', 'journal.jsonl'])
    total += await fs.stat(path.join(dir, f)).then(
      (s) => s.size,
      () => 0,
    );
  return total;
};

afterEach(removeTempDirs);

describe('compact', () => {
  it('shrinks the files after deletes and keeps exactly the remaining records', async () => {
    const dir = await tempDir();
    const s = await openStore({ dir });
    await s.commit((tx) => {
      for (let i = 0; i < 1_000; i++) tx.put(THINGS, `t${i}`, { n: i, pad: 'x'.repeat(200) });
    });
    await s.commit((tx) => {
      for (let i = 0; i < 900; i++) tx.delete(THINGS, `t${i}`);
    });
    const before = await size(dir);
    expect(s.stats().compactions).toBe(0);
    await s.compact();
    expect(s.stats().compactions).toBe(1);
    expect(s.stats().journalBytes).toBe(0);
    const after = await size(dir);
    expect(after).toBeLessThan(before / 5);
    expect(s.counts()).toEqual({ things: 100 });
    // Writes go on after a compaction; all of it survives a reopen.
    await s.commit((tx) => tx.put(THINGS, 'late', { n: -1, pad: '' }));
    await s.close();
    const again = await openStore({ dir });
    expect(again.count(THINGS)).toBe(101);
    expect(again.get(THINGS, 't950')?.n).toBe(950);
    expect(again.get(THINGS, 't5')).toBeUndefined();
    await again.close();
  });
});
