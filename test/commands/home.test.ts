import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCallback, sendToBolt } from '../helpers/slack-requests.js';
import { SLACK_IDS } from '../helpers/slack-ids.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { ALERT_COLLECTIONS } from '../../src/alerts/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  t.app.sandbox!.setBalance('home@client.example', 'USDT', 'BSC', '1000');
});
afterAll(async () => {
  await t?.stop();
});

async function openHome(user: string) {
  const res = await sendToBolt(
    t.app.url,
    t.signingSecret,
    eventCallback({ event: { type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' } }),
  );
  expect(res.status).toBe(200);
  const call = await t.fake.waitFor('views.publish', (c) => c.args.user_id === user);
  return visibleText(call.args.view as { blocks: unknown });
}

describe('App Home', () => {
  it("leads with the person's own queue: what waits for their decision (approvals left, expiry, a link to the card), then their own requests", async () => {
    const { responseUrl } = await t.command(
      '/withdraw',
      '25 USDT BSC 0x4444444444444444444444444444444444444444 home@client.example',
      USERS.alice,
    );
    await t.replies(responseUrl);
    const r = t.app.deps.withdrawals.list({ requester: USERS.alice })[0]!;
    // The card is posted by the outbox; its permalink is what the rows link to.
    const card = await until('the card', () => t.app.deps.outbox.message(`withdrawal:${r.id}`)?.ts);
    const approver = await openHome(USERS.carol);
    const lines = approver.split('\n');
    expect(lines[1]).toBe('*Waiting for your decision* (1)');
    expect(approver).toContain(
      '*25.00 USDT* on BSC to `0x444444…444444`, from client wallet home@client.example · requested by <@U0ALICE01>',
    );
    expect(approver).toMatch(/⏳ 0 of 1 approval, 1 more needed · expires <!date\^\d+\^/);
    const permalink = `https://${SLACK_IDS.teamDomain}.slack.com/archives/${CHANNELS.approvals}/p${card.replace('.', '')}`;
    expect(approver).toContain(`<${permalink}|Open the card>`);
    // The queue comes before the deposits and the help.
    expect(approver.indexOf('Waiting for your decision')).toBeLessThan(approver.indexOf('*Latest deposits*'));
    expect(approver.indexOf('*Latest deposits*')).toBeLessThan(approver.indexOf('*Treasury commands*'));

    const requester = await openHome(USERS.alice);
    expect(requester).toContain('1 withdrawal is waiting for approval. You do not approve withdrawals.');
    expect(requester).toMatch(
      /\*Your open requests\*\n• \*25\.00 USDT\* on BSC .*, from client wallet .*\n⏳ 0 of 1 approval, 1 more needed · expires .* · <https:[^|]+\|Open the card>/,
    );
  });

  it("never shows the wallet service's address or internal ids, and lists admin commands only to admins", async () => {
    const viewer = await openHome(USERS.viewer);
    expect(viewer).not.toMatch(/127\.0\.0\.1|http:\/\/|sandbox/);
    expect(viewer).toContain('Connected to the wallet service');
    expect(viewer).toContain('/address <client-email> <currency> <network>');
    expect(viewer).toContain('/treasury status');
    expect(viewer).not.toContain('/treasury policy');
    expect(viewer).not.toContain('/treasury webhook register');
    for (const r of t.app.deps.withdrawals.list()) expect(viewer).not.toContain(r.id.slice(0, 8));
    const admin = await openHome(USERS.erin);
    expect(admin).toContain('/treasury policy');
    expect(admin).toContain('/treasury webhook register');
    expect(admin).not.toMatch(/PUBLIC_URL|<secret>/);
  });

  it('a deposit told only by a notification is "reported", never ✅ confirmed; one the history shows is confirmed', async () => {
    // Forged: no signature, a hash the wallet never had. Genuine: a sandbox deposit, notified and listed.
    const body = `{"TransactionType":1,"Data":{"Amount":999999,"Currency":4,"NetworkChain":"BSC","Status":3,"MerchantClient":{"Email":"forger@evil.test"},"TransactionHash":"0x${'e'.repeat(64)}"}}`;
    const url = await until('the webhook URL registered', () => t.app.sandbox!.webhook.url());
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(r.status).toBe(200);
    const tx = await t.app.sandbox!.deposit({
      to: 'home@client.example',
      amount: '42',
      currency: 'USDT',
      network: 'BSC',
    });
    await until(
      'the genuine deposit confirmed',
      () =>
        t.app.deps.store.find(
          ALERT_COLLECTIONS.alerts,
          (a) => a.hash === tx.transactionHash && a.status === 'CONFIRMED' && a.verification.state === 'confirmed',
        )[0],
    );
    const home = await openHome(USERS.bob);
    const lines = home.split('\n');
    const forged = lines.find((l) => l.includes('999,999.00 USDT'))!;
    expect(forged).toContain(':mag: Reported by the wallet service · checking');
    expect(forged).not.toMatch(/white_check_mark|✅/);
    expect(lines.find((l) => l.includes('*42.00 USDT*'))).toContain(':white_check_mark: confirmed');
  });
});
