/**
 * The issue's story, end to end through two replicas on one PostgreSQL database: 2,000
 * distinct junk bodies with the valid secret, then one real deposit, all posted to the
 * standby. The leader drains in-process by priority, so the deposit is alerted within 2 s of
 * its acknowledgment (it took 19 s when every row was a loopback POST, oldest first). The
 * precise figures are the bench's (bench/inbox.bench.ts); here only the bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { depositSample, send, SECRET } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { FINANCE_GROUP, freePort, startTestApp, type TestApp, USERS } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { eventually } from '../helpers/replicas.js';

const JUNK = 2_000;

/** Posts every body, `width` at a time; each must be acknowledged. */
async function postAll(url: string, bodies: readonly string[], width = 8): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < bodies.length) {
        const r = await send(url, bodies[next++]!);
        if (r.status !== 200) throw new Error(`the standby answered ${r.status}: ${JSON.stringify(r.body)}`);
      }
    }),
  );
}

describe.skipIf(!pgAvailable)(
  `junk at a standby does not delay a real deposit${pgSkipReason ? ` (${pgSkipReason})` : ''}`,
  () => {
    let url = '';
    let fake: FakeSlack;
    const apps: TestApp[] = [];
    let standby: Promise<TestApp> | undefined;
    beforeAll(async () => {
      url = await createTestDatabase('inbox_flood');
      fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    }, 120_000);
    afterAll(async () => {
      for (const a of apps) await a.stop().catch(() => {});
      await (await standby?.catch(() => undefined))?.stop().catch(() => {});
      await fake?.close();
    }, 60_000);

    it('alerts a real deposit posted behind 2,000 junk bodies within 2 s, once', async () => {
      const env = { DATABASE_URL: url, WEBHOOK_SECRET: SECRET };
      const a = await startTestApp({ env, fake });
      apps.push(a);
      const port = await freePort();
      standby = startTestApp({ env: { ...env, PORT: String(port) }, fake });
      const base = `http://127.0.0.1:${port}`;
      expect((await eventually(() => fetch(`${base}/readyz`))).status).toBe(503);
      const hook = `${base}/webhooks/wallet/${SECRET}`;

      const junk = Array.from({ length: JUNK }, (_, i) => JSON.stringify({ note: 'not an event we know', n: i }));
      await postAll(hook, junk);
      const hash = `0x${'5e'.repeat(32)}`;
      const acked = Date.now();
      expect(await send(hook, depositSample({ hash }))).toEqual({ status: 200, body: { ok: true, duplicate: false } });
      const alerted = () => fake.calls('chat.postMessage').filter((c) => JSON.stringify(c.args).includes('150.25'));
      await until('the deposit to be alerted', () => alerted().length > 0, 15_000);
      const delay = Date.now() - acked;
      // The goal is 2 s on a 2-core machine; the bench measures it (a few hundred ms).
      expect(delay).toBeLessThan(2_000);

      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        let left = -1;
        for (let i = 0; i < 200 && left !== 0; i++) {
          left = Number((await db.query('SELECT count(*) AS n FROM webhook_inbox')).rows[0].n);
          if (left !== 0) await new Promise((r) => setTimeout(r, 100));
        }
        expect(left).toBe(0);
        // every junk body is stored once, as a notification of unknown shape (never posted one by one)
        const events = await db.query(
          "SELECT count(*) AS n FROM store_records WHERE collection = 'webhook_events' AND value->'event'->>'kind' = 'unknown'",
        );
        expect(Number(events.rows[0].n)).toBe(JUNK);
      } finally {
        await db.end();
      }
      await new Promise((r) => setTimeout(r, 500));
      expect(alerted()).toHaveLength(1);
    }, 120_000);
  },
);
