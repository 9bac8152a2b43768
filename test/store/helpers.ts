import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeArgs } from '../helpers/built.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixture = (name: string) => path.join(repoRoot, 'test/store/fixtures', name);

const made: string[] = [];

export async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'store-test-'));
  made.push(d);
  return d;
}

export async function removeTempDirs(): Promise<void> {
  for (const d of made.splice(0)) await fs.rm(d, { recursive: true, force: true });
}

/** A TypeScript fixture in a child node process, run the way production runs (tsx loader). */
export function spawnFixture(name: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [...nodeArgs(fixture(name)), ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Resolves once the child exited and both pipes are drained. */
export function collect(child: ChildProcess): Promise<ChildResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export async function runFixture(name: string, args: string[]): Promise<ChildResult> {
  return collect(spawnFixture(name, args));
}
