/**
 * `npm run bench [name...]`: runs every registered benchmark (or those whose name contains
 * one of the arguments), prints one table, and writes bench/results.json.
 *
 * To add a benchmark: write bench/<name>.bench.ts with a default export of type Bench, and
 * append it to `registry` below. Modules load lazily so a filtered run pays only for itself.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable, type Bench, type BenchResult } from './lib.js';

const registry: Array<{ name: string; load: () => Promise<{ default: Bench }> }> = [
  { name: 'store', load: () => import('./store.bench.js') },
  { name: 'store-pg', load: () => import('./store-pg.bench.js') },
  { name: 'webhooks', load: () => import('./webhooks.bench.js') },
  { name: 'slack-ack', load: () => import('./slack-ack.bench.js') },
  { name: 'withdrawals', load: () => import('./withdrawals.bench.js') },
  { name: 'alerts', load: () => import('./alerts.bench.js') },
  { name: 'retention', load: () => import('./retention.bench.js') },
  { name: 'digest', load: () => import('./digest.bench.js') },
  { name: 'valuation', load: () => import('./valuation.bench.js') },
];

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const selected = filters.length ? registry.filter((b) => filters.some((f) => b.name.includes(f))) : registry;
if (selected.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}; known: ${registry.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

const results: BenchResult[] = [];
const startedAt = new Date().toISOString();
for (const entry of selected) {
  const bench = (await entry.load()).default;
  console.error(`running ${bench.name}: ${bench.description}`);
  const t = Date.now();
  results.push(...(await bench.run()));
  console.error(`  ${bench.name} done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

console.log(formatTable(results));
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results.json');
// A run of some benches replaces their rows and keeps the others' (each bench says when it ran),
// so `npm run bench digest` does not erase the figures of a longer run.
const ran = new Set(selected.map((b) => b.name));
const previous = await fs
  .readFile(out, 'utf8')
  .then((text) => JSON.parse(text) as { results?: BenchResult[]; ranAt?: Record<string, string>; startedAt?: string })
  .catch(() => undefined);
const kept = (previous?.results ?? []).filter((r) => !ran.has(r.bench));
const ranAt: Record<string, string> = {};
for (const r of kept) ranAt[r.bench] = previous?.ranAt?.[r.bench] ?? previous?.startedAt ?? 'unknown';
for (const name of ran) ranAt[name] = startedAt;
await fs.writeFile(
  out,
  `${JSON.stringify(
    {
      startedAt,
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      cpus: os.cpus().length,
      benches: Object.keys(ranAt),
      ranAt,
      results: [...kept, ...results],
    },
    null,
    2,
  )}\n`,
);
console.error(`wrote ${out}`);
