/**
 * The App Home's balances never lag `/treasury balances` after a deposit: a reading older than
 * the last movement the app knows of (a deposit alert, a withdrawal sent) is read again.
 * Through the real app: a sandbox deposit notified by webhook, the Home opened by signed events.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventCallback, sendToBolt } from '../helpers/slack-requests.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { ALERT_COLLECTIONS } from '../../src/alerts/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  t.app.sandbox!.setBalance('fresh@client.example', 'USDT', 'BSC', '10');
});
afterAll(async () => {
  await t?.stop();
});

const homes = (user: string) => t.fake.calls('views.publish').filter((c) => c.args.user_id === user);

async function usdtOnBsc(user: string): Promise<string> {
  const before = homes(user).length;
  await sendToBolt(
    t.app.url,
    t.signingSecret,
    eventCallback({ event: { type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' } }),
  );
  const call = await until('the Home', () => homes(user)[before]);
  const line = visibleText(call.args.view as { blocks: unknown })
    .split('\n')
    .find((l) => l.startsWith('• *USDT* on BSC:'));
  return line ?? '';
}

it('after a deposit, the Home shows the balance /treasury balances shows, not the reading from before it', async () => {
  const first = await usdtOnBsc(USERS.bob);
  expect(first).toMatch(/^• \*USDT\* on BSC: [\d,.]+ USDT( · ≈ \$[\d,.]+)?$/);
  const tx = await t.app.sandbox!.deposit({
    to: 'fresh@client.example',
    amount: '1234.5',
    currency: 'USDT',
    network: 'BSC',
  });
  // Credited when it confirms; the app's alert says so once the wallet's history shows it.
  await until(
    'the deposit confirmed',
    () =>
      t.app.deps.store.find(
        ALERT_COLLECTIONS.alerts,
        (a) => a.hash === tx.transactionHash && a.status === 'CONFIRMED' && a.verification.state === 'confirmed',
      )[0],
  );
  const after = await usdtOnBsc(USERS.bob);
  const n = (s: string) =>
    Number(
      s
        .replace(/^.*: /, '')
        .replace(/ USDT.*$/, '')
        .replace(/,/g, ''),
    );
  expect(n(after) - n(first)).toBeCloseTo(1234.5, 2);
  const { responseUrl } = await t.command('/treasury', 'balances', USERS.viewer);
  const [reply] = await t.replies(responseUrl);
  expect(visibleText(reply as { blocks: unknown })).toContain(after.replace(/^• /, ''));
});
