/**
 * The runner behind `npm run bench` (bench/run.ts holds only the registry): runs the selected
 * benchmarks one after another, prints one table and writes bench/results.json. A bench that
 * fails (throws, or cannot even load) is reported by name with its error after the others have
 * run: one failure used to throw out of the loop and lose every finished bench's figures, some
 * of which take minutes to measure. The exit code is then 1.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import { formatTable, type Bench, type BenchResult } from './lib.js';

export interface RegistryEntry {
  name: string;
  load: () => Promise<{ default: Bench }>;
}

export interface Failure {
  bench: string;
  error: string;
}

/** What bench/results.json holds. */
export interface ResultsFile {
  startedAt: string;
  node: string;
  platform: string;
  cpus: number;
  benches: string[];
  /** When each bench's rows were measured (a run replaces the rows of the benches it finished only). */
  ranAt: Record<string, string>;
  /**
   * Benches whose latest run failed: when and why. Their rows (if any) are the previous run's,
   * kept as they were with their own `ranAt`; the entry goes once the bench finishes again.
   */
  failed?: Record<string, { at: string; error: string }>;
  results: BenchResult[];
}

/** Runs each entry in turn; a failure is recorded and the next bench runs. */
export async function runBenches(
  entries: readonly RegistryEntry[],
  log: (line: string) => void,
): Promise<{ results: BenchResult[]; finished: string[]; failures: Failure[] }> {
  const results: BenchResult[] = [];
  const finished: string[] = [];
  const failures: Failure[] = [];
  for (const entry of entries) {
    const t = Date.now();
    try {
      const bench = (await entry.load()).default;
      log(`running ${bench.name}: ${bench.description}`);
      const rows = await bench.run();
      results.push(...rows);
      finished.push(entry.name);
      log(`  ${bench.name} done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    } catch (err) {
      const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
      failures.push({ bench: entry.name, error });
      log(`  ${entry.name} FAILED after ${((Date.now() - t) / 1000).toFixed(1)} s: ${error}`);
    }
  }
  return { results, finished, failures };
}

/**
 * The new results file: the finished benches' rows replace theirs; every other bench's rows,
 * a failed one's included, are kept as they were with the time they were measured, so
 * `npm run bench digest` (or a run where one bench fails) erases no other figure.
 */
export function mergeResults(
  previous: Partial<ResultsFile> | undefined,
  run: {
    startedAt: string;
    finished: readonly string[];
    failures: readonly Failure[];
    results: readonly BenchResult[];
    machine: Pick<ResultsFile, 'node' | 'platform' | 'cpus'>;
  },
): ResultsFile {
  const done = new Set(run.finished);
  const kept = (previous?.results ?? []).filter((r) => !done.has(r.bench));
  const ranAt: Record<string, string> = {};
  for (const r of kept) ranAt[r.bench] = previous?.ranAt?.[r.bench] ?? previous?.startedAt ?? 'unknown';
  for (const name of done) ranAt[name] = run.startedAt;
  const failed: Record<string, { at: string; error: string }> = {};
  for (const [name, f] of Object.entries(previous?.failed ?? {})) if (!done.has(name)) failed[name] = f;
  // The first line of the error only: the stack is in the run's output.
  for (const f of run.failures) failed[f.bench] = { at: run.startedAt, error: f.error.split('\n')[0]! };
  return {
    startedAt: run.startedAt,
    ...run.machine,
    benches: Object.keys(ranAt),
    ranAt,
    ...(Object.keys(failed).length ? { failed } : {}),
    results: [...kept, ...run.results],
  };
}

/** The lines printed after the table for the failed benches, empty when none failed. */
export function failureReport(failures: readonly Failure[], previous: Partial<ResultsFile> | undefined): string {
  if (failures.length === 0) return '';
  const lines = [`${failures.length} bench${failures.length > 1 ? 'es' : ''} FAILED (not in the table above):`];
  for (const f of failures) {
    const measured = previous?.ranAt?.[f.bench];
    const rows = (previous?.results ?? []).filter((r) => r.bench === f.bench).length;
    lines.push(
      `- ${f.bench}: ${f.error.split('\n')[0]}`,
      rows
        ? `  its ${rows} row${rows > 1 ? 's' : ''} in results.json are kept from ${measured ?? 'an earlier run'}, not refreshed`
        : '  no earlier figures in results.json',
    );
  }
  return lines.join('\n');
}

/**
 * The whole run: the benches, the table (on stdout), the results file, the failures (on
 * stderr). Returns the exit code: 0 when every bench finished, 1 otherwise.
 */
export async function main(
  entries: readonly RegistryEntry[],
  out: string,
  io: { stdout: (s: string) => void; stderr: (s: string) => void } = {
    stdout: (s) => console.log(s),
    stderr: (s) => console.error(s),
  },
): Promise<number> {
  const startedAt = new Date().toISOString();
  const run = await runBenches(entries, io.stderr);
  if (run.results.length) io.stdout(formatTable(run.results));
  const previous = await fs
    .readFile(out, 'utf8')
    .then((text) => JSON.parse(text) as Partial<ResultsFile>)
    .catch(() => undefined);
  const file = mergeResults(previous, {
    startedAt,
    ...run,
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      cpus: os.cpus().length,
    },
  });
  await fs.writeFile(out, `${JSON.stringify(file, null, 2)}\n`);
  io.stderr(`wrote ${out}`);
  const report = failureReport(run.failures, previous);
  if (report) io.stderr(report);
  return run.failures.length ? 1 : 0;
}
