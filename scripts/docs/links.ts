/**
 * Links inside the repository's Markdown: every relative link must name a file that exists, and
 * every `#anchor` a heading of its page, as GitHub makes them (github-slugger). Links out of the
 * repository (http, mailto) are not followed: CI has no internet, and their pages are not ours.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked, type Token } from 'marked';

export interface BrokenLink {
  file: string;
  link: string;
  why: string;
}

const SKIP = new Set(['node_modules', '.git', 'dist', 'data', 'test-artifacts', 'coverage']);

/** Every Markdown file under root, repository-relative, skipping dependencies and outputs. */
export function markdownFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (SKIP.has(name) || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) out.push(relative(root, path));
    }
  };
  walk(root);
  return out.sort();
}

function walkTokens(tokens: Token[], visit: (t: Token) => void): void {
  for (const t of tokens) {
    visit(t);
    const children = (t as { tokens?: Token[] }).tokens;
    if (children) walkTokens(children, visit);
    const items = (t as { items?: Token[] }).items;
    if (items) walkTokens(items, visit);
    const rows = (t as { header?: Array<{ tokens: Token[] }>; rows?: Array<Array<{ tokens: Token[] }>> }).rows;
    const header = (t as { header?: Array<{ tokens: Token[] }> }).header;
    if (header) for (const cell of header) walkTokens(cell.tokens, visit);
    if (rows) for (const row of rows) for (const cell of row) walkTokens(cell.tokens, visit);
  }
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors GitHub gives a page's headings. */
export function anchorsOf(path: string): Set<string> {
  const cached = anchorCache.get(path);
  if (cached) return cached;
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  walkTokens(marked.lexer(readFileSync(path, 'utf8')), (t) => {
    if (t.type === 'heading') anchors.add(slugger.slug((t as { text: string }).text.replace(/`/g, '')));
  });
  anchorCache.set(path, anchors);
  return anchors;
}

/** The links and images of one Markdown file. */
export function linksOf(path: string): string[] {
  const links: string[] = [];
  walkTokens(marked.lexer(readFileSync(path, 'utf8')), (t) => {
    if (t.type === 'link' || t.type === 'image') links.push((t as { href: string }).href);
  });
  return links;
}

export function brokenLinks(root: string): BrokenLink[] {
  anchorCache.clear();
  const broken: BrokenLink[] = [];
  for (const file of markdownFiles(root)) {
    const abs = resolve(root, file);
    for (const link of linksOf(abs)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
      const [target = '', anchor] = link.split('#', 2);
      const targetPath = target ? resolve(dirname(abs), decodeURIComponent(target)) : abs;
      if (!existsSync(targetPath)) {
        broken.push({ file, link, why: 'no such file' });
        continue;
      }
      if (anchor && targetPath.endsWith('.md') && !anchorsOf(targetPath).has(anchor)) {
        broken.push({ file, link, why: `no heading with the anchor #${anchor}` });
      }
    }
  }
  return broken;
}
