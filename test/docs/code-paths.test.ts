/**
 * Every source path a doc names in backticks exists (issue 40), as every link does (links.test.ts).
 * On the docs as they were, it named `decide.ts` (now `src/withdrawals/decide/`),
 * `workspace/guard.ts` and governance's `describe.ts`, all gone, and `slots.ts` after it moved.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPath, missingCodePaths } from '../../scripts/docs/code-paths.js';

const read = (p: string) => readFileSync(p, 'utf8');

describe('source paths named in the docs', () => {
  it('every one exists', () => {
    expect(missingCodePaths('.', read)).toEqual([]);
  });

  it('finds a deleted file, a moved one, and a bare name not in the folder its paragraph names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-paths-'));
    mkdirSync(join(dir, 'src/prices'), { recursive: true });
    mkdirSync(join(dir, 'docs'), { recursive: true });
    writeFileSync(join(dir, 'src/prices/client.ts'), '');
    writeFileSync(join(dir, 'src/prices/judge.ts'), '');
    writeFileSync(
      join(dir, 'docs/a.md'),
      [
        '# A',
        '',
        'Prices (`src/prices/`): `client.ts` the call, `judge.ts` the rules, `cache.ts` the cache.',
        '',
        '- `src/prices/client.ts` and `src/gone/decide.ts`; `prices/judge.ts` ends a path.',
        '- A job `prices.refresh`, a type `text/plain`, a list `get/put`, an ending `.ts`, `./data`, `dist/src/main.js`.',
        '',
        '```',
        'src/only/in/a/code/block.ts',
        '```',
      ].join('\n'),
    );
    expect(missingCodePaths(dir, read)).toEqual([
      { file: 'docs/a.md', path: 'cache.ts' },
      { file: 'docs/a.md', path: 'src/gone/decide.ts' },
    ]);
  });

  it('a bare name several files share is flagged unless its block names the folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-paths-'));
    for (const d of ['src/withdrawals/decide', 'src/policy', 'docs']) mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(join(dir, 'src/withdrawals/decide/decide.ts'), '');
    writeFileSync(join(dir, 'src/policy/decide.ts'), '');
    writeFileSync(join(dir, 'src/policy/only.ts'), '');
    writeFileSync(
      join(dir, 'docs/a.md'),
      [
        '# A',
        '',
        'The rules are in `decide.ts`; `only.ts` is one file.',
        '',
        'Policy (`src/policy/`): `decide.ts` decides.',
      ].join('\n'),
    );
    expect(missingCodePaths(dir, read)).toEqual([
      { file: 'docs/a.md', path: 'decide.ts (ambiguous: 2 files of that name; name its folder)' },
    ]);
  });

  it('tells a path from the other things docs put in backticks', () => {
    for (const p of ['src/app.ts', 'commands/withdraw/', 'decide.ts', 'workspace/guard.ts', 'qr-worker.mjs'])
      expect(isPath(p), p).toBe(true);
    for (const p of [
      'prices.refresh',
      'text/plain',
      'get/put/all/find',
      '.js',
      '/tx export',
      'PUBLIC_URL/slack/events',
    ])
      expect(isPath(p), p).toBe(false);
  });
});
