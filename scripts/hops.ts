/**
 * `npm run hops`: the two paths docs/architecture.md walks, measured on the import graph instead of
 * counted by hand. From the file that handles the /withdraw Approve click to the one that speaks
 * HTTP to the wallet service, and from the webhook receiver to the call that posts to Slack: the
 * shortest chain of imports, each file on it one hop (both ends included). Type imports count: across an injected
 * dependency (the app hands the listener its services) the interface is the only link the code
 * has, and the reader follows it too. test/docs/hops.test.ts holds the docs to these numbers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface HopPath {
  name: string;
  from: string;
  to: string;
  /** The files from `from` to `to`, both included; empty when no chain of imports joins them. */
  files: string[];
  /** Files on the chain, both ends included (0: no chain); the docs' "hops, each a file". */
  hops: number;
}

export const PATHS = [
  { name: 'withdrawal', from: 'commands/withdraw/approve.ts', to: 'src/wallet/http.ts' },
  // The outbox's post (client.chat.postMessage): where an alert reaches Slack.
  { name: 'deposit', from: 'src/alerts/receiver.ts', to: 'src/outbox/attempts.ts' },
] as const;

/**
 * The composition root and the dependency bags it hands out: every service is named there, so a
 * chain through them says nothing about the path (every file would be three hops from every
 * other). The walk goes from a caller to the service's own types and on to its implementation.
 */
const HUBS = new Set(['src/deps.ts', 'commands/deps.ts', 'src/slack/deps.ts', 'src/app.ts']);

const SPEC =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*'([^']+)'|\bimport\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s+'([^']+)'/g;

/** A relative specifier as the compiler resolves it (`./x.js` is `./x.ts`, a folder its index). */
function resolve(fromFile: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.join(path.dirname(fromFile), spec);
  const stem = base.replace(/\.(js|mjs|ts)$/, '');
  for (const c of [`${stem}.ts`, `${stem}.mjs`, base, path.join(base, 'index.ts')]) {
    if (fs.existsSync(path.join(root, c)) && fs.statSync(path.join(root, c)).isFile()) return c;
  }
  return undefined;
}

/** Each file's imports (relative to the repository), read lazily. */
function importsOf(file: string, cache: Map<string, string[]>): string[] {
  let out = cache.get(file);
  if (!out) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    out = [...text.matchAll(SPEC)].flatMap((m) => resolve(file, (m[1] ?? m[2] ?? m[3])!) ?? []);
    cache.set(file, [...new Set(out)]);
  }
  return cache.get(file)!;
}

/** Breadth first: the shortest chain of imports from `from` to `to`. */
export function shortestPath(from: string, to: string): string[] {
  const cache = new Map<string, string[]>();
  const came = new Map<string, string | undefined>([[from, undefined]]);
  const queue = [from];
  while (queue.length) {
    const f = queue.shift()!;
    if (f === to) {
      const chain: string[] = [];
      for (let at: string | undefined = f; at !== undefined; at = came.get(at)) chain.unshift(at);
      return chain;
    }
    for (const next of importsOf(f, cache))
      if (!came.has(next) && !HUBS.has(next)) {
        came.set(next, f);
        queue.push(next);
      }
  }
  return [];
}

export function measureHops(): HopPath[] {
  return PATHS.map((p) => {
    const files = shortestPath(p.from, p.to);
    return { ...p, files, hops: files.length };
  });
}

const DOC = path.join(root, 'docs/architecture.md');
const BEGIN = '<!-- hops: computed by scripts/hops.ts (npm run hops -- --write); test/docs/hops.test.ts checks it -->';
const END = '<!-- /hops -->';

/** The block docs/architecture.md quotes: each path's count and chain. */
export function renderHops(paths: HopPath[] = measureHops()): string {
  const lines = paths.flatMap((p) => [
    `- ${p.name === 'withdrawal' ? 'The Approve click to the wallet service' : 'A notification to its Slack post'}: **${p.hops} files** (\`${p.from}\` → \`${p.to}\`):`,
    `  ${p.files.map((f) => `\`${f}\``).join(' → ')}`,
  ]);
  return [BEGIN, ...lines, END].join('\n');
}

/** The block as docs/architecture.md has it now, or undefined when it has none. */
export function documentedHops(text = fs.readFileSync(DOC, 'utf8')): string | undefined {
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  return a < 0 || b < a ? undefined : text.slice(a, b + END.length);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const block = renderHops();
  if (process.argv.includes('--write')) {
    const text = fs.readFileSync(DOC, 'utf8');
    const old = documentedHops(text);
    if (!old) throw new Error(`docs/architecture.md has no ${BEGIN} … ${END} block to update`);
    fs.writeFileSync(DOC, text.replace(old, block));
  }
  process.stdout.write(`${block}\n`);
}
