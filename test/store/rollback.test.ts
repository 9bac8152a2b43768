/**
 * A refused journal write rolls the store back to what the disk holds. These pin the
 * interleavings a review found, through the store's write seam: a snapshot that failed (or
 * only half finished) while later commits waited must never be taken for the disk's state;
 * lines that could not be cut must not replay after close; a probe still running must not
 * touch the files after close released the lock.
 */
import { statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collection, openStore, StoreFailedError, StoreUnavailableError, type Store } from '../../src/store/index.js';
import type { WriteStage } from '../../src/store/durable-fs.js';
import { removeTempDirs, tempDir } from './helpers.js';

const W = collection<{ id: string; pad?: string }>('w');

const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await removeTempDirs();
});

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** A seam that refuses the stages listed in `refuse` (each a count of refusals, Infinity for all). */
function gate(): { refuse: Map<WriteStage, number>; fn: (stage: WriteStage) => Error | undefined; seen: WriteStage[] } {
  const refuse = new Map<WriteStage, number>();
  const seen: WriteStage[] = [];
  return {
    refuse,
    seen,
    fn: (stage) => {
      seen.push(stage);
      const n = refuse.get(stage) ?? 0;
      if (n <= 0) return undefined;
      refuse.set(stage, n - 1);
      return enospc();
    },
  };
}

type Settled = 'resolved' | 'unavailable' | 'failed' | 'other';
const settle = (p: Promise<unknown>): Promise<Settled> =>
  p.then(
    () => 'resolved' as const,
    (e: unknown) =>
      e instanceof StoreUnavailableError ? 'unavailable' : e instanceof StoreFailedError ? 'failed' : 'other',
  );

async function reopenIds(dir: string): Promise<string[]> {
  const again = await openStore({ dir });
  try {
    return again.all(W).map((r) => r.id);
  } finally {
    await again.close();
  }
}

