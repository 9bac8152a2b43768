import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCallback, sendToBolt } from '../helpers/slack-requests.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  t.app.sandbox!.setBalance('home@client.example', 'USDT', 'BSC', '1000');
});
afterAll(async () => {
  await t?.stop();
});

async function openHome(user: string) {
  const res = await sendToBolt(t.app.url, t.signingSecret, eventCallback({ event: { type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' } }));
  expect(res.status).toBe(200);
  const call = await t.fake.waitFor('views.publish', (c) => c.args.user_id === user);
  return visibleText(call.args.view as { blocks: unknown });
}

describe('App Home', () => {
  it('shows the commands, and for an approver what is waiting for them', async () => {
    const { responseUrl } = await t.command('/withdraw', '25 USDT BSC 0x4444444444444444444444444444444444444444 home@client.example', USERS.alice);
    await t.replies(responseUrl);
    const approver = await openHome(USERS.carol);
    expect(approver).toContain('/address <client-email> <currency> <network>');
    expect(approver).toContain('*Waiting for your approval* (1)');
    expect(approver).toContain('25 USDT on BSC');
    const requester = await openHome(USERS.alice);
    expect(requester).toContain('*Pending approvals*: 1');
    expect(requester).toMatch(/\*Your latest requests\*\n• 25 USDT on BSC .* \*pending\*/);
  });
});
