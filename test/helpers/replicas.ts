/**
 * What the replica tests that stand a replica by share: a database and a fake Slack for the
 * file, the apps and other things to stop after it, the lead held by the test's own session
 * (the advisory lock the replicas take) so a replica started meanwhile stands by and nothing
 * drains the inbox, and waiting for a server that does not listen yet.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { LEADER_LOCK_KEY } from '../../src/store/pg/leader.js';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';
import { createTestDatabase } from './pg.js';
import { FINANCE_GROUP, type TestApp, USERS } from './treasury-app.js';

/** Retries `fn` while it throws (a server that does not listen yet), up to `timeoutMs`. */
export async function eventually<T>(fn: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export interface ReplicaRig {
  url(): string;
  fake(): FakeSlack;
  /** Stopped after the file, last started first. */
  apps: TestApp[];
  /** Called after the apps stop, last added first. */
  cleanups: Array<() => Promise<unknown>>;
  /** Takes the leader lock on a session of the test's own; `release` gives it up. */
  holdTheLead(): Promise<{ release(): Promise<void> }>;
}

/** Call inside a describe: the database and fake Slack are made before its tests, everything stopped after. */
export function replicaRig(prefix: string): ReplicaRig {
  let url = '';
  let fake: FakeSlack | undefined;
  const rig: ReplicaRig = {
    url: () => url,
    fake: () => fake!,
    apps: [],
    cleanups: [],
    async holdTheLead() {
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      rig.cleanups.push(() => holder.end());
      await holder.query('SELECT pg_advisory_lock($1)', [LEADER_LOCK_KEY]);
      return { release: () => holder.query('SELECT pg_advisory_unlock($1)', [LEADER_LOCK_KEY]).then(() => {}) };
    },
  };
  beforeAll(async () => {
    url = await createTestDatabase(prefix);
    fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
  }, 120_000);
  afterAll(async () => {
    for (const a of rig.apps.reverse()) await a.stop().catch(() => {});
    for (const c of rig.cleanups.reverse()) await c().catch(() => {});
    await fake?.close();
  });
  return rig;
}
