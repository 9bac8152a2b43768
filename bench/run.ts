/**
 * `npm run bench [name...]`: runs every registered benchmark (or those whose name contains
 * one of the arguments), prints one table, and writes bench/results.json (bench/runner.ts). A
 * bench that fails is named with its error after the others' figures, and the exit code is 1.
 *
 * To add a benchmark: write bench/<name>.bench.ts with a default export of type Bench, and
 * append it to `registry` below. Modules load lazily so a filtered run pays only for itself.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main, type RegistryEntry } from './runner.js';

const registry: RegistryEntry[] = [
  { name: 'store', load: () => import('./store.bench.js') },
  { name: 'store-pg', load: () => import('./store-pg.bench.js') },
  { name: 'webhooks', load: () => import('./webhooks.bench.js') },
  { name: 'slack-ack', load: () => import('./slack-ack.bench.js') },
  { name: 'withdrawals', load: () => import('./withdrawals.bench.js') },
  { name: 'alerts', load: () => import('./alerts.bench.js') },
  { name: 'retention', load: () => import('./retention.bench.js') },
  { name: 'digest', load: () => import('./digest.bench.js') },
  { name: 'valuation', load: () => import('./valuation.bench.js') },
  { name: 'db-restart', load: () => import('./db-restart.bench.js') },
  { name: 'inbox', load: () => import('./inbox.bench.js') },
  { name: 'batch', load: () => import('./batch.bench.js') },
  { name: 'startup', load: () => import('./startup.bench.js') },
  { name: 'screening', load: () => import('./screening.bench.js') },
  { name: 'history', load: () => import('./history.bench.js') },
];

/** Options that take a value (`--sizes 10k,100k`): the value is not a bench's name. */
const VALUED = new Set(['--sizes', '--stores']);

const args = process.argv.slice(2);
const filters = args.filter((a, i) => !a.startsWith('-') && !VALUED.has(args[i - 1] ?? ''));
const selected = filters.length ? registry.filter((b) => filters.some((f) => b.name.includes(f))) : registry;
if (selected.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}; known: ${registry.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

const code = await main(selected, path.join(path.dirname(fileURLToPath(import.meta.url)), 'results.json'));
// A bench that threw may have left a server or a child behind, which would keep the process
// alive once everything is printed and written.
if (code !== 0) process.exit(code);
