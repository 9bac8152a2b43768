/**
 * The bench runner (bench/runner.ts) with real Bench objects and a real results file: a bench
 * that fails no longer loses the figures of those that finished, is named with its error, keeps
 * its earlier rows, and makes the exit code 1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bench, BenchResult } from '../../bench/lib.js';
import { main, type RegistryEntry, type ResultsFile } from '../../bench/runner.js';

const row = (bench: string, value: number): BenchResult => ({ bench, case: 'c', metric: 'm', value, unit: 'ms' });

const entry = (name: string, run: Bench['run']): RegistryEntry => ({
  name,
  load: async () => ({ default: { name, description: `the ${name} bench`, run } }),
});
const fine = (name: string, value: number) => entry(name, async () => [row(name, value)]);
/** A bench module that is not there: its load fails as a bad import would. */
const missing = (name: string): RegistryEntry => {
  const file = './no-such-bench.js';
  return { name, load: () => import(file) };
};
const failing = (name: string) =>
  entry(name, async () => {
    throw new Error(`only 1 requests were valued in ${name}`);
  });

let dir: string;
let out: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-runner-'));
  out = path.join(dir, 'results.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function run(entries: RegistryEntry[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(entries, out, { stdout: (s) => stdout.push(s), stderr: (s) => stderr.push(s) });
  const file = JSON.parse(fs.readFileSync(out, 'utf8')) as ResultsFile;
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n'), file };
}

const earlier: ResultsFile = {
  startedAt: '2026-01-01T00:00:00.000Z',
  node: 'v20',
  platform: 'linux',
  cpus: 2,
  benches: ['valuation', 'store'],
  ranAt: { valuation: '2026-01-01T00:00:00.000Z', store: '2026-01-02T00:00:00.000Z' },
  results: [row('valuation', 7), row('store', 3)],
};

describe('npm run bench', () => {
  it('runs every bench after a failing one, prints and keeps their figures, names the failure and exits 1', async () => {
    fs.writeFileSync(out, JSON.stringify(earlier));
    const r = await run([failing('valuation'), fine('digest', 42), missing('broken')]);

    expect(r.code).toBe(1);
    // The table holds the finished bench, and only it.
    expect(r.stdout).toMatch(/^digest\s+c\s+m\s+42\s+ms$/m);
    expect(r.stdout).not.toMatch(/^valuation/m);
    expect(r.stderr).toContain('2 benches FAILED');
    expect(r.stderr).toContain('- valuation: Error: only 1 requests were valued in valuation');
    expect(r.stderr).toContain('its 1 row in results.json are kept from 2026-01-01T00:00:00.000Z, not refreshed');
    expect(r.stderr).toMatch(/- broken: .*no-such-bench/);
    expect(r.stderr).toContain('no earlier figures in results.json');

    // The failed bench's earlier rows stay, with the time they were measured; the new ones are added.
    expect(r.file.results).toEqual([row('valuation', 7), row('store', 3), row('digest', 42)]);
    expect(r.file.ranAt).toEqual({
      valuation: '2026-01-01T00:00:00.000Z',
      store: '2026-01-02T00:00:00.000Z',
      digest: r.file.startedAt,
    });
    expect(r.file.failed?.valuation).toEqual({
      at: r.file.startedAt,
      error: 'Error: only 1 requests were valued in valuation',
    });
    expect(Object.keys(r.file.failed ?? {}).sort()).toEqual(['broken', 'valuation']);
  });

  it('replaces a bench that finishes again and forgets its failure; exit 0 when all finish', async () => {
    fs.writeFileSync(out, JSON.stringify(earlier));
    await run([failing('valuation')]);
    const r = await run([fine('valuation', 5)]);

    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('FAILED');
    expect(r.stdout).toMatch(/^valuation\s+c\s+m\s+5\s+ms$/m);
    expect(r.file.results).toEqual([row('store', 3), row('valuation', 5)]);
    expect(r.file.ranAt.valuation).toBe(r.file.startedAt);
    expect(r.file.failed).toBeUndefined();
  });

  it('keeps the failure of a bench not run this time', async () => {
    await run([failing('valuation'), fine('store', 1)]);
    const r = await run([fine('store', 2)]);

    expect(r.code).toBe(0);
    expect(Object.keys(r.file.failed ?? {})).toEqual(['valuation']);
    expect(r.file.results).toEqual([row('store', 2)]);
  });

  it('writes the file and exits 1 when the only bench fails, with no table', async () => {
    const r = await run([failing('valuation')]);

    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.file.results).toEqual([]);
    expect(r.stderr).toContain('1 bench FAILED');
  });
});
