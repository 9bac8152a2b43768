/**
 * Failover through real processes (src/main.ts, HTTP mode, one PostgreSQL database): A leads,
 * B stands by. A webhook acknowledged by A, then A SIGKILLed: B is ready within 5 s, the alert
 * is posted once, the audit chain verifies, and webhooks posted to B after the takeover are
 * alerted once; a second standby stops on the first SIGTERM. The SIGSTOP variant: A frozen, B takes over, A resumed makes no Slack call and exits.
 * The withdrawal money steps are driven in failover-money.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/audit/log.js';
import { openPgStore } from '../../src/store/pg/index.js';
import { depositSample, send } from '../alerts/setup.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { killReplicas, type ReplicaProcess, spawnReplica, status, waitStatus } from '../helpers/replica-process.js';
import { TEST_POLICY_YAML } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const SECRET = 'wh_failover_secret_0123456789abc';
const dir = mkdtempSync(path.join(tmpdir(), 'treasury-failover-'));
const policyFile = path.join(dir, 'policy.yml');
writeFileSync(policyFile, TEST_POLICY_YAML);

type Replica = ReplicaProcess;

const replica = (databaseUrl: string, fake: FakeSlack): Promise<Replica> =>
  spawnReplica({ databaseUrl, slackApiUrl: fake.url, dataDir: dir, policyFile, webhookSecret: SECRET });

const alertsOf = (fake: FakeSlack, amount: string) =>
  fake.calls('chat.postMessage').filter((c) => !c.args.thread_ts && JSON.stringify(c.args).includes(amount));

describe.skipIf(!pgAvailable)(`failover through real processes${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterEach(killReplicas);
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL of the leader: the standby is ready within 5 s, every acknowledged webhook alerted once', async () => {
    const db = await createTestDatabase('failover');
    const a = await replica(db, fake);
    await waitStatus(a, '/readyz', 200, 40_000);
    const b = await replica(db, fake);
    const other = await replica(db, fake);
    await waitStatus(b, '/healthz', 200, 40_000);
    expect(await status(`${b.url}/readyz`)).toBe(503);

    // a standby stops on the first SIGTERM (it does not wait for the lead to stop it)
    await waitStatus(other, '/healthz', 200, 40_000);
    const termAt = Date.now();
    const code = new Promise<number | null>((res) => other.child.once('exit', (c) => res(c)));
    other.child.kill('SIGTERM');
    expect(await code).toBe(0);
    expect(Date.now() - termAt).toBeLessThan(3_000);
    expect(other.out()).toMatch(/stopped/);

    // acknowledged by A, then A dies at once (its alert may or may not be out)
    const one = await send(
      `${a.url}/webhooks/wallet/${SECRET}`,
      depositSample({ hash: `0x${'a1'.repeat(32)}`, amount: '111.11' }),
    );
    expect(one.status).toBe(200);
    // acknowledged by the standby while A leads
    const two = await send(
      `${b.url}/webhooks/wallet/${SECRET}`,
      depositSample({ hash: `0x${'b2'.repeat(32)}`, amount: '222.22' }),
    );
    expect(two.status).toBe(200);
    a.child.kill('SIGKILL');
    const tookMs = await waitStatus(b, '/readyz', 200, 5_000);
    expect(tookMs).toBeLessThan(5_000);
    const three = await send(
      `${b.url}/webhooks/wallet/${SECRET}`,
      depositSample({ hash: `0x${'c3'.repeat(32)}`, amount: '333.33' }),
    );
    expect(three.status).toBe(200);
    for (const amount of ['111.11', '222.22', '333.33'])
      await until(`the ${amount} alert`, () => alertsOf(fake, amount).length > 0, 15_000);
    await new Promise((res) => setTimeout(res, 1_500));
    for (const amount of ['111.11', '222.22', '333.33']) expect(alertsOf(fake, amount), amount).toHaveLength(1);

    b.child.kill('SIGTERM');
    await new Promise((res) => b.child.once('close', res));
    const { store } = await openPgStore({ url: db });
    try {
      expect(verifyAudit(store).ok).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('SIGSTOP of the leader: the standby takes over; the frozen one, resumed, posts nothing and exits', async () => {
    const db = await createTestDatabase('failover');
    const a = await replica(db, fake);
    await waitStatus(a, '/readyz', 200, 40_000);
    const b = await replica(db, fake);
    await waitStatus(b, '/healthz', 200, 40_000);
    a.child.kill('SIGSTOP');
    await waitStatus(b, '/readyz', 200, 10_000);
    const before = fake.calls('chat.postMessage').length;
    const exited = new Promise<number | null>((res) => a.child.once('exit', (code) => res(code)));
    a.child.kill('SIGCONT');
    expect(await exited).toBe(70);
    expect(a.out()).toMatch(/no longer leads/);
    // the only posts since are B's own (none queued by A: it had none to make)
    expect(fake.calls('chat.postMessage').length).toBe(before);
  }, 120_000);
});
