/**
 * Escalation of requests short of approvals (issue 39), through the real app: signed commands in,
 * the recording fake Slack out, a clock the test moves, the job run on demand. At escalate_after
 * the approvers still needed are DMed once (several requests in one message, nobody away); at
 * twice it the escalation channel is told what each waits on and who is away; nobody gets more
 * than one reminder per 4 hours; every step is audited and none is repeated after a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import { startFakeSlack } from '../helpers/fake-slack.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const ESCALATION = 'C0ESCALATE';
const JOB = 'escalations.dm-and-post';
const MIN = 60_000;
const { alice, carol, dave, erin } = USERS;

const policy = parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts}, escalation: ${ESCALATION} }
people:
  requesters: [${alice}]
  approvers: [${carol}, ${dave}, ${erin}]
  admins: [${erin}]
withdrawals:
  expires_after: 8h
  escalate_after: 1h
  tiers:
    default:
      - { max: 1000, approvals: 1 }
      - { max: 10000, approvals: 2 }
      - { approvals: 3, must_include: [${erin}] }
`);

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const escalationDms = (a: TestApp, user: string) =>
  a.fake
    .channel(a.fake.dmChannel(user))
    .map((m) => m.text ?? '')
    .filter((t) => /wait(s)? for your approval/.test(t));

describe('escalation', () => {
  it('DMs the approvers still needed once at escalate_after, posts at twice it, at most one reminder per person per 4 hours, across a restart', async () => {
    const fake = await startFakeSlack();
    const dataDir = mkdtempSync(join(tmpdir(), 'escalation-'));
    cleanup.push(
      () => fake.close(),
      () => rmSync(dataDir, { recursive: true, force: true }),
    );
    let offset = 0;
    const start = async () => {
      const a = await startTestApp({ fake, dataDir, policy, now: () => Date.now() + offset });
      a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
      return a;
    };
    let a = await start();
    let running = true;
    cleanup.unshift(async () => {
      if (running) await a.stop();
    });
    const at = async (minutes: number) => {
      offset = minutes * MIN;
      await a.app.deps.scheduler.runNow(JOB);
      await a.app.deps.outbox.drain(5000);
    };
    const request = async (amount: string) => {
      await a.command('/withdraw', `${amount} USDT BSC ${DEST} ${CLIENT} invoice`, alice);
      return until('the request', () => a.app.deps.withdrawals.list().find((r) => r.amount === amount));
    };
    const audit = (action: string) => a.app.deps.store.all(AUDIT_COLLECTION).filter((e) => e.action === action);

    // Erin is away without a delegate: she is not DMed, and the post says so.
    const { responseUrl } = await a.command('/treasury', 'away until 3d', erin);
    await a.replies(responseUrl);
    const first = await request('5000');
    offset = 10 * MIN;
    const second = await request('6000');

    await at(59);
    expect(escalationDms(a, carol)).toEqual([]);

    // Both due (60 and 70 min): one DM each to Carol and Dave listing both; none to Erin (away).
    await at(70);
    for (const u of [carol, dave]) {
      const dms = escalationDms(a, u);
      expect(dms, u).toHaveLength(1);
      expect(dms[0]).toContain('2 withdrawal requests wait for your approval');
      expect(dms[0]).toContain('5,000.00 USDT');
      expect(dms[0]).toContain('6,000.00 USDT');
    }
    expect(escalationDms(a, erin)).toEqual([]);
    expect(
      audit('escalate_dm')
        .map((e) => e.subject)
        .sort(),
    ).toEqual([carol, dave].sort());
    expect(fake.channel(ESCALATION)).toEqual([]);

    // A restart: the marks hold, nothing is sent twice.
    await a.stop();
    running = false;
    a = await start();
    running = true;
    await at(75);
    for (const u of [carol, dave]) expect(escalationDms(a, u), u).toHaveLength(1);

    // A third request; its DM comes due at 141 min, but Carol and Dave were reminded at 70: not before 310.
    offset = 81 * MIN;
    const third = await request('7000');
    await at(119);
    expect(fake.channel(ESCALATION)).toEqual([]);
    // Twice the time for the first two (120, 130): one post naming both, what they wait on, and who is away.
    await at(130);
    const posts = fake.channel(ESCALATION).map((m) => visibleText(m));
    expect(posts).toHaveLength(1);
    expect(posts[0]).toContain('2 withdrawal requests are still short of approvals');
    expect(posts[0]).toMatch(new RegExp(`<@${erin}> is away until [^;]*\\(nobody stands in\\)`));
    expect(
      audit('escalate_post')
        .map((e) => e.subject)
        .sort(),
    ).toEqual([first.id, second.id].sort());
    await at(145);
    for (const u of [carol, dave]) expect(escalationDms(a, u), u).toHaveLength(1);
    await at(305);
    for (const u of [carol, dave]) expect(escalationDms(a, u), u).toHaveLength(1);
    expect(audit('escalate_post').map((e) => e.subject)).toContain(third.id);
    // Past the 4 hours: the third request, alone.
    await at(311);
    for (const u of [carol, dave]) {
      const dms = escalationDms(a, u);
      expect(dms, u).toHaveLength(2);
      expect(dms[1]).toContain('A withdrawal request waits for your approval');
      expect(dms[1]).toContain('7,000.00 USDT');
      expect(dms[1]).not.toContain('5,000.00 USDT');
    }
    // Its post, due at 81 + 120 = 201 min, went with the first run after (305), once: a channel is no person.
    expect(fake.channel(ESCALATION)).toHaveLength(2);
    expect(visibleText(fake.channel(ESCALATION)[1]!)).toContain('7,000.00 USDT');
    // Erin's away state lived through the restart (it is in the store): still not DMed, still named away.
    expect(escalationDms(a, erin)).toEqual([]);
    expect(visibleText(fake.channel(ESCALATION)[1]!)).toContain(`<@${erin}> is away until`);
    expect(audit('escalate_post').map((e) => e.subject)).toContain(third.id);
  }, 90_000);

  it('without channels.escalation, the admins are told by DM, within their own 4 hours', async () => {
    let offset = 0;
    const a = await startTestApp({
      policy: parsePolicy(
        `
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people: { requesters: [${alice}], approvers: [${carol}, ${dave}], admins: [${erin}] }
withdrawals:
  expires_after: 8h
  escalate_after: 30m
  tiers: { default: [{ approvals: 2 }] }
`,
      ),
      now: () => Date.now() + offset,
    });
    cleanup.push(() => a.stop());
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
    await a.command('/withdraw', `500 USDT BSC ${DEST} ${CLIENT} invoice`, alice);
    await until('the request', () => a.app.deps.withdrawals.list()[0]);
    const run = async (minutes: number) => {
      offset = minutes * MIN;
      await a.app.deps.scheduler.runNow(JOB);
      await a.app.deps.outbox.drain(5000);
    };
    const erins = () =>
      a.fake
        .channel(a.fake.dmChannel(erin))
        .map((m) => m.text ?? '')
        .filter((t) => t.startsWith('📣 Escalation'));
    await run(45);
    expect(erins()).toEqual([]);
    await run(61);
    expect(erins()).toHaveLength(1);
    expect(erins()[0]).toContain('a withdrawal request is still short of approvals');
    expect(erins()[0]).toContain('Needs 2 more of');
  }, 60_000);

  it('without channels.escalation, an admin who is away is not DMed; the others are', async () => {
    let offset = 0;
    const { bob } = USERS;
    const a = await startTestApp({
      policy: parsePolicy(
        `
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people: { requesters: [${alice}], approvers: [${carol}, ${dave}], admins: [${erin}, ${bob}] }
withdrawals:
  expires_after: 8h
  escalate_after: 30m
  tiers: { default: [{ approvals: 2 }] }
`,
      ),
      now: () => Date.now() + offset,
    });
    cleanup.push(() => a.stop());
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
    const { responseUrl } = await a.command('/treasury', 'away until 3d', erin);
    expect(visibleText((await a.replies(responseUrl))[0]!)).toContain('You are away until');
    await a.command('/withdraw', `500 USDT BSC ${DEST} ${CLIENT} invoice`, alice);
    await until('the request', () => a.app.deps.withdrawals.list()[0]);
    offset = 61 * MIN;
    await a.app.deps.scheduler.runNow(JOB);
    await a.app.deps.outbox.drain(5000);
    const escalations = (user: string) =>
      a.fake
        .channel(a.fake.dmChannel(user))
        .map((m) => m.text ?? '')
        .filter((t) => t.startsWith('📣 Escalation'));
    expect(escalations(erin)).toEqual([]);
    expect(escalations(bob)).toHaveLength(1);
  }, 60_000);
});
