/** Relative links and their anchors in every Markdown file of the repository point somewhere real. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks } from '../../scripts/docs/links.js';

describe('links in the docs', () => {
  it('no relative link or anchor is broken', () => {
    expect(brokenLinks('.')).toEqual([]);
  });

  it('finds a missing file and a missing anchor', () => {
    const dir = mkdtempSync(join(tmpdir(), 'links-'));
    writeFileSync(
      join(dir, 'a.md'),
      '# Title\n\n## Run two replicas\n\n[ok](#run-two-replicas) [b](b.md) [c](a.md#nowhere)\n',
    );
    expect(brokenLinks(dir).map((b) => [b.link, b.why])).toEqual([
      ['b.md', 'no such file'],
      ['a.md#nowhere', 'no heading with the anchor #nowhere'],
    ]);
  });
});

describe('the tutorial’s screenshots', () => {
  it('each one is taken by a step of the browser tests (npm run docs:screenshots)', () => {
    const tutorial = readFileSync('docs/tutorial/first-tour.md', 'utf8');
    const names = [...tutorial.matchAll(/\.\.\/img\/tour\/([a-z0-9-]+)\.png/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(3);
    const browser = readdirSync('test/browser')
      .map((f) => readFileSync(join('test/browser', f), 'utf8'))
      .join('\n');
    for (const name of names) expect(browser, `no browser step shoots ${name}`).toContain(`shot('${name}')`);
  });
});
