/**
 * `scripts/build.mjs --if-stale` (npm's prestart) on a scratch copy of the build's inputs: it
 * skips only when every input (path, size, mtime) is as at the last build; a deleted source, a
 * copy that keeps an old timestamp, or a file saved after the build's snapshot rebuild, and the
 * output of a deleted source does not stay in dist/.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../..');
let root: string;
const build = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['scripts/build.mjs', ...args], { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return /built dist/.test(r.stdout);
};
const OLD = new Date('2001-01-01T00:00:00Z');

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'build-stale-'));
  for (const f of ['scripts/build.mjs', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    cpSync(path.join(repo, f), path.join(root, f));
  }
  symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'));
  for (const d of ['src/local/static', 'src/passkeys/web/static', 'commands'])
    mkdirSync(path.join(root, d), { recursive: true });
  writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(root, 'src/b.ts'), 'export const b = 2;\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('build --if-stale', () => {
  it('skips when nothing changed, rebuilds for a deleted source (and drops its output) or an old-dated copy', () => {
    expect(build()).toBe(true);
    expect(existsSync(path.join(root, 'dist/src/b.js'))).toBe(true);
    expect(build('--if-stale')).toBe(false);

    // A deleted source: no input is newer, but the list changed.
    rmSync(path.join(root, 'src/b.ts'));
    expect(build('--if-stale')).toBe(true);
    expect(existsSync(path.join(root, 'dist/src/b.js'))).toBe(false);
    expect(existsSync(path.join(root, 'dist/src/a.js'))).toBe(true);
    expect(build('--if-stale')).toBe(false);

    // A copy that keeps an old timestamp (cp -p, an archive, a checkout): older than the stamp, still new.
    writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 10;\n');
    utimesSync(path.join(root, 'src/a.ts'), OLD, OLD);
    expect(build('--if-stale')).toBe(true);
    expect(build('--if-stale')).toBe(false);
  });

  it("the stamp is the inputs' hash, not a time: a stamp dated after a new file does not hide it", () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(root, 'dist/.build-stamp'), later, later);
    expect(build('--if-stale')).toBe(false);
    writeFileSync(path.join(root, 'src/c.ts'), 'export const c = 3;\n');
    utimesSync(path.join(root, 'src/c.ts'), OLD, OLD);
    expect(build('--if-stale')).toBe(true);
  });
});
