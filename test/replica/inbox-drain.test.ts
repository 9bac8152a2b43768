/**
 * A webhook the standby acknowledged is alerted by the leader even when the leader drains it
 * after the signature's 5-minute tolerance (the leader's clock is set 6 minutes ahead here):
 * the standby checked the secret and the signature when it took it, and the drain must not
 * lose what was acknowledged to the service. A body the leader refuses stays in the inbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { signBody } from '../../src/alerts/signature.js';
import { depositSample, send, SECRET } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { FINANCE_GROUP, freePort, startTestApp, type TestApp, USERS } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { eventually } from '../helpers/replicas.js';

function signed(body: string, id: string): Record<string, string> {
  const ts = Math.floor(Date.now() / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signBody(SECRET, id, ts, body) };
}

describe.skipIf(!pgAvailable)(`the webhook inbox drained late${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let url = '';
  let fake: FakeSlack;
  let leader: TestApp | undefined;
  let standby: Promise<TestApp> | undefined;
  beforeAll(async () => {
    url = await createTestDatabase('inbox_late');
    fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
  }, 120_000);
  afterAll(async () => {
    await leader?.stop().catch(() => {});
    await (await standby?.catch(() => undefined))?.stop().catch(() => {});
    await fake?.close();
  }, 60_000);

  it('alerts a signed webhook the standby took, drained past the signature tolerance', async () => {
    const env = { DATABASE_URL: url, WEBHOOK_SECRET: SECRET, WEBHOOK_SIGNATURE: 'required' };
    // the leader lives 6 minutes ahead: every notification it drains is "late" by its clock
    const a = await startTestApp({ env, fake, now: () => Date.now() + 6 * 60_000 });
    leader = a;
    const port = await freePort();
    standby = startTestApp({ env: { ...env, PORT: String(port) }, fake });
    const base = `http://127.0.0.1:${port}`;
    expect((await eventually(() => fetch(`${base}/readyz`))).status).toBe(503);

    const body = depositSample({ hash: `0x${'cd'.repeat(32)}` });
    expect(await send(`${base}/webhooks/wallet/${SECRET}`, body, signed(body, 'msg_late_1'))).toEqual({
      status: 200,
      body: { ok: true, duplicate: false },
    });
    // sent straight to the leader, the same signature is out of its tolerance: the drain is what differs
    expect((await send(`${a.app.url}/webhooks/wallet/${SECRET}`, body, signed(body, 'msg_late_2'))).status).toBe(401);

    const alerted = () => fake.calls('chat.postMessage').filter((c) => JSON.stringify(c.args).includes('150.25'));
    await until('the leader to alert the deposit the standby took', () => alerted().length > 0, 15_000).catch((e) => {
      console.log(
        a
          .logs()
          .split('\n')
          .filter((l) => /inbox|webhook/.test(l))
          .join('\n'),
      );
      throw e;
    });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      let left = -1;
      for (let i = 0; i < 100 && left !== 0; i++) {
        left = (await db.query('SELECT 1 FROM webhook_inbox')).rowCount ?? -1;
        if (left !== 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(left).toBe(0);
    } finally {
      await db.end();
    }
    await new Promise((r) => setTimeout(r, 800));
    expect(alerted()).toHaveLength(1);
  }, 90_000);
});
