/**
 * One writer per data directory (money-safety invariant 9).
 *
 * A `LOCK` file names its holder `{pid, hostname, startedAt}`. A holder that is alive on
 * this host keeps the directory; a dead one (SIGKILL, power cut, or a zombie: exited, not yet
 * reaped) is taken over at once, so a restart right after a crash never waits. That is why
 * this is not proper-lockfile: its mtime staleness makes a restart after SIGKILL wait or fail.
 *
 * A holder on another host (a shared volume) cannot be asked whether it lives, so the holder
 * touches LOCK's mtime every REFRESH_MS; one from another host not touched for STALE_MS is
 * gone and is taken over (logged), a fresher one is refused.
 *
 * The lock is created by writing a complete temp file and hard-linking it to `LOCK`: link
 * is as exclusive as O_EXCL but the name appears with its content, so nobody ever reads a
 * half-written lock and mistakes a starting process for a crashed one.
 */
import fs from 'node:fs/promises';
import { readFileSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { errorCode, fsyncDir, writeFileSynced } from './durable-fs.js';

const LOCK_FILE = 'LOCK';
/** How often the holder touches LOCK, and how long untouched makes another host's lock stale (many refreshes missed). */
export const REFRESH_MS = 5_000;
export const STALE_MS = 60_000;

export interface LockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
}

export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
  constructor(
    message: string,
    readonly dir: string,
    readonly holder?: LockInfo,
  ) {
    super(message);
  }
}

export interface DirLock {
  readonly dir: string;
  readonly file: string;
  readonly info: LockInfo;
  /** Removes LOCK if it is still ours. Idempotent. */
  release(): Promise<void>;
}

// A second open in the same process would pass the pid check below; refuse it here.
const heldInThisProcess = new Set<string>();

export async function acquireLock(dir: string, logger?: Logger): Promise<DirLock> {
  const file = path.join(dir, LOCK_FILE);
  if (heldInThisProcess.has(dir)) {
    throw new StoreLockedError(
      `data directory ${dir} is already open in this process (pid ${process.pid}); open the store once and pass it around`,
      dir,
    );
  }
  heldInThisProcess.add(dir);
  const info: LockInfo = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() };
  const tmp = path.join(dir, `${LOCK_FILE}.${process.pid}.${randomUUID()}.tmp`);
  try {
    await writeFileSynced(tmp, `${JSON.stringify(info)}\n`);
    // A few rounds: each one either wins the link, refuses, or clears one stale lock.
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await fs.link(tmp, file);
        await fsyncDir(dir);
        return makeLock(dir, file, info);
      } catch (err) {
        if (errorCode(err) !== 'EEXIST') throw err;
      }
      const holder = await readHolder(file);
      if (holder === 'missing') continue;
      if (holder === 'unreadable') {
        throw new StoreLockedError(
          `data directory ${dir} has a lock file ${file} that cannot be read. If no other process uses this directory, delete ${file} and start again.`,
          dir,
        );
      }
      const state = await holderState(holder, file);
      if (state === 'alive') throw lockedBy(dir, file, holder);
      if (state === 'other-host') {
        throw new StoreLockedError(
          `data directory ${dir} is locked by process ${holder.pid} on another host (${holder.hostname}) since ${holder.startedAt}; ` +
            `its liveness cannot be checked from here. Stop it, or if it is gone, delete ${file}.`,
          dir,
          holder,
        );
      }
      if (!(await takeOver(file, holder))) continue;
      logger?.warn(
        { dir, stalePid: holder.pid, staleHost: holder.hostname, staleSince: holder.startedAt, reason: state },
        'took over the data directory lock of a process that is gone',
      );
    }
    throw new StoreLockedError(
      `could not lock data directory ${dir}: the lock kept changing hands (another process starting at the same moment?). Try again.`,
      dir,
    );
  } catch (err) {
    heldInThisProcess.delete(dir);
    throw err;
  } finally {
    await fs.rm(tmp, { force: true }).catch(() => {});
  }
}

function lockedBy(dir: string, file: string, holder: LockInfo): StoreLockedError {
  return new StoreLockedError(
    `data directory ${dir} is in use by process ${holder.pid} on ${holder.hostname} since ${holder.startedAt}. ` +
      `Only one process may write a data directory: stop that process, or give this one another directory (DATA_DIR). ` +
      `If you are sure that process is not this app, delete ${file}.`,
    dir,
    holder,
  );
}

