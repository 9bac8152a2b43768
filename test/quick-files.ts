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

/**
 * What makes a test slowest: another process, a PostgreSQL cluster or a browser (failovers,
 * crashes, the page). These files start first in `npm test` (vitest.config.ts), so that none of
 * them is left to run alone at the end.
 */
const SLOWEST =
  /\b(createTestDatabase|ownCluster|spawnReplica|spawn|spawnSync|execFile|execFileSync|fork)\s*\(|playwright-core/;

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
function heavyHelpers(helpers: string[], heavyCall: RegExp): RegExp | undefined {
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
      if (heavyCall.test(piece) || calls?.test(piece)) {
        heavy.add(name);
        grew = true;
      }
    }
  }
  return heavy.size ? new RegExp(`\\b(${[...heavy].join('|')})\\s*\\(`) : undefined;
}

/** Each test file (relative to the repository) with what it does: see HEAVY and SLOWEST. */
function sortedTests(): { file: string; heavy: boolean; slowest: boolean; random: boolean }[] {
  const all = walk(path.join(root, 'test'));
  const helpers = all.filter((f) => !f.endsWith('.test.ts'));
  const heavyCalls = heavyHelpers(helpers, HEAVY);
  const slowestCalls = heavyHelpers(helpers, SLOWEST);
  return all
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => {
      const text = fs.readFileSync(f, 'utf8');
      return {
        file: path.relative(root, f),
        heavy: HEAVY.test(text) || !!heavyCalls?.test(text),
        slowest: SLOWEST.test(text) || !!slowestCalls?.test(text),
        random: f.includes(`${path.sep}fuzz${path.sep}`) || f.endsWith('.property.test.ts'),
      };
    })
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** The quick test files, relative to the repository (globs for vitest's `include`). */
export function quickTestFiles(): string[] {
  return sortedTests()
    .filter((t) => !t.heavy && !t.random)
    .map((t) => t.file);
}

/**
 * When each test file should start in a full run, by file (relative to the repository): 0 for
 * those that start processes, PostgreSQL or a browser, 1 for the other app-booting and
 * property tests, 2 for the quick ones.
 */
export function testTiers(): Map<string, number> {
  return new Map(sortedTests().map((t) => [t.file, t.slowest ? 0 : t.heavy || t.random ? 1 : 2]));
}
