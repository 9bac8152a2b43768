import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Names the directory of the run's one PostgreSQL cluster, started only if a test asks (test/helpers/pg.ts).
    globalSetup: ['test/pg-global-setup.ts'],
    // Tests start real servers and child processes on loopback; two cores are all CI has.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