type HolderState = 'alive' | 'dead' | 'zombie' | 'self' | 'other-host' | 'stale-other-host';

async function holderState(h: LockInfo, file: string): Promise<HolderState> {
  if (h.hostname !== os.hostname()) return (await untouchedFor(file)) > STALE_MS ? 'stale-other-host' : 'other-host';
  // Our own pid in the file means a previous incarnation (a container restarts as pid 1 again);
  // a live double open in this process was refused above.
  if (h.pid === process.pid) return 'self';
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else. Only ESRCH proves it is gone.
    return errorCode(err) === 'ESRCH' ? 'dead' : 'alive';
  }
  // A zombie answers signal 0 but will never write again (its parent has not reaped it yet).
  return isZombie(h.pid) ? 'zombie' : 'alive';
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ...": comm may hold spaces and parentheses, so read after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false; // no /proc (not Linux) or gone this instant: signal 0 decides next round
  }
}

/** Milliseconds since LOCK was last touched (0 if it cannot be read: the next round decides). */
async function untouchedFor(file: string): Promise<number> {
  try {
    return Date.now() - (await fs.stat(file)).mtimeMs;
  } catch {
    return 0;
  }
}

function parseInfo(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo> | null;
    // pid <= 0 would make process.kill address a process group.
    if (
      v &&
      Number.isSafeInteger(v.pid) &&
      (v.pid as number) > 0 &&
      typeof v.hostname === 'string' &&
      typeof v.startedAt === 'string'
    ) {
      return { pid: v.pid as number, hostname: v.hostname, startedAt: v.startedAt };
    }
  } catch {
    // fall through
  }
  return undefined;
}

async function readHolder(file: string): Promise<LockInfo | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return 'missing';
    throw err;
  }
  return parseInfo(text) ?? 'unreadable';
}

const sameInfo = (a: LockInfo | undefined, b: LockInfo | undefined) =>
  !!a && !!b && a.pid === b.pid && a.hostname === b.hostname && a.startedAt === b.startedAt;

/**
 * Move the stale lock aside rather than unlinking it: if another process took it over between
 * our read and now, what we moved is its fresh lock, and we can tell and put it back. The same
 * for another host's lock touched again in that moment (its holder lives after all). Returns
 * whether the stale lock is gone.
 */
async function takeOver(file: string, stale: LockInfo): Promise<boolean> {
  const aside = `${file}.stale.${process.pid}.${randomUUID()}`;
  try {
    await fs.rename(file, aside);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return true;
    throw err;
  }
  const moved = await readHolder(aside);
  const same = sameInfo(typeof moved === 'object' ? moved : undefined, stale);
  const touched = stale.hostname !== os.hostname() && (await untouchedFor(aside)) <= STALE_MS;
  if (!same || touched) await fs.link(aside, file).catch(() => {});
  await fs.rm(aside, { force: true });
  return same && !touched;
}

function makeLock(dir: string, file: string, info: LockInfo): DirLock {
  let released = false;
  const ours = (text: string) => sameInfo(parseInfo(text), info);
  const onExit = () => {
    try {
      if (!released && ours(readFileSync(file, 'utf8'))) unlinkSync(file);
    } catch {
      // exiting anyway; a leftover LOCK of a dead pid is taken over on the next start
    }
  };
  process.on('exit', onExit);
  // The heartbeat another host reads (STALE_MS); never keeps the process alive on its own.
  const refresh = setInterval(() => {
    const t = new Date();
    fs.readFile(file, 'utf8')
      .then((text) => (ours(text) ? fs.utimes(file, t, t) : undefined))
      .catch(() => {}); // a missed touch is harmless: a dozen must be missed in a row
  }, REFRESH_MS);
  refresh.unref();
  return {
    dir,
    file,
    info,
    async release() {
      if (released) return;
      released = true;
      clearInterval(refresh);
      process.off('exit', onExit);
      try {
        if (ours(await fs.readFile(file, 'utf8'))) {
          await fs.unlink(file);
          await fsyncDir(dir);
        }
      } catch (err) {
        if (errorCode(err) !== 'ENOENT') throw err;
      } finally {
        heldInThisProcess.delete(dir);
      }
    },
  };
}
