/**
 * The reference pages and .env.example are generated from the code (`npm run docs`): a page that
 * differs from what the code says fails here, so the docs cannot drift from the schemas.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { generatedPages } from '../../scripts/docs/pages.js';
import { policySchema } from '../../src/policy/schema.js';
import { schemaRows } from '../../scripts/docs/schema-rows.js';

describe('generated reference pages', () => {
  it('each committed page is what `npm run docs` writes from the code', async () => {
    const pages = await generatedPages();
    expect(Object.keys(pages).length).toBeGreaterThanOrEqual(7);
    for (const [path, text] of Object.entries(pages)) {
      expect(existsSync(path), `${path} is missing: run npm run docs`).toBe(true);
      expect(readFileSync(path, 'utf8'), `${path} differs from the code: run npm run docs`).toBe(text);
    }
  });

  it('every policy key and environment variable has a meaning', async () => {
    const pages = await generatedPages();
    for (const path of ['docs/reference/policy.md', 'docs/reference/environment.md']) {
      const empty = pages[path]!.split('\n').filter((l) => /^\| `/.test(l) && / \| {2}\|$/.test(l));
      expect(empty, `${path}: rows without a meaning (add .describe() or .meta() in the schema)`).toEqual([]);
    }
  });
});

describe('policy.example.yml', () => {
  const text = readFileSync('policy.example.yml', 'utf8');

  it('is a valid policy', () => {
    const parsed = policySchema.safeParse(parseDocument(text).toJS());
    expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
  });

  it('uses only keys the policy reference lists', () => {
    const known = schemaRows(policySchema, undefined).map((r) => r.path);
    const pattern = (p: string) =>
      new RegExp(
        `^${p
          .replace(/[.[\]]/g, (c) => `\\${c}`)
          .replace(/<[a-z]+>/g, '[^.\\[]+')
          .replace(/\\\[\\\]/g, '\\[\\d+\\]')}$`,
      );
    const patterns = known.map(pattern);
    const unknown: string[] = [];
    const walk = (v: unknown, path: string) => {
      if (Array.isArray(v)) {
        for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
      } else if (v !== null && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          const p = path ? `${path}.${k}` : k;
          if (!patterns.some((re) => re.test(p))) unknown.push(p);
          else walk(x, p);
        }
      }
    };
    walk(parseDocument(text).toJS(), '');
    expect(unknown).toEqual([]);
  });
});
