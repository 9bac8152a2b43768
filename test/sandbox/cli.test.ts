import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../helpers/built.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = 'src/sandbox/cli.ts';

function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs(CLI), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let server: ChildProcess;
let url: string;
let output = '';

beforeAll(async () => {
  server = spawn(process.execPath, nodeArgs(CLI), {
    cwd: ROOT,
    env: { ...process.env, SANDBOX_PORT: '0', LOG_LEVEL: 'warn' },
  });
  url = await new Promise<string>((resolve, reject) => {
    server.stdout!.on('data', (d) => {
      output += d;
      const m = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`sandbox exited early (${code}): ${output}`)));
  });
});

afterAll(async () => {
  if (server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
});

describe('npm run sandbox', () => {
  it('prints the base URL, the merchant credentials and how to simulate a deposit', () => {
    expect(output).toContain(`WALLET_API_BASE_URL=${url}`);
    expect(output).toContain('WALLET_MERCHANT_EMAIL=treasury@sandbox.test');
    expect(output).toContain('WALLET_API_KEY=sk_sandbox_0123456789abcdef');
    expect(output).toContain('WALLET_PUBLIC_KEY=pk_sandbox_0123456789abcdef');
    expect(output).toMatch(/deposit ada\.okafor@acme-payments\.test/);
  });

  it('serves the wallet API', async () => {
    const res = await fetch(`${url}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'treasury@sandbox.test', password: 'sandbox-password' }),
    });
    expect(res.status).toBe(200);
  });

  it('deposit <email> <amount> <currency> <network> simulates a deposit on the running sandbox', async () => {
    const r = await run(['deposit', 'ada.okafor@acme-payments.test', '250.5', 'USDT', 'BSC'], { SANDBOX_URL: url });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Deposit recorded: 250\.5 USDT on BSC to 0x[0-9a-f]{40}/);
  });

  it('a refused deposit exits 1 with the reason', async () => {
    const r = await run(['deposit', 'nobody@nowhere.test', '1', 'USDT', 'BSC'], { SANDBOX_URL: url });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 404.*nobody@nowhere\.test/);
  });

  it('an unreachable sandbox exits 1 with a clear message', async () => {
    const probe = createServer();
    await new Promise<void>((res) => probe.listen(0, '127.0.0.1', res));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((res) => probe.close(() => res()));
    const r = await run(['deposit', 'a@b.test', '1', 'USDT', 'BSC'], { SANDBOX_URL: `http://127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Could not reach the sandbox/);
  });

  it.each([[['deposit', 'a@b.test', '1', 'USDT']], [['deposit', 'a@b.test', 'lots', 'USDT', 'BSC']], [['frobnicate']]])(
    'invalid arguments %j -> usage, exit 2',
    async (args) => {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('Usage:');
    },
  );
});
