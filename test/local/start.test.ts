/**
 * `npm start` with no configuration: the page's address is the first line printed, the page
 * answers there, and with stdout not a terminal the log lines are JSON (pino-pretty only on a TTY).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../helpers/built.js';

const ROOT = join(import.meta.dirname, '..', '..');
let child: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'treasury-start-'));

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('npm start in local mode', () => {
  it('prints the local workspace address first and serves the page there; logs are JSON when piped', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      SANDBOX_PORT: '0',
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
    };
    for (const k of [
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SLACK_APP_TOKEN',
      'WALLET_API_BASE_URL',
      'POLICY_FILE',
    ])
      delete env[k];
    child = spawn(process.execPath, nodeArgs('src/main.ts'), {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const deadline = Date.now() + 20_000;
    while (!out.includes('Open the local workspace') && Date.now() < deadline && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 50));
    const lines = out.split('\n').filter(Boolean);
    expect(lines[0]).toBe(`Local workspace: http://localhost:${port}/ (starting…)`);
    expect(out).toContain(`Open the local workspace: http://localhost:${port}/`);
    const logLines = lines.filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    for (const l of logLines) expect(() => JSON.parse(l)).not.toThrow();
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('local workspace');
  });
});
