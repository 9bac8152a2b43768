/**
 * Source paths the docs name in backticks (`src/prices/client.ts`, `commands/withdraw/`,
 * `decide.ts`) must exist, as links must (links.ts): a doc that names a file moved or deleted
 * sends its reader to nothing (issue 40: `decide.ts`, `workspace/guard.ts`, governance's
 * `describe.ts` had gone).
 *
 * A name is read as a path when it looks like one: a file name with a known extension, or a
 * folder with a slash. Docs often name a folder, then files in it ("Prices (`src/prices/`):
 * `client.ts` the call, `judge.ts` the rules"), so within one paragraph, list item or table
 * cell a bare name is looked for in the folders named before it there (a folder, or a named
 * file's folder); with none, anywhere in the repository by its name, which must then be one
 * file's (a name several files share is flagged as ambiguous). A partial path
 * (`workspace/guard.ts`) may end any path of the repository. What is not in the repository by
 * design (build output, the data directory, an operator's own `policy.yml`) is not checked.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { marked, type Token } from 'marked';
import { markdownFiles } from './links.js';

export interface MissingPath {
  file: string;
  path: string;
}

const EXTENSIONS = /\.(ts|mts|mjs|js|json|ya?ml|sql|md|sh|css|html|svg|png|d\.ts)$/;
/** A path-looking code span: segments of name characters, at least one slash or a known extension. */
const PATHLIKE = /^(\.\/)?[A-Za-z0-9_@.-]+(\/[A-Za-z0-9_@.[\]-]+)*\/?$/;
/** Where the repository's own files are; a partial path is searched under these. */
const SOURCE_DIRS = ['src', 'commands', 'test', 'scripts', 'bench', 'ops', 'docs', '.ci'];
/** Not in the repository by design: build output, data, an operator's own files, examples of names. */
const NOT_IN_REPO = [
  /^(\.\/)?(dist|data|node_modules|test-artifacts)(\/|$)/,
  /^(\.\/)?policy\.yml$/,
  // The team's shared specification, beside the repository (/work/shared), not in it.
  /^shared\//,
  /^(ARCHITECTURE|wallet-service|public-facts)\.md$/,
];

function allFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name === '.git') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        out.push(`${relative(root, path)}/`);
        walk(path);
      } else out.push(relative(root, path));
    }
  };
  for (const d of SOURCE_DIRS) if (existsSync(join(root, d))) walk(join(root, d));
  for (const name of readdirSync(root)) if (!statSync(join(root, name)).isDirectory()) out.push(name);
  return out.map((p) => p.split('\\').join('/'));
}

/** Whether a code span names a path (rather than a command, a value, a key). */
export function isPath(text: string): boolean {
  if (!PATHLIKE.test(text) || /^\.+$/.test(text)) return false;
  // A bare ending (`.ts`) is no file.
  if (/^\.[a-z]+$/.test(posix.basename(text))) return false;
  // A dotted name such as `prices.refresh` (a job) is no path: only a known ending makes a file,
  // a trailing slash a folder, and an inner slash a path only under the repository's own folders
  // (`get/put`, `text/plain` are none).
  if (EXTENSIONS.test(text) || text.endsWith('/')) return true;
  const first = text.replace(/^\.\//, '').split('/')[0]!;
  return text.includes('/') && SOURCE_DIRS.includes(first);
}

/** The code spans of each block (paragraph, list item, table cell, heading), in order. */
function spansByBlock(path: string, read: (p: string) => string): string[][] {
  const blocks: string[][] = [];
  const inline = (tokens: Token[] | undefined, into: string[]) => {
    for (const t of tokens ?? []) {
      if (t.type === 'codespan') into.push((t as { text: string }).text.replace(/&amp;/g, '&'));
      inline((t as { tokens?: Token[] }).tokens, into);
    }
  };
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'code') continue;
      if (t.type === 'list') {
        for (const item of (t as { items: Token[] }).items) {
          const spans: string[] = [];
          const nested: Token[] = [];
          for (const c of (item as { tokens?: Token[] }).tokens ?? [])
            if (c.type === 'list') nested.push(c);
            else inline([c], spans);
          blocks.push(spans);
          walk(nested);
        }
        continue;
      }
      if (t.type === 'table') {
        const table = t as { header: Array<{ tokens: Token[] }>; rows: Array<Array<{ tokens: Token[] }>> };
        for (const row of [table.header, ...table.rows])
          for (const cell of row) {
            const spans: string[] = [];
            inline(cell.tokens, spans);
            blocks.push(spans);
          }
        continue;
      }
      const spans: string[] = [];
      inline((t as { tokens?: Token[] }).tokens, spans);
      if (spans.length) blocks.push(spans);
    }
  };
  walk(marked.lexer(read(path)));
  return blocks;
}

export function missingCodePaths(root: string, read: (p: string) => string): MissingPath[] {
  const files = allFiles(root);
  const known = new Set(files);
  const exists = (p: string) => known.has(p) || known.has(`${p}/`) || existsSync(resolve(root, p));
  const ending = (p: string) => files.find((f) => f.replace(/\/$/, '') === p || f.replace(/\/$/, '').endsWith(`/${p}`));
  const missing: MissingPath[] = [];
  for (const file of markdownFiles(root)) {
    const here = dirname(file);
    for (const spans of spansByBlock(resolve(root, file), read)) {
      const bases: string[] = [];
      for (const span of spans) {
        if (!isPath(span) || NOT_IN_REPO.some((r) => r.test(span))) continue;
        const clean = span.replace(/^\.\//, '');
        let found: string | undefined;
        if (clean.includes('/')) {
          const fromHere = posix.normalize(posix.join(here, clean));
          found = [clean, fromHere].find(exists) ?? ending(clean.replace(/\/$/, ''));
        } else {
          // The folders named before it in the block, then the doc's own folder (a README beside its code).
          found = [...bases, here].map((b) => posix.join(b, clean)).find(exists);
          if (!found && bases.length === 0) {
            // A bare name with no folder before it: one file of that name, or it says nothing
            // (`decide.ts` names eight): an ambiguous one is flagged until its block names the folder.
            const named = files.filter((f) => posix.basename(f) === clean.replace(/\/$/, ''));
            if (named.length > 1) {
              missing.push({ file, path: `${span} (ambiguous: ${named.length} files of that name; name its folder)` });
              continue;
            }
            found = named[0];
          }
          if (!found && exists(clean)) found = clean;
        }
        if (!found) {
          missing.push({ file, path: span });
          continue;
        }
        bases.unshift(found.endsWith('/') ? found : posix.dirname(found));
      }
    }
  }
  return missing;
}
