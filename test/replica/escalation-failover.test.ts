/**
 * Escalation and away states across a failover (issue 39), on PostgreSQL: replica A leads and DMs
 * the approvers still needed; A stops and B, standing by, takes the lead from the database's rows.
 * B sends none of A's DMs again, still knows who is away (no DM to them, named in the post), and
 * posts the escalation once when its time comes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { eventually } from '../helpers/replicas.js';
import { CHANNELS, freePort, startTestApp, type TestApp, USERS, visibleText } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const ESCALATION = 'C0ESCALATE';
const JOB = 'escalations.dm-and-post';
const MIN = 60_000;
const { alice, carol, dave, erin } = USERS;
const policy = parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts}, escalation: ${ESCALATION} }
people: { requesters: [${alice}], approvers: [${carol}, ${dave}, ${erin}], admins: [${erin}] }
withdrawals:
  expires_after: 8h
  escalate_after: 1h
  tiers: { default: [{ max: 1000, approvals: 1 }, { max: 10000, approvals: 2 }, { approvals: 3 }] }
`);

describe.skipIf(!pgAvailable)(`escalation across a failover${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let url = '';
  let fake: FakeSlack;
  const apps: Array<TestApp | Promise<TestApp>> = [];
  beforeAll(async () => {
    url = await createTestDatabase('escalation_failover');
    fake = await startFakeSlack();
  }, 120_000);
  afterAll(async () => {
    for (const a of apps.reverse()) await (await Promise.resolve(a).catch(() => undefined))?.stop().catch(() => {});
    await fake?.close();
  }, 60_000);

  it('the new leader sends none of the old one’s DMs again, knows who is away, and posts once', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    const env = { DATABASE_URL: url };
    const a = await startTestApp({ env, fake, policy, now });
    apps.push(a);
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
    const port = await freePort();
    const standby = startTestApp({ env: { ...env, PORT: String(port) }, fake, policy, now });
    apps.push(standby);
    expect((await eventually(() => fetch(`http://127.0.0.1:${port}/readyz`))).status).toBe(503);

    const { responseUrl } = await a.command('/treasury', 'away until 3d', erin);
    await a.replies(responseUrl);
    await a.command('/withdraw', `5000 USDT BSC ${DEST} ${CLIENT} invoice`, alice);
    const r = await until('the request', () => a.app.deps.withdrawals.list()[0]);
    const dms = (user: string) =>
      fake
        .channel(fake.dmChannel(user))
        .map((m) => m.text ?? '')
        .filter((t) => t.includes('waits for your approval'));

    offset = 70 * MIN;
    await a.app.deps.scheduler.runNow(JOB);
    await a.app.deps.outbox.drain(5000);
    expect(dms(carol)).toHaveLength(1);
    expect(dms(dave)).toHaveLength(1);
    expect(dms(erin)).toEqual([]);

    // A hands over: B leads from the rows A wrote.
    await a.stop();
    const b = await standby;
    offset = 75 * MIN;
    await b.app.deps.scheduler.runNow(JOB);
    await b.app.deps.outbox.drain(5000);
    for (const u of [carol, dave]) expect(dms(u), u).toHaveLength(1);
    expect(dms(erin)).toEqual([]);

    offset = 125 * MIN;
    await b.app.deps.scheduler.runNow(JOB);
    await b.app.deps.outbox.drain(5000);
    await b.app.deps.scheduler.runNow(JOB);
    await b.app.deps.outbox.drain(5000);
    const posts = fake.channel(ESCALATION).map((m) => visibleText(m));
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatch(new RegExp(`<@${erin}> is away until [^;]*\\(nobody stands in\\)`));
    const audit = b.app.deps.store.all(AUDIT_COLLECTION);
    expect(audit.filter((e) => e.action === 'escalate_dm')).toHaveLength(2);
    expect(audit.filter((e) => e.action === 'escalate_post').map((e) => e.subject)).toEqual([r.id]);
  }, 120_000);
});
