/**
 * `npm run bench db-restart`: how long the app is without a ready leader when PostgreSQL
 * restarts (issue 35). Two replicas of src/main.ts on a cluster of the bench's own; `pg_ctl
 * restart` (fast: every session is cut); the time from the database's return (pg_ctl's -w
 * returns once it accepts connections) to the first /readyz 200, p50 and max over ROUNDS. The
 * leader that lost its session exits 70 by design and a new standby is started for the next
 * round. Baseline, in the same run: a fresh replica's start to /readyz 200 against a running
 * database (the time a leader's start takes with nothing to wait for).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeSlack } from '../test/helpers/fake-slack.js';
import { postgresBinDir } from '../test/helpers/pg-cluster.js';
import { ownCluster } from '../test/helpers/pg-own-cluster.js';
import {
  alive,
  firstReady,
  killReplicas,
  type ReplicaProcess,
  spawnReplica,
  waitStatus,
} from '../test/helpers/replica-process.js';
import { TEST_POLICY_YAML } from '../test/helpers/treasury-app.js';
import { type Bench, type BenchResult, nowMs, percentile, result } from './lib.js';

const ROUNDS = 5;

const bench: Bench = {
  name: 'db-restart',
  description: `time to /readyz 200 after a PostgreSQL restart, beside a fresh start (p50 and max over ${ROUNDS})`,
  async run(): Promise<BenchResult[]> {
    if (!postgresBinDir()) {
      console.error('  db-restart: PostgreSQL is not installed; skipped');
      return [];
    }
    const cluster = ownCluster({ maxConnections: 50 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-db-restart-'));
    const policyFile = path.join(dir, 'policy.yml');
    fs.writeFileSync(policyFile, TEST_POLICY_YAML);
    const fake = await startFakeSlack();
    const spawnOn = (databaseUrl: string) =>
      spawnReplica({
        databaseUrl,
        slackApiUrl: fake.url,
        dataDir: dir,
        policyFile,
        webhookSecret: 'wh_bench_db_restart_0123456789ab',
        env: { LOG_LEVEL: 'warn' },
      });
    try {
      // Baseline: a fresh start, nothing to wait for (each on its own database, alone).
      const fresh: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const url = await cluster.createDatabase(`fresh_${i}`);
        const t = nowMs();
        const r = await spawnOn(url);
        await waitStatus(r, '/readyz', 200, 60_000);
        fresh.push(nowMs() - t);
        await killReplicas();
      }

      const url = await cluster.createDatabase('restarts');
      let all: ReplicaProcess[] = [await spawnOn(url), await spawnOn(url)];
      await firstReady(all, 60_000);
      const afterRestart: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        for (const r of all) await waitStatus(r, '/healthz', 200, 60_000);
        cluster.restart();
        const back = nowMs();
        await firstReady(all, 30_000);
        afterRestart.push(nowMs() - back);
        // the leader that lost its session exited 70: a new standby for the next round
        await new Promise((r) => setTimeout(r, 500));
        all = all.filter(alive);
        while (all.length < 2) all.push(await spawnOn(url));
      }
      const row = (metric: string, xs: number[], baseline: number[], p: 'p50' | 'max') =>
        result({
          bench: 'db-restart',
          case: `${ROUNDS} pg_ctl restarts, 2 replicas`,
          metric: `${metric}, ${p}`,
          value: p === 'p50' ? percentile(xs, 50) : Math.max(...xs),
          baseline: p === 'p50' ? percentile(baseline, 50) : Math.max(...baseline),
          unit: 'ms',
          better: 'lower',
        });
      const metric = 'database back to /readyz 200 (baseline: a fresh start to /readyz 200)';
      return [row(metric, afterRestart, fresh, 'p50'), row(metric, afterRestart, fresh, 'max')];
    } finally {
      await killReplicas();
      await fake.close();
      cluster.remove();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
