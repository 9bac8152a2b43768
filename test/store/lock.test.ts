import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { collection, openStore, StoreLockedError, type Store } from '../../src/store/index.js';
import { removeTempDirs, runFixture, tempDir } from './helpers.js';

const open: Store[] = [];
/** What fixtures/open-store.ts writes. */
const CHILDREN = collection<{ pid: number }>('children');
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await removeTempDirs();
});

async function readLock(dir: string): Promise<{ pid: number; hostname: string; startedAt: string }> {
  return JSON.parse(await fs.readFile(path.join(dir, 'LOCK'), 'utf8')) as {
    pid: number;
    hostname: string;
    startedAt: string;
  };
}

async function writeLock(dir: string, info: { pid: number; hostname?: string }): Promise<void> {
  const full = { hostname: os.hostname(), startedAt: '2024-01-02T03:04:05.000Z', ...info };
  await fs.writeFile(path.join(dir, 'LOCK'), JSON.stringify(full));
}

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('one writer per directory', () => {
  it('writes LOCK naming this process and removes it on close', async () => {
    const dir = await tempDir();
    const s = await openStore({ dir });
    const info = await readLock(dir);
    expect(info.pid).toBe(process.pid);
    expect(info.hostname).toBe(os.hostname());
    expect(Number.isNaN(Date.parse(info.startedAt))).toBe(false);
    await s.close();
    await expect(fs.stat(path.join(dir, 'LOCK'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a second open in the same process', async () => {
    const dir = await tempDir();
    open.push(await openStore({ dir }));
    const err = await openStore({ dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect((err as Error).message).toMatch(/already open in this process/);
  });

  it('a second process refuses while we hold the directory, and opens once we closed it', async () => {
    const dir = await tempDir();
    const s = await openStore({ dir });
    const refused = await runFixture('open-store.ts', [dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('StoreLockedError');
    expect(refused.stderr).toContain(`in use by process ${process.pid}`);
    expect(refused.stderr).toContain(dir);
    expect(refused.stderr).toMatch(/stop that process/);
    expect(refused.stdout).toBe('');
    // the refused child must not have disturbed our lock
    expect((await readLock(dir)).pid).toBe(process.pid);
    await s.close();

    const ok = await runFixture('open-store.ts', [dir]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const childPid = /opened (\d+)/.exec(ok.stdout)?.[1];
    expect(childPid).toBeDefined();
    const again = await openStore({ dir });
    open.push(again);
    expect(again.get(CHILDREN, childPid!)).toEqual({ pid: Number(childPid) });
  });

  it('a process that exits without close releases the lock in its exit handler', async () => {
    const dir = await tempDir();
    const r = await runFixture('open-store.ts', [dir, 'exit']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/opened/);
    await expect(fs.stat(path.join(dir, 'LOCK'))).rejects.toThrow(/ENOENT/);
  });

  it('takes over the LOCK of a dead process', async () => {
    const dir = await tempDir();
    const pid = deadPid();
    await writeLock(dir, { pid });
    const s = await openStore({ dir });
    open.push(s);
    expect((await readLock(dir)).pid).toBe(process.pid);
    expect((await fs.readdir(dir)).filter((n) => n.startsWith('LOCK'))).toEqual(['LOCK']);
  });

  it('takes over a LOCK carrying our own pid (a restarted container is pid 1 again)', async () => {
    const dir = await tempDir();
    await writeLock(dir, { pid: process.pid });
    open.push(await openStore({ dir }));
    expect((await readLock(dir)).startedAt).not.toBe('2024-01-02T03:04:05.000Z');
  });

  it('refuses a LOCK held by a live process, and one from another host', async () => {
    const dir = await tempDir();
    // pid 1 is alive in any environment (EPERM when not root also counts as alive)
    await writeLock(dir, { pid: 1 });
    await expect(openStore({ dir })).rejects.toThrow(/in use by process 1 on .* since 2024-01-02T03:04:05.000Z/);
    await writeLock(dir, { pid: deadPid(), hostname: 'elsewhere.example' });
    await expect(openStore({ dir })).rejects.toThrow(/another host \(elsewhere.example\)/);
    await fs.writeFile(path.join(dir, 'LOCK'), 'garbage');
    await expect(openStore({ dir })).rejects.toThrow(/cannot be read/);
    // nothing of ours is left behind
    expect((await fs.readdir(dir)).filter((n) => n.startsWith('LOCK'))).toEqual(['LOCK']);
  });
});
