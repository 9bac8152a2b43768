import { defineConfig } from 'vitest/config';

/** What every run shares (vitest.quick.config.ts narrows the files). */
export const shared = {
  // Tests start real servers and child processes on loopback; two cores are all CI has.
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks',
  maxWorkers: 2,
  // The files of a worker share its module cache: src/ is loaded once per worker, not once per
  // file (that reloading was a third of the run). No test relies on a fresh module state: apps,
  // stores, registries and clocks are made per test, and the two tests that fake timers restore them.
  isolate: false,
} as const;

export default defineConfig({
  test: {
    ...shared,
    include: ['test/**/*.test.ts'],
    // Names the directory of the run's one PostgreSQL cluster, started only if a test asks (test/helpers/pg.ts).
    // And the run's one build of the TypeScript its child processes run (test/helpers/built.ts).
    globalSetup: ['test/pg-global-setup.ts', 'test/build-global-setup.ts'],
  },
});
