/**
 * `npm run docs`: writes the reference pages and .env.example from the code (scripts/docs/pages.ts).
 * `npm run docs -- --check`: writes nothing, lists the pages that differ and the broken links,
 * and exits 1 if there are any (the same checks run in the test suite, test/docs/).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { brokenLinks } from './docs/links.js';
import { generatedPages } from './docs/pages.js';

const check = process.argv.includes('--check');
const pages = await generatedPages();
let problems = 0;
for (const [path, text] of Object.entries(pages)) {
  const now = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (now === text) continue;
  if (check) {
    problems += 1;
    console.error(`${path}: differs from what the code says (run npm run docs)`);
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
}
for (const b of brokenLinks('.')) {
  problems += 1;
  console.error(`${b.file}: broken link ${b.link} (${b.why})`);
}
if (problems) process.exit(1);
