/**
 * The test files `npm run test:quick` runs (vitest.quick.config.ts): the domain and unit tests,
 * found by what they do rather than listed by hand, so a new test file is sorted without anyone
 * remembering to. A file is left out when it, or a helper of test/ that it calls, boots the whole
 * app, opens PostgreSQL, starts a browser or a child process, or walks the import graph (madge).
 * In-process fakes (the wallet sandbox, the fake Slack, a store in a temp directory) stay in:
 * they start in milliseconds. The property tests (test/fuzz/, *.property.test.ts) are left to
 * `npm test`: each draws hundreds of cases, a third of the quick run's time for a few files.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** What makes a test slow: calls that boot, spawn or scan, and the browser. */
const HEAVY =
  /\b(startTestApp|startApp|createTestDatabase|ownCluster|spawnReplica|spawn|spawnSync|execFile|execFileSync|fork)\s*\(|playwright-core|\bmadge\b/;

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : walk(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/**
 * The exported helpers of test/ that do something heavy, directly or through another such helper:
 * each module is cut at its `export`s, and a piece that does (or calls one that does) names one.
 */
function heavyHelpers(helpers: string[]): RegExp | undefined {
  const pieces = helpers.flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split(/\nexport /)
      .slice(1)
      .flatMap((piece) => {
        const name = /^(?:async\s+)?(?:function\s+|const\s+)(\w+)/.exec(piece)?.[1];
        return name ? [{ name, piece }] : [];
      }),
  );
  const heavy = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    const calls = heavy.size ? new RegExp(`\\b(${[...heavy].join('|')})\\s*\\(`) : undefined;
    for (const { name, piece } of pieces) {
      if (heavy.has(name)) continue;
      if (HEAVY.test(piece) || calls?.test(piece)) {
        heavy.add(name);
        grew = true;
      }
    }
  }
  return heavy.size ? new RegExp(`\\b(${[...heavy].join('|')})\\s*\\(`) : undefined;
}

/** The quick test files, relative to the repository (globs for vitest's `include`). */
export function quickTestFiles(): string[] {
  const all = walk(path.join(root, 'test'));
  const tests = all.filter((f) => f.endsWith('.test.ts'));
  const calls = heavyHelpers(all.filter((f) => !f.endsWith('.test.ts')));
  return tests
    .filter((f) => !f.includes(`${path.sep}fuzz${path.sep}`) && !f.endsWith('.property.test.ts'))
    .filter((f) => {
      const text = fs.readFileSync(f, 'utf8');
      return !HEAVY.test(text) && !calls?.test(text);
    })
    .map((f) => path.relative(root, f))
    .sort();
}
