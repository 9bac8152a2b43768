/**
 * A disk that refuses writes (full, quota, read-only, I/O error) is survived: the commits
 * that were not durable are undone (memory equals the disk again, in order), rejected with
 * StoreUnavailableError naming the cause; further commits are refused at once; reads go on;
 * when the disk takes writes again the store resumes by itself; nothing acknowledged is lost.
 * Once against a real full filesystem (a small tmpfs, when this machine lets us mount one),
 * once through the store's write seam.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger, serializeError } from '../../src/log.js';
import { collection, openStore, StoreUnavailableError, type Store } from '../../src/store/index.js';
import { removeTempDirs, tempDir } from './helpers.js';

/** The tests' own collection: the store knows no names, any will do. */
const W = collection<{ id: string; v?: unknown }>('w');

const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await removeTempDirs();
});

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
}

async function until(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function snapshot(s: Store, c: typeof W): Array<[string, unknown]> {
  return s.all(c).map((v) => [v.id, v]);
}

describe('write failures through the seam', () => {
  it('undoes every unsaved commit of a group, in order, and resumes by itself', async () => {
    const dir = await tempDir();
    let refuse = false;
    const s = await openStore({
      dir,
      probeIntervalMs: 20,
      writeGate: (stage) => (refuse && stage !== 'cut' && stage !== 'dirsync' ? enospc() : undefined),
    });
    open.push(s);
    await s.commit((tx) => {
      for (const id of ['a', 'b', 'c']) tx.put(W, id, { id, v: 0 });
    });
    const before = snapshot(s, W);
    const seqBefore = s.stats().seq;

    refuse = true;
    // Three commits in one batch: a replace, a delete (whose undo must restore insertion order), an insert.
    const p1 = s.commit((tx) => tx.put(W, 'a', { id: 'a', v: 1 }));
    const p2 = s.commit((tx) => tx.delete(W, 'b'));
    const p3 = s.commit((tx) => tx.put(W, 'd', { id: 'd', v: 1 }));
    const results = await Promise.allSettled([p1, p2, p3]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason as StoreUnavailableError;
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(err.code).toBe('ENOSPC');
      expect(err.reason).toBe('disk_full');
    }
    expect(snapshot(s, W)).toEqual(before);
    expect(s.stats().seq).toBe(seqBefore);
    const h = s.health();
    expect(h.writable).toBe(false);

    // Refused at once while the disk is full; reads keep working.
    await expect(s.commit((tx) => tx.put(W, 'e', { id: 'e', v: 1 }))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(s.get(W, 'a')).toEqual({ id: 'a', v: 0 });

    refuse = false;
    await until(() => s.health().writable);
    await s.commit((tx) => tx.put(W, 'f', { id: 'f', v: 2 }));
    const after = snapshot(s, W);
    expect(after.map(([id]) => id)).toEqual(['a', 'b', 'c', 'f']);

    await s.close();
    open.splice(open.indexOf(s), 1);
    const again = await openStore({ dir });
    open.push(again);
    expect(snapshot(again, W)).toEqual(after);
  });

  it('a failed fsync: complete but unsynced lines are cut, so a crash cannot bring back a refused commit', async () => {
    const dir = await tempDir();
    let failSync = false;
    const s = await openStore({
      dir,
      probeIntervalMs: 60_000,
      writeGate: (stage) =>
        failSync && stage === 'sync' ? Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }) : undefined,
    });
    open.push(s);
    await s.commit((tx) => tx.put(W, 'a', { id: 'a' }));
    failSync = true;
    const err = await s.commit((tx) => tx.put(W, 'b', { id: 'b' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).reason).toBe('io');
    await until(() => s.count(W) === 1);
    // What a restart (after a crash now) would read: only the acknowledged commit.
    const journal = await fs.readFile(path.join(dir, 'journal.jsonl'), 'utf8');
    expect(journal).not.toContain('"b"');
    await s.close();
    open.splice(open.indexOf(s), 1);
    const again = await openStore({ dir });
    open.push(again);
    expect(again.all(W).map((r) => r.id)).toEqual(['a']);
  });

  it('logs the cause with its code and message, never "[object Object]"', async () => {
    let lines = '';
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write(c, _e, cb) {
          lines += String(c);
          cb();
        },
      }),
    });
    let refuse = false;
    const s = await openStore({
      dir: await tempDir(),
      logger,
      probeIntervalMs: 20,
      writeGate: (stage) => (refuse && stage !== 'cut' && stage !== 'dirsync' ? enospc() : undefined),
    });
    open.push(s);
    refuse = true;
    await s.commit((tx) => tx.put(W, 'x', { id: 'x' })).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
    expect(lines).not.toContain('[object Object]');
    const failure = lines
      .split('\n')
      .filter(Boolean)
      .map(
        (l) =>
          JSON.parse(l) as {
            msg: string;
            err?: { code?: string; message?: string; cause?: { code?: string; message?: string } };
          },
      )
      .find((l) => l.msg.startsWith('journal write failed'))!;
    expect(failure.err?.code).toBe('ENOSPC');
    expect(failure.err?.cause).toMatchObject({ code: 'ENOSPC', message: 'ENOSPC: no space left on device, write' });
  });

  it('the error serializer keeps message, code and cause of plain objects and already-serialized errors', () => {
    const inner = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    expect(serializeError({ message: 'wrapped', code: 'E1', cause: inner })).toMatchObject({
      message: 'wrapped',
      code: 'E1',
      cause: { code: 'ENOSPC', message: 'ENOSPC: no space left on device' },
    });
    expect(serializeError(serializeError(inner))).toMatchObject({
      type: 'Error',
      code: 'ENOSPC',
      message: 'ENOSPC: no space left on device',
    });
    expect(serializeError({ weird: 1 }).message).toBe('{"weird":1}');
  });

  it('a commit that changes nothing still resolves while the store is writable, and a throwing commit changes nothing', async () => {
    const s = await openStore({ dir: await tempDir(), probeIntervalMs: 20 });
    open.push(s);
    await expect(s.commit(() => 1)).resolves.toBe(1);
    await expect(
      s.commit((tx) => {
        tx.put(W, 'x', { id: 'x' });
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(s.count(W)).toBe(0);
  });
});

// ---------- a real full filesystem ----------

let mountPoint: string | undefined;
let mountError: string | undefined;

beforeAll(async () => {
  const dir = await fs.mkdtemp('/tmp/store-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'pipe' });
    mountPoint = dir;
  } catch (err) {
    mountError = (err as Error).message;
    await fs.rm(dir, { recursive: true, force: true });
  }
});

afterAll(async () => {
  if (!mountPoint) return;
  try {
    execFileSync('umount', [mountPoint], { stdio: 'pipe' });
  } finally {
    await fs.rm(mountPoint, { recursive: true, force: true });
  }
});

/** Fill the filesystem until it refuses another byte; returns the filler's path. */
async function fillDisk(dir: string): Promise<string> {
  const file = path.join(dir, 'filler');
  const fh = await fs.open(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) await fh.write(chunk);
  } catch (err) {
    expect((err as { code?: string }).code).toBe('ENOSPC');
  }
  // Then the last few bytes, so nothing at all fits.
  try {
    for (;;) await fh.write(Buffer.alloc(512, 1));
  } catch {
    // full
  }
  await fh.close();
  return file;
}

