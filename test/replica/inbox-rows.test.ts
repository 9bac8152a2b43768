/**
 * What the standby writes into the inbox and how the leader drains it, with the standby's
 * module (src/replica/standby.ts) serving while no leader drains, so the rows can be read as a
 * `pg_dump` would find them:
 * - the standby refuses what the leader's route refuses, with the same status and words;
 * - no row holds the path secret (`item::text`), only its keyed hash; a known event is ranked
 *   ahead of junk; a delivery twice is one row;
 * - rows an older standby wrote with the secret in clear are hashed when a leader starts;
 * - a row acknowledged under a secret the leader no longer accepts (rotated out) is still alerted;
 * - the leader drains by priority (the deposit's event is stored in the first batch, ahead of
 *   most of the junk written before it), alerts each deposit once, stores each junk body once,
 *   and keeps a body it refuses, set aside with the reason.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createLogger } from '../../src/log.js';
import { DRAIN_BATCH, inboxKey } from '../../src/replica/inbox.js';
import { startStandby } from '../../src/replica/standby.js';
import type { HttpServer } from '../../src/http/server.js';
import { depositSample, send, SECRET } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { FINANCE_GROUP, startTestApp, type TestApp, USERS } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const JUNK = 2_000;
/** Accepted by the standby (a rotation's overlap), no longer by the leader that drains. */
const OLD_SECRET = 'whk_old_secret_rotated_out_0123456';

