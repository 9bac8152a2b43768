import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { testTiers } from './test/quick-files.js';

/**
 * The files that take longest start first (test/quick-files.ts sorts them by what they do), the
 * quick ones last, so the run ends on small files instead of a failover test left to one worker.
 * Within a tier vitest's own order holds: slowest first by the last run's durations, or on a
 * fresh clone (no such record) largest first.
 */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const tiers = testTiers();
    const tier = (s: TestSpecification) => tiers.get(path.relative(import.meta.dirname, s.moduleId)) ?? 1;
    const ordered = await super.sort(files);
    return ordered
      .map((spec, i) => ({ spec, i, tier: tier(spec) }))
      .sort((a, b) => a.tier - b.tier || a.i - b.i)
      .map((x) => x.spec);
  }
}

/** What every run shares (vitest.quick.config.ts narrows the files). */
export const shared = {
  // Tests start real servers and child processes on loopback; two cores are all CI has.
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks',
  // Two workers on two cores. A third ran while two waited (a run took 181 s instead of about
  // 230), but it put a failover test, a browser test and a replica test on two cores at once: the
  // standby's takeover and the page's passkey prompt then missed their windows (passed alone).
  maxWorkers: 2,
  // The files of a worker share its module cache: src/ is loaded once per worker, not once per
  // file (that reloading was most of a run's import time: 222 s summed with isolate on, 30 s
  // off). So no module of src/ or test/ may keep state a later file could see: apps, stores,
  // sandboxes (their price drift included), registries and clocks are made per instance, and a
  // test that fakes timers restores them in a finally.
  isolate: false,
  // Bolt checks the bot token with auth.test the moment an App is built, and awaits that promise
  // only at the first Slack request (bolt-js App.js, singleAuthorization). A test whose fake Slack
  // has closed (or never answered) before then leaves it rejected, and the rejection may surface in
  // whichever test runs next. Only that shape is let through: a Web API
  // request refused by a loopback port; anything else still fails the run. (In production main.ts
  // logs an unhandled rejection; the first Slack request then reports the unreachable API.)
  onUnhandledError: (error: unknown) => !isLoopbackSlackRefusal(error),
  sequence: { sequencer: SlowestFirst },
} as const;

function isLoopbackSlackRefusal(error: unknown): boolean {
  const e = error as { code?: unknown; original?: { cause?: { code?: unknown; address?: unknown } } };
  const cause = e.original?.cause;
  return e.code === 'slack_webapi_request_error' && cause?.code === 'ECONNREFUSED' && cause.address === '127.0.0.1';
}

export default defineConfig({
  test: {
    ...shared,
    include: ['test/**/*.test.ts'],
    // Names the directory of the run's one PostgreSQL cluster, started only if a test asks (test/helpers/pg.ts).
    // And the run's one build of the TypeScript its child processes run (test/helpers/built.ts).
    globalSetup: ['test/pg-global-setup.ts', 'test/build-global-setup.ts'],
  },
});
