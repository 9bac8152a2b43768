/**
 * The approvers' reminder DM: once 75% of a request's time to expiry has passed, each approver
 * it still needs gets one DM, through the outbox; never twice, not even across a restart on the
 * same data directory. Through the real app: signed commands and clicks in, the fake Slack out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import { APPROVER_REMINDERS } from '../../src/withdrawals/reminders.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import {
  CHANNELS,
  FINANCE_GROUP,
  startTestApp,
  TEST_POLICY_YAML,
  USERS,
  type TestApp,
} from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'remind@client.example';
const DEST = '0x4444444444444444444444444444444444444444';
const JOB = 'approvers.remind-by-dm';
const MIN = 60_000;

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const reminders = (fake: FakeSlack, user: string) =>
  fake
    .channel(fake.dmChannel(user))
    .map((m) => m.text ?? '')
    .filter((t) => t.startsWith('⏰ Reminder'));

describe('the reminder DM to approvers still needed', () => {
  it('goes once to each approver still needed past 75% of the expiry, names what is missing, and never twice across a restart', async () => {
    const fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    const dataDir = mkdtempSync(join(tmpdir(), 'reminders-'));
    cleanup.push(
      () => fake.close(),
      () => rmSync(dataDir, { recursive: true, force: true }),
    );
    let offset = 0;
    const now = () => Date.now() + offset;
    // Approvers: Carol, Dave, Erin and a group; three approvals, Erin's among them.
    // The 75% reminder alone: escalation (issue 39) only after the expiry.
    const policy = parsePolicy(
      TEST_POLICY_YAML.replace(
        `approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]`,
        `approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}, ${FINANCE_GROUP}]`,
      ).replace('  expires_after: 2h\n', '  expires_after: 2h\n  escalate_after: 2h\n'),
    );
    const start = async () => {
      const a = await startTestApp({ fake, dataDir, now, policy });
      a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
      return a;
    };
    let a: TestApp = await start();
    let stopped = false;
    cleanup.unshift(async () => {
      if (!stopped) await a.stop();
    });

    await a.command('/withdraw', `20000 USDT BSC ${DEST} ${CLIENT} supplier run`, USERS.alice);
    const r = await until('the request', () => a.app.deps.withdrawals.list()[0]);
    const ts = await until('the card', () => a.app.deps.outbox.message(`withdrawal:${r.id}`)?.ts);
    await a.click(
      USERS.carol,
      { actionId: ACTIONS.approve, value: r.id },
      { channel: CHANNELS.approvals, message: { ts } },
    );
    await until('Carol approved', () => a.app.deps.withdrawals.get(r.id)!.approvals.length === 1);

    // At 70% of the 2 h: nothing yet.
    offset = 84 * MIN;
    await a.app.deps.scheduler.runNow(JOB);
    expect(a.app.deps.store.all(APPROVER_REMINDERS)).toEqual([]);

    // Past 75%: Dave, Erin and the group's member, each once; not Carol (approved), not Alice (requester).
    offset = 91 * MIN;
    await a.app.deps.scheduler.runNow(JOB);
    await a.app.deps.outbox.drain(5000);
    for (const u of [USERS.dave, USERS.erin, USERS.groupMember]) expect(reminders(fake, u), u).toHaveLength(1);
    expect(reminders(fake, USERS.carol)).toEqual([]);
    expect(reminders(fake, USERS.alice)).toEqual([]);
    const dm = reminders(fake, USERS.dave)[0]!;
    expect(dm).toContain(`⏰ Reminder · *20,000.00 USDT* on BSC to \`0x4444…4444\`, requested by <@${USERS.alice}>`);
    expect(dm).toMatch(/\((28|29) min left\)/);
    expect(dm).toContain(
      `Needs 2 more of <@${USERS.dave}>, <@${USERS.erin}> or <!subteam^${FINANCE_GROUP}>; must include <@${USERS.erin}>.`,
    );
    expect(dm).toContain('Open the card');
    const marks = a.app.deps.store.all(APPROVER_REMINDERS);
    expect(marks).toHaveLength(1);
    expect([...marks[0]!.users].sort()).toEqual([USERS.dave, USERS.erin, USERS.groupMember].sort());
    expect(
      a.app.deps.store.all(AUDIT_COLLECTION).filter((e) => e.action === 'remind' && e.details.via === 'dm'),
    ).toHaveLength(1);

    // Again in the same process: nothing more.
    offset = 100 * MIN;
    await a.app.deps.scheduler.runNow(JOB);
    await a.app.deps.outbox.drain(5000);

    // A restart on the same data: the job runs at start and again on demand; the mark holds.
    await a.stop();
    stopped = true;
    a = await start();
    stopped = false;
    await a.app.deps.scheduler.runNow(JOB);
    await a.app.deps.outbox.drain(5000);
    for (const u of [USERS.dave, USERS.erin, USERS.groupMember]) expect(reminders(fake, u), u).toHaveLength(1);
    expect(a.app.deps.store.all(APPROVER_REMINDERS)).toHaveLength(1);
  }, 60_000);

  it('sends nothing for a request decided before its DM went out', async () => {
    let offset = 0;
    const a = await startTestApp({ now: () => Date.now() + offset });
    cleanup.push(() => a.stop());
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
    await a.command('/withdraw', `30 USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
    const r = await until('the request', () => a.app.deps.withdrawals.list()[0]);
    await a.app.deps.withdrawals.reject(r.id, USERS.dave, 'not ours');
    offset = 100 * MIN;
    await a.app.deps.scheduler.runNow(JOB);
    await a.app.deps.outbox.drain(5000);
    expect(a.app.deps.store.all(APPROVER_REMINDERS)).toEqual([]);
    for (const u of [USERS.carol, USERS.dave, USERS.erin]) expect(reminders(a.fake, u)).toEqual([]);
  });
});