describe('a real full disk (tmpfs)', () => {
  it('refuses with ENOSPC, undoes, keeps reads, and resumes when space is freed', async (ctx) => {
    if (!mountPoint) {
      ctx.skip(`cannot mount a tmpfs here (${mountError ?? 'unknown'}); the seam tests cover this`);
      return;
    }
    const dir = path.join(mountPoint, 'data');
    const s = await openStore({ dir, probeIntervalMs: 20 });
    open.push(s);
    await s.commit((tx) => tx.put(W, 'kept', { id: 'kept', v: 'acknowledged' }));
    const filler = await fillDisk(mountPoint);

    const big = 'x'.repeat(100_000);
    const err = await s
      .commit((tx) => tx.put(W, 'lost', { id: 'lost', v: big }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).code).toBe('ENOSPC');
    expect(s.get(W, 'lost')).toBeUndefined();
    expect(s.get(W, 'kept')).toEqual({ id: 'kept', v: 'acknowledged' });
    await expect(s.commit((tx) => tx.put(W, 'x', { id: 'x' }))).rejects.toBeInstanceOf(StoreUnavailableError);

    await fs.rm(filler);
    await until(() => s.health().writable);
    await s.commit((tx) => tx.put(W, 'later', { id: 'later', v: big }));

    await s.close();
    open.splice(open.indexOf(s), 1);
    const again = await openStore({ dir });
    open.push(again);
    expect(again.all(W).map((r) => r.id)).toEqual(['kept', 'later']);
  });
});
