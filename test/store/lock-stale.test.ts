/**
 * The data-directory lock never blocks a restart after a crash and never lets two writers in:
 * a zombie holder on this host is dead; the holder touches LOCK every few seconds; another
 * host's lock untouched for a minute is stale and taken over (logged), a fresh one refused.
 * (A SIGKILLed app restarting at once: test/ops/production.test.ts.)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import { REFRESH_MS } from '../../src/store/lock.js';
import { removeTempDirs, tempDir } from './helpers.js';

const open: Store[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of open.splice(0)) await s.close();
  for (const c of cleanups.splice(0)) c();
  await removeTempDirs();
});

function capture() {
  let text = '';
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk, _enc, cb) {
        text += String(chunk);
        cb();
      },
    }) as never,
  });
  return { logger, text: () => text };
}

async function writeLock(dir: string, info: { pid: number; hostname: string }, ageMs: number): Promise<string> {
  const file = path.join(dir, 'LOCK');
  await fs.writeFile(file, JSON.stringify({ ...info, startedAt: '2024-01-02T03:04:05.000Z' }));
  const t = new Date(Date.now() - ageMs);
  await fs.utimes(file, t, t);
  return file;
}

const pidInLock = async (dir: string) =>
  (JSON.parse(await fs.readFile(path.join(dir, 'LOCK'), 'utf8')) as { pid: number }).pid;

describe('another host', () => {
  it('takes over a lock from another host not touched for 10 minutes, and says so', async () => {
    const dir = await tempDir();
    await writeLock(dir, { pid: 4242, hostname: 'elsewhere.example' }, 10 * 60_000);
    const log = capture();
    const s = await openStore({ dir, logger: log.logger });
    open.push(s);
    expect(await pidInLock(dir)).toBe(process.pid);
    log.logger.flush();
    await new Promise((r) => setTimeout(r, 50));
    expect(log.text()).toMatch(/took over the data directory lock/);
    expect(log.text()).toMatch(/"staleHost":"elsewhere.example"/);
    expect(log.text()).toMatch(/"reason":"stale-other-host"/);
  });

  it('refuses a lock from another host touched a second ago, with the usual message', async () => {
    const dir = await tempDir();
    await writeLock(dir, { pid: 4242, hostname: 'elsewhere.example' }, 1_000);
    await expect(openStore({ dir })).rejects.toThrow(
      /locked by process 4242 on another host \(elsewhere.example\).*its liveness cannot be checked/,
    );
    // Untouched: still theirs.
    expect(await pidInLock(dir)).toBe(4242);
  });
});

describe('the holder', () => {
  it('touches LOCK every few seconds while it holds the directory', async () => {
    const dir = await tempDir();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const s = await openStore({ dir });
    open.push(s);
    const file = path.join(dir, 'LOCK');
    const old = new Date(Date.now() - 10 * 60_000);
    await fs.utimes(file, old, old);
    vi.advanceTimersByTime(REFRESH_MS);
    vi.useRealTimers();
    for (let i = 0; i < 50 && Date.now() - (await fs.stat(file)).mtimeMs > 60_000; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(Date.now() - (await fs.stat(file)).mtimeMs).toBeLessThan(5_000);
  });
});

describe('this host', () => {
  it('takes over the lock of a zombie (exited, not yet reaped by its parent)', async () => {
    // sh starts a short sleep in the background, then becomes a long sleep that never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    cleanups.push(() => parent.kill('SIGKILL'));
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
    );
    const state = () => {
      const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    };
    for (let i = 0; i < 100 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(state()).toBe('Z');
    const dir = await tempDir();
    await writeLock(dir, { pid: zombie, hostname: os.hostname() }, 0);
    const s = await openStore({ dir });
    open.push(s);
    expect(await pidInLock(dir)).toBe(process.pid);
  });
});
