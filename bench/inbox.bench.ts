/**
 * The standby's webhook inbox as the leader drains it (src/replica/inbox.ts), two in-process
 * replicas on a throwaway local PostgreSQL cluster, each figure beside a baseline measured in
 * the same round:
 * - drain rate: 2,000 junk rows (distinct bounded JSON, the valid secret) committed into the
 *   inbox at once, until it is empty; baseline: as many junk bodies POSTed one by one to the
 *   leader's own webhook route, which is what the drain did per row before (a loopback POST
 *   each, oldest first), timed within the next baseline's run.
 * - a real deposit behind 2,000 junk rows already in the inbox: from their commit to the
 *   deposit's alert in Slack; baseline: the old drain's way, each row POSTed to the route in
 *   arrival order, the deposit last.
 * - the story end to end: 2,000 junk bodies then the deposit POSTed to the standby (8
 *   at a time), from the deposit's acknowledgment to its alert; baseline: the same bodies
 *   POSTed straight to the leader's route.
 * Rows go in while the inbox is locked and the leader's next poll waits on the lock, so the
 * drain's clock starts at the commit, not at a poll up to 500 ms later (the story's figure
 * includes that wait). A warm-up drain runs first, unmeasured. Logs at debug, in memory
 * (test/helpers/treasury-app.ts), for both sides. Skipped when PostgreSQL is not installed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inboxKey } from '../src/replica/inbox.js';
import { hashInboxSecret, inboxHashKey, standbySecretsKey } from '../src/replica/inbox-secret.js';
import { depositSample, send, SECRET } from '../test/alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../test/helpers/fake-slack.js';
import { clusterPaths, clusterUrl, postgresBinDir, runAsOwner, startCluster } from '../test/helpers/pg-cluster.js';
import { FINANCE_GROUP, freePort, startTestApp, type TestApp, USERS } from '../test/helpers/treasury-app.js';
import { type Bench, type BenchResult, nowMs, ROUNDS, roundsResult, runConcurrent } from './lib.js';

const JUNK = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let tag = 0;
/** Distinct junk bodies: valid JSON within bounds, no event the parser knows. */
function junk(n: number): string[] {
  const t = tag++;
  return Array.from({ length: n }, (_, i) => JSON.stringify({ note: 'not an event we know', batch: t, n: i }));
}
function deposit(): { body: string; hash: string } {
  const hash = `0x${(tag++).toString(16).padStart(8, '0')}${'e'.repeat(56)}`;
  return { body: depositSample({ hash }), hash };
}

async function waitFor(what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return nowMs();
    if (Date.now() > deadline) throw new Error(`inbox bench: timed out waiting for ${what}`);
    await sleep(5);
  }
}

const alertedIn = (fake: FakeSlack, hash: string) => () =>
  fake.calls('chat.postMessage').some((c) => JSON.stringify(c.args).includes(`tx/${hash}`));

/** Commits rows as a standby writes them, while the leader's drain waits on the table's lock; the commit's time. */
async function commitRows(db: pg.Client, hashKey: Buffer, rows: Array<{ body: string; priority: number }>) {
  const item = (body: string) => JSON.stringify({ secretHash: hashInboxSecret(hashKey, SECRET), body, headers: {} });
  await db.query('BEGIN');
  await db.query('LOCK TABLE webhook_inbox IN ACCESS EXCLUSIVE MODE');
  await db.query(
    `INSERT INTO webhook_inbox (key, item, priority)
     SELECT k, i::json, p FROM unnest($1::text[], $2::text[], $3::smallint[]) AS v(k, i, p)`,
    [rows.map((r) => inboxKey(r.body)), rows.map((r) => item(r.body)), rows.map((r) => r.priority)],
  );
  // the leader polls every 500 ms: by now its next look waits on the lock
  await sleep(700);
  const t0 = nowMs();
  await db.query('COMMIT');
  return t0;
}

async function empty(db: pg.Client): Promise<boolean> {
  return Number((await db.query('SELECT count(*) AS n FROM webhook_inbox')).rows[0].n) === 0;
}

async function postEach(url: string, bodies: readonly string[], inFlight = 1): Promise<void> {
  await runConcurrent(bodies.length, inFlight, async (i) => {
    const r = await send(url, bodies[i]!);
    if (r.status !== 200) throw new Error(`inbox bench: ${url.replace(SECRET, '…')} answered ${r.status}`);
  });
}

interface Round {
  rate: { value: number; baseline: number };
  behind: { value: number; baseline: number };
  story: { value: number; baseline: number };
}

/**
 * One round on a fresh database with fresh replicas, so no round inherits another's thousands
 * of stored junk alerts. Within it each baseline runs before its figure: whatever the earlier
 * steps leave behind (stored alerts, outbox work) weighs on the new drain, not on the baseline.
 */
