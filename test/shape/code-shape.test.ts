/**
 * The shape of the code, checked as CI runs the tests (issue: "the house again"):
 * - no source file over 400 lines (the page's JavaScript too), except the store whose head
 *   comment says why;
 * - no import cycle between files, type-only imports counted (a type cycle is a design knot even
 *   though it vanishes at compile time: shared types live in a leaf module);
 * - no cycle between folders (src/<folder>, commands/<command>, each file at a root on its own):
 *   each folder is a layer that the ones it imports do not import back;
 * - domain folders never import the Slack face (`src/slack/`, `commands/`), and mrkdwn (Block
 *   Kit text objects, escapes, mentions, links) is written only there;
 * - alert kinds are listed in one table (src/alert-kinds.ts), and the alert renderers name no kind.
 */
import fs from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 400;

function files(dir: string, exts: RegExp): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(rel, exts));
    else if (exts.test(e.name)) out.push(rel);
  }
  return out;
}

const SOURCES = [...files('src', /\.(ts|js|mjs)$/), ...files('commands', /\.(ts|js|mjs)$/)];

/** The domain: everything but the Slack face, the composition root and the local stand-ins for Slack. */
const SLACK_FACE = /^(src\/slack\/|commands\/|src\/app\/|src\/app\.ts$|src\/main\.ts$|src\/local\/)/;
const DOMAIN = SOURCES.filter((f) => !SLACK_FACE.test(f) && !f.startsWith('src/sandbox/'));

let madeGraph: ReturnType<typeof madge> | undefined;
/** The import graph of src/ and commands/, type-only imports included; made once per file. */
function graph(): ReturnType<typeof madge> {
  madeGraph ??= madge(['src', 'commands'], {
    baseDir: root,
    fileExtensions: ['ts', 'mjs', 'js'],
    tsConfig: path.join(root, 'tsconfig.json'),
  });
  return madeGraph;
}

/** src/prices/value.ts -> src/prices; commands/tx/page.ts -> commands/tx; src/log.ts -> src/log.ts. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : file;
}

/** The folders on a cycle, one list per strongly connected component (Tarjan), each sorted. */
function folderCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const specs = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!);
  return specs.filter((s) => s.startsWith('.')).map((s) => path.join(path.dirname(file), s));
}

describe('code shape', () => {
  it('no file in src/ or commands/ is over 400 lines (the store says why it is)', () => {
    const over = SOURCES.filter((f) => {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines <= MAX_LINES) return false;
      return !(f === 'src/store/durable-store.ts' && /Over 400 lines because/.test(text.slice(0, 2000)));
    });
    expect(over).toEqual([]);
  });

  it('no import cycle between files, type-only imports counted', async () => {
    expect((await graph()).circular()).toEqual([]);
  }, 60_000);

  it('no import cycle between folders', async () => {
    const edges = new Map<string, Set<string>>();
    for (const [from, tos] of Object.entries((await graph()).obj())) {
      for (const to of tos) {
        const a = folderOf(from);
        const b = folderOf(to);
        if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
      }
    }
    expect(folderCycles(edges)).toEqual([]);
  }, 60_000);

  it('domain code never imports src/slack/ or commands/', () => {
    const bad = DOMAIN.flatMap((f) =>
      importsOf(f)
        .filter((to) => to.startsWith('src/slack/') || to.startsWith('commands/'))
        .map((to) => `${f} -> ${to}`),
    );
    expect(bad).toEqual([]);
  });

  it('mrkdwn is written only in src/slack/ and commands/: no Block Kit text object and no mrkdwn escape elsewhere', () => {
    const bad = DOMAIN.filter((f) => {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      return /type:\s*'mrkdwn'/.test(text) || /\boutside\(/.test(text.replace(/^\s*\*.*$/gm, ''));
    }).filter((f) => f !== 'src/format/outside.ts');
    expect(bad).toEqual([]);
  });

  it('Slack mentions and links are written only in src/slack/ and commands/: no <@…>, <!subteam^…>, <!here>, <!channel>, <!everyone> or <#…> elsewhere', () => {
    // Comment lines may name the syntax (to say why it is not built here); code lines may not.
    const SLACK_SYNTAX = /<@|<!subteam\^|<!here|<!channel|<!everyone|<#/;
    const bad = DOMAIN.flatMap((f) =>
      fs
        .readFileSync(path.join(root, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (!/^\s*(\*|\/\/|\/\*)/.test(line) && SLACK_SYNTAX.test(line) ? [`${f}:${i + 1}`] : [])),
    );
    expect(bad).toEqual([]);
  });

  it('alert kinds are listed only in their table (src/alert-kinds.ts); the alert renderers branch on no kind by name', () => {
    const KIND = "'(deposit|withdrawal|remittance|transfer|unknown)'";
    // A hand-kept list of kinds (three or more in a row), or a wire type mapped to a kind by hand.
    const parallel = [new RegExp(`${KIND}\\s*,\\s*${KIND}\\s*,\\s*${KIND}`), new RegExp(`\\b[A-Z_]{4,}:\\s*${KIND}`)];
    const lists = SOURCES.filter((f) => f !== 'src/alert-kinds.ts' && !f.startsWith('src/sandbox/')).filter((f) => {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      return parallel.some((re) => re.test(text));
    });
    expect(lists).toEqual([]);
    const branch = new RegExp(`\\.kind\\s*[!=]==\\s*${KIND}`);
    const branches = SOURCES.filter((f) => /^src\/slack\/alert-/.test(f)).flatMap((f) =>
      fs
        .readFileSync(path.join(root, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (branch.test(line) ? [`${f}:${i + 1}`] : [])),
    );
    expect(branches).toEqual([]);
  });
});
