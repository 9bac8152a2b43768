/**
 * Low-balance alerts, the whole app: the job `balances.watch-low` posts to the alerts channel
 * once when a balance falls below `alerts.low_balance`, nothing while it stays low, once when it
 * recovers, and a restart on the same data directory repeats nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { CHANNELS, startTestApp, TEST_POLICY_YAML, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const policy = parsePolicy(`${TEST_POLICY_YAML}  low_balance: { USDT: 1000 }\n`);

let t: TestApp | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.stop();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const alertTexts = (a: TestApp) => a.fake.channel(CHANNELS.alerts).map((m) => m.text ?? '');
const balanceAlerts = (a: TestApp) => alertTexts(a).filter((x) => /balance/i.test(x));

/** The job once more, after any run already in progress (the one at start, for instance). */
async function watch(a: TestApp): Promise<void> {
  await a.app.deps.scheduler.runNow('balances.watch-low');
  await a.app.deps.scheduler.runNow('balances.watch-low');
  await a.app.deps.outbox.drain(5000);
}

describe('low-balance alerts', () => {
  it('one alert on falling, none while low, one on recovery, none repeated after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'treasury-low-'));
    dirs.push(dataDir);
    t = await startTestApp({ policy, dataDir, sandbox: { seed: false } });
    const sb = t.app.sandbox!;
    sb.setBalance(CLIENT, 'USDT', 'BSC', '5000');
    sb.setBalance(CLIENT, 'ETH', 'ETH', '0.5'); // no threshold for ETH: never alerted
    await watch(t);
    expect(balanceAlerts(t)).toEqual([]);

    sb.setBalance(CLIENT, 'USDT', 'BSC', '850');
    await watch(t);
    await until('the low-balance alert', () => balanceAlerts(t!).length === 1);
    expect(balanceAlerts(t)).toEqual(['⚠️ Low balance: USDT on BSC is 850.00 (below 1,000.00)']);

    sb.setBalance(CLIENT, 'USDT', 'BSC', '700');
    await watch(t);
    await watch(t);
    expect(balanceAlerts(t)).toHaveLength(1);

    sb.setBalance(CLIENT, 'USDT', 'BSC', '5000');
    await watch(t);
    await until('the recovery alert', () => balanceAlerts(t!).length === 2);
    expect(balanceAlerts(t)[1]).toBe('✅ Balance recovered: USDT on BSC is 5,000.00 (threshold 1,000.00)');

    sb.setBalance(CLIENT, 'USDT', 'BSC', '10');
    await watch(t);
    await until('the second low alert', () => balanceAlerts(t!).length === 3);

    // A restart (a new sandbox, the same data directory): still low, so nothing is said again.
    const fake = t.fake;
    await t.app.stop();
    t = await startTestApp({ policy, dataDir, fake, sandbox: { seed: false } });
    t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '10');
    await watch(t);
    expect(balanceAlerts(t)).toHaveLength(3);
    await t.stop();
    await fake.close();
    t = undefined;
  });

  it('a balance that cannot be read says nothing and changes nothing', async () => {
    t = await startTestApp({ policy, sandbox: { seed: false } });
    const sb = t.app.sandbox!;
    sb.setBalance(CLIENT, 'USDT', 'BSC', '10');
    await watch(t);
    await until('the low-balance alert', () => balanceAlerts(t!).length === 1);
    sb.injectFault('/api/v1/walletBalance', { kind: 'status', status: 503 }, 100);
    sb.setBalance(CLIENT, 'USDT', 'BSC', '5000');
    await watch(t);
    expect(balanceAlerts(t)).toHaveLength(1);
    sb.clearFaults();
    await watch(t);
    await until('the recovery alert', () => balanceAlerts(t!).length === 2);
  });

  it('a withdrawal that takes the balance below the threshold is followed by the alert, without waiting for the job', async () => {
    t = await startTestApp({ policy, sandbox: { seed: false } });
    const sb = t.app.sandbox!;
    sb.setBalance(CLIENT, 'USDT', 'BSC', '1100');
    await watch(t);
    const { responseUrl } = await t.command(
      '/withdraw',
      `500 USDT BSC 0x2222222222222222222222222222222222222222 ${CLIENT}`,
      USERS.alice,
    );
    await t.replies(responseUrl);
    const r = t.app.deps.withdrawals.list()[0]!;
    const card = await until('the card', () => t!.fake.channel(CHANNELS.approvals)[0]);
    await t.click(
      USERS.carol,
      { actionId: 'wd_approve', value: r.id },
      { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
    );
    await until('sent', () => t!.app.deps.withdrawals.get(r.id)?.state === 'completed');
    // 1100 - 500 - the sandbox's fee of 1
    await until('the low-balance alert', () =>
      balanceAlerts(t!).includes('⚠️ Low balance: USDT on BSC is 599.00 (below 1,000.00)'),
    );
  });
});
