/**
 * Two replicas on one PostgreSQL database, in this process: A leads, B stands by (healthz 200,
 * readyz 503 {"role":"standby"}), a webhook posted to B goes into the inbox and is alerted once
 * by A; A stops, B takes over with the state (and the lease that gates wallet and Slack calls).
 * The SIGKILL/SIGSTOP failovers through real processes are not here yet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositSample, send, SECRET } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { FINANCE_GROUP, freePort, startTestApp, type TestApp, USERS } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { eventually } from '../helpers/replicas.js';

describe.skipIf(!pgAvailable)(`two replicas on PostgreSQL${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let url = '';
  const apps: TestApp[] = [];
  // One fake Slack for both replicas, outliving them: B must not lose its Slack when A stops.
  let fake: FakeSlack;
  beforeAll(async () => {
    url = await createTestDatabase('replica');
    fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
  }, 120_000);
  afterAll(async () => {
    for (const a of apps.reverse()) await a.stop().catch(() => {});
    await fake?.close();
  });

  it('a standby answers health, refuses readiness, takes webhooks for the leader, and takes over', async () => {
    const env = { DATABASE_URL: url, WEBHOOK_SECRET: SECRET };
    const a = await startTestApp({ env, fake });
    apps.push(a);
    expect((await fetch(`${a.app.url}/readyz`)).status).toBe(200);

    const port = await freePort();
    const bStarting = startTestApp({ env: { ...env, PORT: String(port) }, fake });
    const base = `http://127.0.0.1:${port}`;
    const r = await eventually(() => fetch(`${base}/readyz`));
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ role: 'standby' });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    // A webhook sent to the standby: acknowledged once stored, alerted once by the leader.
    const hash = `0x${'ab'.repeat(32)}`;
    const body = depositSample({ hash });
    const first = await send(`${base}/webhooks/wallet/${SECRET}`, body);
    expect(first).toEqual({ status: 200, body: { ok: true, duplicate: false } });
    const again = await send(`${base}/webhooks/wallet/${SECRET}`, body);
    expect(again).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect((await send(`${base}/webhooks/wallet/not-the-secret-0123456789abcdef`, body)).status).toBe(404);
    // the leader's bounds apply at the standby too: it never acknowledges a body the leader would refuse
    const huge = depositSample({ hash: `0x${'ef'.repeat(32)}`, amount: '"1e60000"' });
    expect((await send(`${base}/webhooks/wallet/${SECRET}`, huge)).status).toBe(400);
    expect((await send(`${a.app.url}/webhooks/wallet/${SECRET}`, huge)).status).toBe(400);
    const alerted = () => a.fake.calls('chat.postMessage').filter((c) => JSON.stringify(c.args).includes('150.25'));
    await until('the leader to alert the deposit taken by the standby', () => alerted().length > 0, 15_000);
    // the leader's own copy of the same notification is a duplicate
    expect((await send(`${a.app.url}/webhooks/wallet/${SECRET}`, body)).body).toEqual({ ok: true, duplicate: true });
    await new Promise((res) => setTimeout(res, 1_000));
    expect(alerted()).toHaveLength(1);

    // A stops (gives up the lock): B takes over with the same records and leads.
    const recordsBefore = a.app.deps.store.stats().records;
    const stopped = Date.now();
    await a.stop();
    apps.splice(apps.indexOf(a), 1);
    const b = await bStarting;
    apps.push(b);
    expect(Date.now() - stopped).toBeLessThan(5_000);
    expect(b.app.deps.store.stats().records).toBeGreaterThanOrEqual(recordsBefore);
    // (a kept-alive socket to the standby's server, closed at the takeover, may fail once: retried)
    const readyz = await eventually(() => fetch(`${b.app.url}/readyz`));
    expect(readyz.status).toBe(200);
    await new Promise((res) => setTimeout(res, 1_000));
    expect(alerted()).toHaveLength(1);
  }, 90_000);
});