describe('rollback after a refused journal write', () => {
  it('a failed first snapshot is not taken for the disk: A is kept, refused B and C are not, nothing is cut', async () => {
    const g = gate();
    g.refuse.set('snapshot', Infinity);
    const dir = await tempDir();
    const s = await openStore({ dir, compactAfterBytes: 500, probeIntervalMs: 60_000, writeGate: (st) => g.fn(st) });
    open.push(s);
    for (let i = 0; i < 4; i++) await s.commit((tx) => tx.put(W, `k${i}`, { id: `k${i}`, pad: 'x'.repeat(50) }));
    const pA = settle(s.commit((tx) => tx.put(W, 'A', { id: 'A', pad: 'y'.repeat(200) })));
    await new Promise((r) => setImmediate(r));
    // A's write is under way: B and C queue, and their write will be refused.
    const pB = settle(s.commit((tx) => tx.put(W, 'B', { id: 'B' })));
    const pC = settle(s.commit((tx) => tx.put(W, 'C', { id: 'C' })));
    g.refuse.set('write', Infinity);
    expect(await Promise.all([pA, pB, pC])).toEqual(['resolved', 'unavailable', 'unavailable']);
    // The snapshot was tried (the race is real) and failed.
    expect(g.seen).toContain('snapshot');
    await expect(fs.stat(path.join(dir, 'state.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(s.all(W).map((r) => r.id)).toEqual(['k0', 'k1', 'k2', 'k3', 'A']);
    const journal = await fs.readFile(path.join(dir, 'journal.jsonl'), 'utf8');
    expect(journal.split('\n').filter(Boolean)).toHaveLength(5);
    await s.close();
    open.splice(open.indexOf(s), 1);
    expect(await reopenIds(dir)).toEqual(['k0', 'k1', 'k2', 'k3', 'A']);
  });

  it('the same race with a half-written journal append: the torn bytes are cut, reopening gives exactly the acknowledged commits', async () => {
    const g = gate();
    g.refuse.set('snapshot', Infinity);
    const dir = await tempDir();
    const s = await openStore({ dir, compactAfterBytes: 500, probeIntervalMs: 60_000, writeGate: (st) => g.fn(st) });
    open.push(s);
    for (let i = 0; i < 4; i++) await s.commit((tx) => tx.put(W, `k${i}`, { id: `k${i}`, pad: 'x'.repeat(50) }));
    const pA = settle(s.commit((tx) => tx.put(W, 'A', { id: 'A', pad: 'y'.repeat(200) })));
    await new Promise((r) => setImmediate(r));
    const pB = settle(s.commit((tx) => tx.put(W, 'B', { id: 'B' })));
    const pC = settle(s.commit((tx) => tx.put(W, 'C', { id: 'C' })));
    // B's line is written whole, C's torn: neither was made durable.
    g.refuse.set('partial', Infinity);
    expect(await Promise.all([pA, pB, pC])).toEqual(['resolved', 'unavailable', 'unavailable']);
    const journal = await fs.readFile(path.join(dir, 'journal.jsonl'), 'utf8');
    expect(journal).not.toContain('"B"');
    expect(journal.endsWith('\n')).toBe(true);
    await s.close();
    open.splice(open.indexOf(s), 1);
    expect(await reopenIds(dir)).toEqual(['k0', 'k1', 'k2', 'k3', 'A']);
  });

  it('a snapshot renamed but not made durable (directory fsync failed) is trusted only once the directory fsync succeeds', async () => {
    const g = gate();
    g.refuse.set('dirsync', 1);
    const dir = await tempDir();
    const s = await openStore({ dir, compactAfterBytes: 500, probeIntervalMs: 60_000, writeGate: (st) => g.fn(st) });
    open.push(s);
    for (let i = 0; i < 4; i++) await s.commit((tx) => tx.put(W, `k${i}`, { id: `k${i}`, pad: 'x'.repeat(50) }));
    const pA = settle(s.commit((tx) => tx.put(W, 'A', { id: 'A', pad: 'y'.repeat(200) })));
    await new Promise((r) => setImmediate(r));
    const pB = settle(s.commit((tx) => tx.put(W, 'B', { id: 'B' })));
    const pC = settle(s.commit((tx) => tx.put(W, 'C', { id: 'C' })));
    g.refuse.set('write', Infinity);
    // The snapshot holds B and C, and the rollback made its name durable: they are on disk, so they resolve.
    expect(await Promise.all([pA, pB, pC])).toEqual(['resolved', 'resolved', 'resolved']);
    expect(g.seen.filter((st) => st === 'dirsync')).toHaveLength(2);
    await s.close();
    open.splice(open.indexOf(s), 1);
    expect(await reopenIds(dir)).toEqual(['k0', 'k1', 'k2', 'k3', 'A', 'B', 'C']);
  });

  it('if that directory fsync keeps failing the store stops rather than cut the journal under an unsure snapshot', async () => {
    const g = gate();
    g.refuse.set('dirsync', Infinity);
    const failures: StoreFailedError[] = [];
    const dir = await tempDir();
    const s = await openStore({
      dir,
      compactAfterBytes: 500,
      probeIntervalMs: 60_000,
      writeGate: (st) => g.fn(st),
      onFailure: (e) => failures.push(e),
    });
    open.push(s);
    for (let i = 0; i < 4; i++) await s.commit((tx) => tx.put(W, `k${i}`, { id: `k${i}`, pad: 'x'.repeat(50) }));
    const pA = settle(s.commit((tx) => tx.put(W, 'A', { id: 'A', pad: 'y'.repeat(200) })));
    await new Promise((r) => setImmediate(r));
    const pB = settle(s.commit((tx) => tx.put(W, 'B', { id: 'B' })));
    const pC = settle(s.commit((tx) => tx.put(W, 'C', { id: 'C' })));
    g.refuse.set('write', Infinity);
    expect(await Promise.all([pA, pB, pC])).toEqual(['resolved', 'failed', 'failed']);
    expect(failures).toHaveLength(1);
    // Every durable journal line is still there, whichever snapshot survives a crash.
    const journal = await fs.readFile(path.join(dir, 'journal.jsonl'), 'utf8');
    expect(journal.split('\n').filter(Boolean)).toHaveLength(5);
    await s.close();
    open.splice(open.indexOf(s), 1);
    const ids = await reopenIds(dir);
    expect(ids.slice(0, 5)).toEqual(['k0', 'k1', 'k2', 'k3', 'A']);
  });
});

describe('closing a store that could not cut its journal', () => {
  it('close() cuts the lines of refused commits, so reopening does not bring them back', async () => {
    const g = gate();
    const dir = await tempDir();
    const s = await openStore({ dir, probeIntervalMs: 60_000, writeGate: (st) => g.fn(st) });
    open.push(s);
    await s.commit((tx) => tx.put(W, 'a', { id: 'a' }));
    // The line is written whole, its fsync fails, and cutting it fails too (once).
    g.refuse.set('sync', 1);
    g.refuse.set('cut', 1);
    expect(await settle(s.commit((tx) => tx.put(W, 'b', { id: 'b' })))).toBe('unavailable');
    const journal = await fs.readFile(path.join(dir, 'journal.jsonl'), 'utf8');
    expect(journal).toContain('"b"');
    await s.close();
    open.splice(open.indexOf(s), 1);
    expect(await fs.readFile(path.join(dir, 'journal.jsonl'), 'utf8')).not.toContain('"b"');
    expect(await reopenIds(dir)).toEqual(['a']);
  });

  it('if close() cannot cut them either, the store fails (onFailure) instead of closing as if all were well', async () => {
    const g = gate();
    const failures: StoreFailedError[] = [];
    const dir = await tempDir();
    const s = await openStore({
      dir,
      probeIntervalMs: 60_000,
      writeGate: (st) => g.fn(st),
      onFailure: (e) => failures.push(e),
    });
    open.push(s);
    await s.commit((tx) => tx.put(W, 'a', { id: 'a' }));
    g.refuse.set('sync', 1);
    g.refuse.set('cut', Infinity);
    expect(await settle(s.commit((tx) => tx.put(W, 'b', { id: 'b' })))).toBe('unavailable');
    await s.close();
    open.splice(open.indexOf(s), 1);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(StoreFailedError);
  });
});

describe('a probe running when close() is called', () => {
  it('close() waits for it: the probe has done all its work before close() cuts, closes and releases the lock', async () => {
    const dir = await tempDir();
    const journalPath = path.join(dir, 'journal.jsonl');
    let failSync = false;
    let cuts = 0;
    let closed: Promise<void> | undefined;
    let journalSizeAtCloseCut: number | undefined;
    let s!: Store;
    s = await openStore({
      dir,
      probeIntervalMs: 5,
      writeGate: (st) => {
        if (st === 'sync' && failSync) {
          failSync = false;
          return enospc();
        }
        if (st !== 'cut') return undefined;
        cuts++;
        // 1: the rollback's cut fails, so the refused line stays in the file.
        if (cuts === 1) return enospc();
        // 2: the probe is about to cut it: close() is called right now, mid-probe.
        if (cuts === 2) closed = s.close();
        // 3: close()'s own cut, the last step before it lets go of the files: the probe must be done by now.
        if (cuts === 3) journalSizeAtCloseCut = statSync(journalPath).size;
        return undefined;
      },
    });
    await s.commit((tx) => tx.put(W, 'a', { id: 'a' }));
    const durableSize = statSync(journalPath).size;
    failSync = true;
    expect(await settle(s.commit((tx) => tx.put(W, 'b', { id: 'b' })))).toBe('unavailable');
    expect(statSync(journalPath).size).toBeGreaterThan(durableSize);
    while (!closed) await new Promise((r) => setTimeout(r, 5));
    await closed;
    expect(cuts).toBe(3);
    expect(journalSizeAtCloseCut).toBe(durableSize);
    expect(await fs.readdir(dir)).not.toContain('probe.tmp');
    expect(await reopenIds(dir)).toEqual(['a']);
  });
});
