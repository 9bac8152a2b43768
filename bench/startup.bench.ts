/**
 * `npm start` on a fresh clone, as a newcomer runs it: from spawning `npm start` (prestart's
 * build included, since a fresh clone has no dist/) until the local page answers 200, beside
 * `node -e ''` (spawned and waited for) measured in the same round. A second case times a start
 * whose dist/ is already built (prestart only checks it is current). Goal: ready within 5 s of
 * `npm start` on a fresh clone, on the team's 2-core machine (issue 40).
 *
 * The "clone" is a copy of the files git tracks, as they are in the working tree, with
 * node_modules linked to this checkout's (what `npm install` would have put there). Each round
 * removes dist/ so every fresh start builds.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, nowMs, percentile, ROUNDS, removeDir, result, roundsResult, type Bench } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const READY_TIMEOUT_MS = 60_000;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function cloneInto(dir: string): void {
  const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  if (tracked.status !== 0) throw new Error(`git ls-files failed: ${tracked.stderr}`);
  for (const file of tracked.stdout.split('\0').filter(Boolean)) {
    const to = path.join(dir, file);
    mkdirSync(path.dirname(to), { recursive: true });
    try {
      cpSync(path.join(root, file), to);
    } catch {
      // A tracked file deleted in the working tree is not part of the clone either.
    }
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r()),
  );
}

/** `node -e ''`: the cost of starting Node itself on this machine right now. */
async function bareNode(): Promise<number> {
  const t = nowMs();
  await exited(spawn(process.execPath, ['-e', ''], { stdio: 'ignore' }));
  return nowMs() - t;
}

/** Spawns `npm start` in `dir`; resolves with the time until the page answers 200, then stops it. */
async function npmStartReady(dir: string): Promise<number> {
  const dataDir = await makeTempDir('bench-startup-data');
  const t = nowMs();
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      PORT: '0',
      SANDBOX_PORT: '0',
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
      if (nowMs() - t > READY_TIMEOUT_MS) throw new Error(`npm start not ready in ${READY_TIMEOUT_MS} ms:\n${out}`);
      const url = /is running at (http:\/\/\S+)/.exec(out)?.[1];
      if (url) {
        const res = await fetch(url).catch(() => undefined);
        if (res?.ok) {
          await res.arrayBuffer();
          return nowMs() - t;
        }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGINT');
    await exited(child);
    await removeDir(dataDir);
  }
}

const bench: Bench = {
  name: 'startup',
  description: "`npm start` on a fresh clone until the page answers, beside `node -e ''`",
  async run() {
    const clone = await makeTempDir('bench-startup-clone');
    try {
      cloneInto(clone);
      const fresh: Array<{ value: number; baseline: number }> = [];
      const built: Array<{ value: number; baseline: number }> = [];
      for (let i = 0; i < ROUNDS; i++) {
        rmSync(path.join(clone, 'dist'), { recursive: true, force: true });
        fresh.push({ baseline: await bareNode(), value: await npmStartReady(clone) });
        built.push({ baseline: await bareNode(), value: await npmStartReady(clone) });
      }
      const rows = [
        { name: 'fresh clone (builds dist/)', rounds: fresh },
        { name: 'dist/ already built', rounds: built },
      ];
      return rows.flatMap(({ name, rounds }) => [
        roundsResult({
          bench: 'startup',
          case: name,
          metric: "npm start to first page, median (baseline node -e '')",
          unit: 'ms',
          better: 'lower',
          rounds,
        }),
        result({
          bench: 'startup',
          case: name,
          metric: "npm start to first page, p99 (baseline node -e '' p99)",
          unit: 'ms',
          better: 'lower',
          value: percentile(
            rounds.map((r) => r.value),
            99,
          ),
          baseline: percentile(
            rounds.map((r) => r.baseline),
            99,
          ),
        }),
      ]);
    } finally {
      await removeDir(clone);
    }
  },
};
export default bench;
