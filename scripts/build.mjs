// `npm run build`: TypeScript to JavaScript in dist/ (dist/src/main.js is what production runs),
// plus the files a transpiler does not emit but the code finds beside itself at run time through
// new URL(..., import.meta.url): the local page's static folder and the worker threads' *.mjs.
// `--if-stale` (npm's prestart) skips the build when the inputs are as they were at the last
// build, so a plain `npm start` on a fresh clone builds once and then starts at once. "As they
// were" is a hash of every input's path, size and mtime, taken before that build and kept in the
// stamp: mtimes alone missed a deleted source and copies that keep old timestamps, and a stamp
// written after the build hid a file saved during it. A build starts from an empty dist/, so no
// output of a deleted source is left behind.
//
// Each file is transpiled on its own by esbuild (no bundling, no type check): a fresh clone's
// first `npm start` used to spend 15 s of a 17 s start in tsc on a loaded 2-core machine. The
// type check stays in `npm run typecheck` and CI; isolatedModules (tsconfig.json) keeps every
// file transpilable alone, and the relative `.js` imports stay as written, so dist/ mirrors the
// sources file for file as tsc's output did.
import { createHash } from 'node:crypto';
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
  // Sorted: the hash below must not depend on the order the file system lists a folder in.
  for (const name of readdirSync(p).sort()) yield* files(path.join(p, name));
}

function inputsHash() {
  const h = createHash('sha256');
  for (const i of inputs) {
    for (const [p, st] of files(path.join(root, i))) h.update(`${path.relative(root, p)}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return h.digest('hex');
}

// Taken before the build: a file saved while it runs differs from it, so the next start rebuilds.
const before = inputsHash();
if (process.argv.includes('--if-stale') && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === before) {
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
// The bundled sanctions list snapshot (src/screening/load.ts reads it beside itself).
cpSync(path.join(root, 'src/screening/snapshot'), path.join(out, 'src/screening/snapshot'), { recursive: true });
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
writeFileSync(stamp, `${before}\n`);
process.stdout.write(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
