/**
 * The code the tests run in child processes (replicas, crash children, the CLIs), transpiled once
 * per run instead of by tsx in every child: a child started with tsx spent about a second of CPU
 * compiling before it ran, and the PostgreSQL failover and chaos tests alone start dozens.
 *
 * The global setup (test/build-global-setup.ts) builds src/, commands/ and test/ with esbuild, file
 * by file as tsx does (no bundling), into a directory under node_modules/.cache (so bare imports
 * find node_modules), with what the code reads beside itself (the page's static files, the worker
 * threads' .mjs, the sanctions snapshot: every file not transpiled, package.json). `nodeArgs` gives a child's argv for a source file: its build when
 * there is one, else the source under tsx (a run without the global setup).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { build } from 'esbuild';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run's build of the repository's TypeScript is (test/helpers/built.ts). */
    builtRoot: string;
  }
}

const root = path.resolve(import.meta.dirname, '../..');

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

/** Transpiles the repository's TypeScript into a fresh directory; its path (remove it with `removeBuild`). */
export async function buildForChildren(): Promise<string> {
  const cache = path.join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(path.join(cache, 'test-build-'));
  const dirs = ['src', 'commands', 'test'];
  const all = dirs.flatMap((d) => [...files(path.join(root, d))]);
  const transpiled = (f: string) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.includes('/static/');
  await build({
    entryPoints: all.filter(transpiled),
    outdir: out,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'error',
  });
  // What the code finds beside itself at run time (new URL(..., import.meta.url)): every file that
  // is not transpiled (the page's static files, the workers' .mjs, the sanctions list snapshot, …).
  for (const f of all.filter((f) => !transpiled(f))) cpSync(f, path.join(out, path.relative(root, f)));
  cpSync(path.join(root, 'package.json'), path.join(out, 'package.json'));
  return out;
}

export function removeBuild(out: string): void {
  rmSync(out, { recursive: true, force: true });
}

/** A child's node arguments to run `file` (a .ts path, absolute or relative to the repository). */
export function nodeArgs(file: string): string[] {
  const rel = path.relative(root, path.resolve(root, file));
  let built: string | undefined;
  try {
    built = inject('builtRoot');
  } catch {
    built = undefined;
  }
  const js = built && path.join(built, rel.replace(/\.ts$/, '.js'));
  if (js && existsSync(js) && statSync(js).isFile()) return [js];
  return ['--import', 'tsx', path.join(root, rel)];
}
