/**
 * Issue 23: the app run as production runs it. The build (once, into dist/, as `npm run build`
 * does), the app started from dist/ answering /healthz, and `npm start` stopped by a signal sent
 * to the npm process itself, as a supervisor does: the careful stop runs, exit code 0, and no
 * process or listening port of the app is left.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');

/** The node arguments of `npm start`, flags included: these tests run what production runs. */
const mainArgs = ((): string[] => {
  const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const m = /^exec node (.+)$/.exec(scripts.start);
  if (!m) throw new Error(`npm start is not "exec node …": ${scripts.start}`);
  return m[1]!.trim().split(/\s+/);
})();

interface Started {
  child: ChildProcess;
  out: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  dataDir: string;
  metricsPort: number;
}
const running: Started[] = [];

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Only what local mode on random ports needs: nothing of the runner's Slack or wallet settings. */
async function start(command: string, args: string[], existingDir?: string): Promise<Started> {
  const dataDir = existingDir ?? mkdtempSync(path.join(tmpdir(), 'ops-prod-'));
  const metricsPort = await freePort();
  const child = spawn(command, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      PORT: '0',
      SANDBOX_PORT: '0',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const s = { child, out: () => out, exited, dataDir, metricsPort };
  running.push(s);
  return s;
}

async function waitFor<T>(what: string, get: () => T | undefined, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The app's own pid and the ports it listens on, read from its startup output. */
async function ready(s: Started): Promise<{ pid: number; ports: number[]; url: string }> {
  const url = await waitFor('the app to start', () => /is running at (http:\/\/\S+)/.exec(s.out())?.[1]);
  const pid = Number(/"pid":(\d+)/.exec(s.out())?.[1]);
  const sandbox = /"url":"http:\/\/127\.0\.0\.1:(\d+)","msg":"sandbox wallet service listening"/.exec(s.out())?.[1];
  const ports = [Number(new URL(url).port), Number(sandbox), s.metricsPort];
  return { pid, ports, url };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' });
    c.once('connect', () => {
      c.destroy();
      resolve(false);
    });
    c.once('error', () => resolve(true));
  });

/** Processes whose parent is `pid` (none may outlive the app). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

beforeAll(() => {
  // One build for the file: the same command as `npm run build` (and `npm start`'s prestart).
  const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
  expect(r.stderr + r.stdout).toMatch(/built dist/);
  expect(r.status).toBe(0);
}, 180_000);

afterEach(async () => {
  for (const s of running.splice(0)) {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    const pid = Number(/"pid":(\d+)/.exec(s.out())?.[1]);
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(s.dataDir, { recursive: true, force: true });
  }
});

describe('the compiled build', () => {
  it('emits JavaScript with source maps, the static page, the workers and its own package.json', () => {
    expect(existsSync(path.join(dist, 'src/main.js'))).toBe(true);
    // With --enable-source-maps, stack traces name the .ts lines these maps point back to.
    const map = JSON.parse(readFileSync(path.join(dist, 'src/main.js.map'), 'utf8')) as { sources: string[] };
    expect(map.sources).toEqual(['../../src/main.ts']);
    for (const f of readdirSync(path.join(root, 'src/local/static'))) {
      expect(existsSync(path.join(dist, 'src/local/static', f))).toBe(true);
    }
    expect(existsSync(path.join(dist, 'src/digest/chart-worker.mjs'))).toBe(true);
    expect(existsSync(path.join(dist, 'commands/address/qr-worker.mjs'))).toBe(true);
    const pkg = JSON.parse(readFileSync(path.join(dist, 'package.json'), 'utf8')) as { type: string };
    expect(pkg.type).toBe('module');
  });

  it('runs from dist/: /healthz answers, the page is served, SIGINT stops it with exit code 0', async () => {
    const s = await start(process.execPath, mainArgs);
    const { url } = await ready(s);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    // With its role, as a standby's says `standby` (docs/guides/replicas.md).
    expect(await health.json()).toMatchObject({ ok: true, role: 'leader' });
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    s.child.kill('SIGINT');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.out()).toMatch(/"msg":"stopped"/);
  }, 90_000);
});

describe('signals through npm start', () => {
  it('SIGTERM to the npm process stops the app carefully: exit 0, no process, no listening port', async () => {
    const s = await start('npm', ['start']);
    const { pid, ports } = await ready(s);
    expect(alive(pid)).toBe(true);
    // npm execs nothing in between: the app is npm's direct child (no shell or tsx layer).
    expect(childrenOf(s.child.pid!)).toEqual([pid]);
    for (const p of ports) expect(await refused(p)).toBe(false);
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    const { code } = await s.exited;
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(code).toBe(0);
    expect(s.out()).toMatch(/"signal":"SIGTERM","msg":"stopping"/);
    expect(s.out()).toMatch(/"msg":"stopped"/);
    await waitFor('the app process to be gone', () => (alive(pid) ? undefined : true), 5_000);
    expect(childrenOf(pid)).toEqual([]);
    for (const p of ports) expect(await refused(p)).toBe(true);
    // The careful stop released the data directory.
    expect(existsSync(path.join(s.dataDir, 'LOCK'))).toBe(false);
  }, 90_000);

  it('a second signal exits at once', async () => {
    const s = await start(process.execPath, mainArgs);
    const { pid } = await ready(s);
    process.kill(pid, 'SIGTERM');
    process.kill(pid, 'SIGTERM');
    const { code } = await s.exited;
    // The careful stop may have finished between the two: either way the process is gone.
    expect([0, 143]).toContain(code);
    expect(alive(pid)).toBe(false);
  }, 90_000);

  it('after SIGKILL, an immediate restart on the same data directory is healthy within 10 s', async () => {
    const first = await start(process.execPath, mainArgs);
    await ready(first);
    first.child.kill('SIGKILL');
    await first.exited;
    // The lock of the killed process is still there: the restart must see it is dead.
    expect(existsSync(path.join(first.dataDir, 'LOCK'))).toBe(true);
    const t0 = Date.now();
    const again = await start(process.execPath, mainArgs, first.dataDir);
    const { url } = await ready(again);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(again.out()).toMatch(/took over the data directory lock/);
  }, 90_000);
});
