// `npm run build`: TypeScript to JavaScript in dist/ (dist/src/main.js is what production runs),
// plus the files a transpiler does not emit but the code finds beside itself at run time through
// new URL(..., import.meta.url): the local page's static folder and the worker threads' *.mjs.
// `--if-stale` (npm's prestart) skips the build when dist/ is newer than every source, so a
// plain `npm start` on a fresh clone builds once and then starts at once.
//
// Each file is transpiled on its own by esbuild (no bundling, no type check): a fresh clone's
// first `npm start` used to spend 15 s of a 17 s start in tsc on a loaded 2-core machine. The
// type check stays in `npm run typecheck` and CI; isolatedModules (tsconfig.json) keeps every
// file transpilable alone, and the relative `.js` imports stay as written, so dist/ mirrors the
// sources file for file as tsc's output did.
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');
const stamp = path.join(out, '.build-stamp');
// Everything the output depends on: a newer file in here means dist/ is stale.
const inputs = ['src', 'commands', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];

function* files(p) {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st) return;
  if (!st.isDirectory()) {
    yield [p, st];
    return;
  }
  for (const name of readdirSync(p)) yield* files(path.join(p, name));
}

function newestInput() {
  let newest = 0;
  for (const i of inputs) for (const [, st] of files(path.join(root, i))) newest = Math.max(newest, st.mtimeMs);
  return newest;
}

if (process.argv.includes('--if-stale') && existsSync(stamp) && statSync(stamp).mtimeMs >= newestInput()) {
  process.exit(0);
}

const started = Date.now();
rmSync(out, { recursive: true, force: true });
const sources = [];
for (const dir of ['src', 'commands']) {
  for (const [file] of files(path.join(root, dir))) {
    // The page's client code is served as it is (copied below), never transpiled for Node.
    if (file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.startsWith(path.join(root, 'src/local/static'))) {
      sources.push(file);
    }
  }
}
try {
  await build({
    entryPoints: sources,
    outdir: out,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // The sources' tsconfig: class fields as tsc emitted them (useDefineForClassFields, from its ES2022 target).
    tsconfig: path.join(root, 'tsconfig.build.json'),
    logLevel: 'warning',
  });
} catch {
  // esbuild has printed what failed.
  process.exit(1);
}

// Copied whole (not file by file): the local page may be split into more modules at any time.
cpSync(path.join(root, 'src/local/static'), path.join(out, 'src/local/static'), { recursive: true });
// The passkey pages' scripts and style sheet, read at start by src/passkeys/web/routes.ts.
cpSync(path.join(root, 'src/passkeys/web/static'), path.join(out, 'src/passkeys/web/static'), { recursive: true });
for (const dir of ['src', 'commands']) {
  for (const [file] of files(path.join(root, dir))) {
    if (!file.endsWith('.mjs')) continue;
    const to = path.join(out, path.relative(root, file));
    mkdirSync(path.dirname(to), { recursive: true });
    cpSync(file, to);
  }
}
// The app reads its version from ../package.json beside src/ (src/app.ts): give dist/ its own.
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
writeFileSync(
  path.join(out, 'package.json'),
  `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module' }, null, 2)}\n`,
);
writeFileSync(stamp, `${new Date().toISOString()}\n`);
process.stdout.write(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