describe.skipIf(!pgAvailable)(`the inbox's rows${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let url = '';
  let fake: FakeSlack;
  let db: pg.Client;
  const apps: TestApp[] = [];
  let standby: HttpServer | undefined;
  let standbyLogs = '';
  beforeAll(async () => {
    url = await createTestDatabase('inbox_rows');
    fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    db = new pg.Client({ connectionString: url });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    for (const a of apps) await a.stop().catch(() => {});
    await standby?.close().catch(() => {});
    await db?.end();
    await fake?.close();
  }, 60_000);

  it('keeps no secret, ranks known events first, and drains them first; a refused row stays with its reason', async () => {
    const env = { DATABASE_URL: url, WEBHOOK_SECRET: SECRET };
    // A leader first: the schema, and the SECRETS_KEY it generates (local stand-in Slack) for the standby to read.
    const a = await startTestApp({ env, fake });
    apps.push(a);
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write(chunk, _e, cb) {
          standbyLogs += chunk.toString();
          cb();
        },
      }),
    });
    standby = await startStandby({
      url,
      port: 0,
      host: '127.0.0.1',
      logger,
      version: 'test',
      configuredSecrets: [SECRET, OLD_SECRET],
      secretKey: 'unused-here',
    });
    const leaderHook = `${a.app.url}/webhooks/wallet/${SECRET}`;
    const hook = `${standby.url}/webhooks/wallet/${SECRET}`;

    // The same refusals as the leader's route, status and words.
    const refused = [
      `${'['.repeat(100)}${']'.repeat(100)}`,
      '{"TransactionType":',
      JSON.stringify(Array.from({ length: 3_000 }, () => 0)),
      depositSample({ hash: `0x${'ef'.repeat(32)}`, amount: '"1e60000"' }),
    ];
    for (const body of refused) {
      const atLeader = await send(leaderHook, body);
      expect(atLeader.status).toBe(400);
      expect(await send(hook, body)).toEqual(atLeader);
    }
    const wrong = await send(`${standby.url}/webhooks/wallet/not-the-secret-0123456789abcdef`, depositSample());
    expect(wrong).toEqual(await send(`${a.app.url}/webhooks/wallet/not-the-secret-0123456789abcdef`, depositSample()));
    expect(wrong.status).toBe(404);
    expect(Number((await db.query('SELECT count(*) AS n FROM webhook_inbox')).rows[0].n)).toBe(0);

    // No leader from here: what the standby acknowledges stays in the inbox, as a dump finds it.
    await a.stop();
    apps.splice(0);
    for (let i = 0; i < JUNK; i++) {
      const r = await send(hook, JSON.stringify({ note: 'junk', n: i }));
      expect(r.status).toBe(200);
    }
    const hashX = `0x${'7a'.repeat(32)}`;
    const deposit = depositSample({ hash: hashX });
    expect(await send(hook, deposit)).toEqual({ status: 200, body: { ok: true, duplicate: false } });
    expect(await send(hook, deposit)).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    const hashZ = `0x${'7c'.repeat(32)}`;
    const rotated = depositSample({ hash: hashZ });
    expect((await send(`${standby.url}/webhooks/wallet/${OLD_SECRET}`, rotated)).status).toBe(200);

    const { rows } = await db.query<{ key: string; priority: number; item: string }>(
      'SELECT key, priority, item::text AS item FROM webhook_inbox ORDER BY seq',
    );
    expect(rows).toHaveLength(JUNK + 2);
    for (const r of rows) {
      expect(r.item).not.toContain(SECRET);
      expect(r.item).not.toContain(OLD_SECRET);
      expect(JSON.parse(r.item).secretHash).toMatch(/^v1:[0-9a-f]{64}$/);
    }
    expect(rows.find((r) => r.key === inboxKey(deposit))?.priority).toBe(0);
    expect(rows.filter((r) => r.priority === 1)).toHaveLength(JUNK);
    expect(standbyLogs).not.toContain(SECRET);
    expect(standbyLogs).not.toContain(OLD_SECRET);

    // Rows as an older standby wrote them (secret in clear): one deposit, one body this leader refuses.
    const hashY = `0x${'7b'.repeat(32)}`;
    const legacyDeposit = depositSample({ hash: hashY });
    const legacyBad = '{"TransactionType":1,"Data":';
    for (const body of [legacyDeposit, legacyBad]) {
      await db.query('INSERT INTO webhook_inbox (key, item) VALUES ($1, $2)', [
        inboxKey(body),
        JSON.stringify({ secret: SECRET, body, headers: {} }),
      ]);
    }

    const b = await startTestApp({ env, fake });
    apps.push(b);
    let left: Array<{ key: string; refused_at: Date | null; refusal: string | null; item: string }> = [];
    for (let i = 0; i < 300; i++) {
      left = (await db.query('SELECT key, refused_at, refusal, item::text AS item FROM webhook_inbox')).rows;
      if (left.length === 1 && left[0]!.refused_at) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(left).toHaveLength(1);
    expect(left[0]!.key).toBe(inboxKey(legacyBad));
    expect(left[0]!.refusal).toBe('400 body is not valid JSON');
    expect(left[0]!.item).not.toContain(SECRET);
    expect(JSON.parse(left[0]!.item).secretHash).toMatch(/^v1:[0-9a-f]{64}$/);

    // Drained by priority: the deposit's event went in the first batch, ahead of most of the junk.
    const events = (
      await db.query<{ ord: string; kind: string; hash: string | null }>(
        "SELECT ord, value->'event'->>'kind' AS kind, value->'event'->>'hash' AS hash FROM store_records WHERE collection = 'webhook_events'",
      )
    ).rows;
    const junkEvents = events.filter((e) => e.kind === 'unknown');
    expect(junkEvents).toHaveLength(JUNK);
    const x = events.find((e) => e.hash === hashX);
    expect(x).toBeDefined();
    const junkBefore = junkEvents.filter((e) => BigInt(e.ord) < BigInt(x!.ord)).length;
    expect(junkBefore).toBeLessThan(DRAIN_BATCH);

    const alerted = (h: string) =>
      fake.calls('chat.postMessage').filter((c) => JSON.stringify(c.args).includes(h.slice(2, 12)));
    // Z was acknowledged under a secret this leader no longer accepts: still alerted (valid when acknowledged).
    await until('the deposits to be alerted', () => [hashX, hashY, hashZ].every((h) => alerted(h).length > 0), 15_000);
    await new Promise((r) => setTimeout(r, 500));
    for (const h of [hashX, hashY, hashZ]) expect(alerted(h), h).toHaveLength(1);
    expect(b.logs()).toMatch(/"rotatedOut":1\b/);
    expect(b.logs()).toContain('refused by the leader');
  }, 180_000);
});