async function round(base: string, r: number): Promise<Round> {
  const admin = new pg.Client({ connectionString: clusterUrl(base, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE bench_inbox_${r}`);
  await admin.end();
  const url = clusterUrl(base, `bench_inbox_${r}`);
  const fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
  const env = { DATABASE_URL: url, WEBHOOK_SECRET: SECRET };
  const apps: TestApp[] = [];
  const db = new pg.Client({ connectionString: url });
  // The standby's startTestApp resolves only once it leads, after the leader stops.
  let standbyStarting: Promise<TestApp> | undefined;
  try {
    const leader = await startTestApp({ env, fake });
    apps.push(leader);
    const port = await freePort();
    standbyStarting = startTestApp({ env: { ...env, PORT: String(port) }, fake });
    const standbyHook = `http://127.0.0.1:${port}/webhooks/wallet/${SECRET}`;
    const leaderHook = `${leader.app.url}/webhooks/wallet/${SECRET}`;
    await db.connect();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const key = await standbySecretsKey(pool, undefined);
    await pool.end();
    if (!key) throw new Error('inbox bench: the leader made no SECRETS_KEY');
    const hashKey = inboxHashKey(key);
    await waitFor('the standby to listen', async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 503;
      } catch {
        return false;
      }
    });
    // Warm-up, not measured: the parser and the ingestion compiled, as in a replica that has run a while.
    await commitRows(
      db,
      hashKey,
      junk(500).map((body) => ({ body, priority: 1 })),
    );
    await waitFor('the warm-up to drain', () => empty(db));
    await postEach(leaderHook, junk(100));

    // The old drain's way: one POST per row to the route, oldest first, the deposit last.
    const d1 = deposit();
    const o0 = nowMs();
    await postEach(leaderHook, junk(JUNK));
    const routeMs = nowMs() - o0;
    await postEach(leaderHook, [d1.body]);
    const oldDelay = (await waitFor('the deposit behind junk, old way', alertedIn(fake, d1.hash))) - o0;
    // The drain: 2,000 junk rows, then 2,000 more with a deposit committed after them.
    const t0 = await commitRows(
      db,
      hashKey,
      junk(JUNK).map((body) => ({ body, priority: 1 })),
    );
    const drainMs = (await waitFor('the inbox to empty', () => empty(db))) - t0;
    const d2 = deposit();
    const t1 = await commitRows(db, hashKey, [
      ...junk(JUNK).map((body) => ({ body, priority: 1 })),
      { body: d2.body, priority: 0 },
    ]);
    const newDelay = (await waitFor('the deposit behind junk', alertedIn(fake, d2.hash))) - t1;
    await waitFor('the inbox to empty', () => empty(db));

    // The story: straight at the leader, then through the standby.
    const d3 = deposit();
    await postEach(leaderHook, junk(JUNK), 8);
    const l0 = nowMs();
    await postEach(leaderHook, [d3.body]);
    const direct = (await waitFor('the deposit at the leader', alertedIn(fake, d3.hash))) - l0;
    const d4 = deposit();
    await postEach(standbyHook, junk(JUNK), 8);
    const s0 = nowMs();
    await postEach(standbyHook, [d4.body]);
    const viaStandby = (await waitFor('the deposit via the standby', alertedIn(fake, d4.hash))) - s0;
    return {
      rate: { value: (JUNK / drainMs) * 1000, baseline: (JUNK / routeMs) * 1000 },
      behind: { value: newDelay, baseline: oldDelay },
      story: { value: viaStandby, baseline: direct },
    };
  } finally {
    await db.end().catch(() => {});
    for (const a of apps.reverse()) await a.stop().catch(() => {});
    await (await standbyStarting?.catch(() => undefined))?.stop().catch(() => {});
    await fake.close();
  }
}

async function measure(base: string): Promise<BenchResult[]> {
  const rounds: Round[] = [];
  // Each round POSTs 2,000 bodies one by one (a baseline): three rounds unless BENCH_ROUNDS says fewer.
  for (let r = 0; r < Math.min(ROUNDS, 3); r++) rounds.push(await round(base, r));
  return [
    roundsResult({
      bench: 'inbox',
      case: `${JUNK} junk rows`,
      metric: 'drained in-process (baseline: one POST per row to the route)',
      unit: 'rows/s',
      better: 'higher',
      rounds: rounds.map((x) => x.rate),
    }),
    roundsResult({
      bench: 'inbox',
      case: `deposit behind ${JUNK} junk rows`,
      metric: 'inbox commit to alert (baseline: old drain, POST per row, oldest first)',
      unit: 'ms',
      better: 'lower',
      rounds: rounds.map((x) => x.behind),
    }),
    roundsResult({
      bench: 'inbox',
      case: `${JUNK} junk then a deposit`,
      metric: 'posted to the standby: ack to alert (baseline: posted to the leader)',
      unit: 'ms',
      better: 'lower',
      rounds: rounds.map((x) => x.story),
    }),
  ];
}

const bench: Bench = {
  name: 'inbox',
  description: "the standby's webhook inbox drained by the leader: rows/s, and a deposit behind 2,000 junk rows",
  async run(): Promise<BenchResult[]> {
    const bin = postgresBinDir();
    if (!bin) {
      console.error('  inbox: PostgreSQL is not installed; skipped');
      return [];
    }
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-inbox-'));
    // initdb refuses root: as root, the cluster belongs to `postgres` (as in test/pg-global-setup.ts).
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', base]);
    try {
      startCluster(bin, base);
      return await measure(base);
    } finally {
      try {
        runAsOwner(path.join(bin, 'pg_ctl'), ['-D', clusterPaths(base).data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // not started
      }
      fs.rmSync(base, { recursive: true, force: true });
    }
  },
};

export default bench;
