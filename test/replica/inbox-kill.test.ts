/**
 * A leader SIGKILLed in the middle of draining the inbox (src/main.ts in child processes, one
 * PostgreSQL database) loses nothing and doubles nothing: rows go only once their batch's
 * commit is durable, so the replica that takes over drains what is left, and a batch whose
 * commit landed but whose rows were not yet deleted comes back as duplicates (one event, one
 * alert each). The rows are written as a standby writes them (the secret's hash under the
 * replicas' SECRETS_KEY, known events first), and the kill lands in that window: after a batch's
 * commit, before its delete.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inboxKey } from '../../src/replica/inbox.js';
import { hashInboxSecret, inboxHashKey } from '../../src/replica/inbox-secret.js';
import { depositSample } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { killReplicas, spawnReplica, waitStatus } from '../helpers/replica-process.js';
import { TEST_POLICY_YAML } from '../helpers/treasury-app.js';

const SECRET = 'wh_inbox_kill_secret_0123456789ab';
/** What test/helpers/replica-process.ts gives every replica: the inbox's hashes are keyed from it. */
const SECRETS_KEY = Buffer.alloc(32, 7);
const DEPOSITS = 600;
const JUNK = 2_000;
const dir = mkdtempSync(path.join(tmpdir(), 'treasury-inbox-kill-'));
const policyFile = path.join(dir, 'policy.yml');
writeFileSync(policyFile, TEST_POLICY_YAML);

const replica = (databaseUrl: string, fake: FakeSlack) =>
  spawnReplica({ databaseUrl, slackApiUrl: fake.url, dataDir: dir, policyFile, webhookSecret: SECRET });

const hashOf = (i: number) => `0x${i.toString(16).padStart(8, '0')}${'d'.repeat(56)}`;

describe.skipIf(!pgAvailable)(`a leader killed mid-drain${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterEach(killReplicas);
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses nothing and doubles nothing', async () => {
    const url = await createTestDatabase('inbox_kill');
    const a = await replica(url, fake);
    await waitStatus(a, '/readyz', 200, 40_000);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const secretHash = hashInboxSecret(inboxHashKey(SECRETS_KEY), SECRET);
      const bodies: Array<{ body: string; priority: number }> = [];
      for (let i = 0; i < JUNK; i++) bodies.push({ body: JSON.stringify({ note: 'junk', n: i }), priority: 1 });
      for (let i = 0; i < DEPOSITS; i++) {
        bodies.push({ body: depositSample({ hash: hashOf(i) }), priority: 0 });
      }
      const total = bodies.length;
      await db.query(
        `INSERT INTO webhook_inbox (key, item, priority)
         SELECT k, i::json, p FROM unnest($1::text[], $2::text[], $3::smallint[]) AS v(k, i, p)`,
        [
          bodies.map((b) => inboxKey(b.body)),
          bodies.map((b) => JSON.stringify({ secretHash, body: b.body, headers: {} })),
          bodies.map((b) => b.priority),
        ],
      );
      // The inbox is locked against deletes (as a long vacuum or a slow disk might hold it): the
      // leader's batch reaches its durable commit and then waits to delete its rows. Killed there.
      const lock = new pg.Client({ connectionString: url });
      await lock.connect();
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE webhook_inbox IN SHARE MODE');
      const count = async (sql: string) => Number((await db.query(sql)).rows[0].n);
      const stored = () => count("SELECT count(*) AS n FROM store_records WHERE collection = 'webhook_events'");
      const inbox = () => count('SELECT count(*) AS n FROM webhook_inbox');
      const inFlight = async () => (await stored()) > total - (await inbox());
      for (let i = 0; i < 600 && !(await inFlight()); i++) await new Promise((res) => setTimeout(res, 50));
      a.child.kill('SIGKILL');
      await a.exited;
      await lock.query('COMMIT');
      await lock.end();
      const ingestedNotDeleted = (await stored()) - (total - (await inbox()));
      expect(ingestedNotDeleted).toBeGreaterThan(0);
      let left = await inbox();
      expect(left).toBeGreaterThan(0);

      const b = await replica(url, fake);
      await waitStatus(b, '/readyz', 200, 40_000);
      for (let i = 0; i < 300 && left > 0; i++) {
        left = await inbox();
        if (left > 0) await new Promise((res) => setTimeout(res, 100));
      }
      expect(left).toBe(0);
      // The rows A had ingested came back to B as duplicates.
      const duplicates = b
        .out()
        .split('\n')
        .filter((l) => l.includes('inbox: drained a batch'))
        .reduce((n, l) => n + (JSON.parse(l) as { duplicates: number }).duplicates, 0);
      expect(duplicates).toBe(ingestedNotDeleted);

      // Nothing lost: every body is one stored event, one alert.
      const byKind = (collection: string, kind: string) =>
        count(
          `SELECT count(*) AS n FROM store_records WHERE collection = '${collection}' AND ${
            collection === 'alerts' ? "value->>'kind'" : "value->'event'->>'kind'"
          } = '${kind}'`,
        );
      expect(await byKind('webhook_events', 'unknown')).toBe(JUNK);
      expect(await byKind('webhook_events', 'deposit')).toBe(DEPOSITS);
      expect(await byKind('alerts', 'deposit')).toBe(DEPOSITS);
      // Nothing doubled in Slack: no deposit is in two posts.
      await new Promise((res) => setTimeout(res, 2_000));
      const posts = fake.calls('chat.postMessage').map((c) => JSON.stringify(c.args));
      // (batched 50 a message, the rest gathered into a flood summary: each at most once)
      expect(posts.some((p) => p.includes(`tx/${hashOf(0)}`))).toBe(true);
      for (let i = 0; i < DEPOSITS; i++) {
        expect(posts.filter((p) => p.includes(`tx/${hashOf(i)}`)).length, hashOf(i)).toBeLessThanOrEqual(1);
      }
    } finally {
      await db.end();
    }
  }, 180_000);
});
