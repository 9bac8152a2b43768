/**
 * A withdrawal the app made: its alert follows the request's settled outcome (the wallet
 * service's own answer), never the notification's status, and says "confirmed" and "checked
 * against the wallet's history" only once the history lists it under our reference with the
 * same amount, currency and network. The whole app: signed Slack requests, the recording fake
 * Slack, the sandbox as the wallet service; a forged notification is posted by the sandbox's
 * test-only forgery endpoint, as an outsider who learned the webhook URL would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { forgeWebhook } from '../helpers/forgery.js';
import { CHANNELS, startTestApp, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const SAID_CONFIRMED = /white_check_mark|checked against the wallet's history|: confirmed"/;

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

/** The app's clock runs with real time (the outbox paces by it); a test moves it ahead. */
let ahead = 0;
async function app(): Promise<TestApp> {
  ahead = 0;
  t = await startTestApp({
    policy: parsePolicy(TEST_POLICY_YAML.replace('alerts:\n', 'alerts:\n  verify_grace: 30s\n')),
    now: () => Date.now() + ahead,
    sandbox: { webhook: { confirmAfterMs: 400, retryBaseMs: 50 } },
  });
  await until('the webhook URL registered', () => t!.app.sandbox!.webhook.url());
  return t;
}

const text = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });
const get = (a: TestApp, id: string) => a.app.deps.withdrawals.get(id)!;
const cardOf = (a: TestApp, r: WithdrawalRequest) =>
  a.fake.channel(CHANNELS.approvals).find((m) => !m.thread_ts && text(m).includes(r.merchantReference));
const alertOf = (a: TestApp, r: WithdrawalRequest) =>
  a.app.deps.store.find<Alert>(ALERT_COLLECTIONS.alerts, (x) => x.merchantReference === r.merchantReference)[0];
/** Every version of every top-level message ever sent to #alerts: posts and edits. */
const everything = (a: TestApp) =>
  a.fake
    .calls()
    .filter(
      (c) => (c.method === 'chat.postMessage' || c.method === 'chat.update') && c.args.channel === CHANNELS.alerts,
    )
    .filter((c) => !c.args.thread_ts)
    .map((c) => JSON.stringify(c.args));

/** Requested by alice, approved by carol: sent once to the service, whatever it answers. */
async function sent(a: TestApp, amount: string): Promise<WithdrawalRequest> {
  const known = new Set(a.app.deps.withdrawals.list().map((r) => r.id));
  const { responseUrl } = await a.command('/withdraw', `${amount} USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
  await a.replies(responseUrl);
  const r = await until('the request', () => a.app.deps.withdrawals.list().find((x) => !known.has(x.id)));
  const card = await until('its card', () => cardOf(a, r));
  await a.click(
    USERS.carol,
    { actionId: 'wd_approve', value: r.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
  );
  await until('settled', () => ['completed', 'failed'].includes(get(a, r.id).state));
  return get(a, r.id);
}

describe("a withdrawal of ours: its alert follows the request's settled outcome", () => {
  it('a forged CONFIRMED naming a refused request, with the hash of a real unrelated deposit: never confirmed or checked; flagged after the grace, the admins told', async () => {
    const a = await app();
    // The service refuses it (the client's balance is too low): nothing left the wallet.
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '5');
    const r = await sent(a, '50');
    expect(r).toMatchObject({ state: 'failed', error: { kind: 'rejected' } });
    // A real transaction in the wallet's history: a deposit of another amount, type and reference.
    const real = await a.app.sandbox!.deposit({ to: CLIENT, amount: '100', currency: 'USDT', network: 'BSC' });

    await forgeWebhook(a, {
      transactionType: 'WITHDRAW',
      data: {
        checksum: 'F'.repeat(128),
        receiverAddress: DEST,
        amountRequested: 2000000,
        amountSent: 2000000,
        charge: 0,
        currency: 5,
        networkChain: 'ETH',
        status: 3,
        transactionHash: real.transactionHash,
        merchantReference: r.merchantReference,
      },
    });
    await until('checked against the history', () => alertOf(a, r)?.verification.state === 'not_found');
    await a.app.deps.alerts.idle();
    await a.app.deps.outbox.drain();
    const alert = () => a.fake.channel(CHANNELS.alerts).find((m) => !m.thread_ts && /2,000,000/.test(m.text ?? ''))!;
    // It shows what the request came to, the service's own answer: failed, nothing left the wallet.
    expect(alert().text).toBe(
      "Warning: Withdrawal of 2,000,000.00 DAI on ETH: failed · its withdrawal request's outcome",
    );
    expect(text(alert())).toContain('This withdrawal failed.* The funds did not leave the wallet');

    // Past the grace the history still has no record of it: flagged as a deposit would be.
    ahead += 31_000;
    await a.app.deps.scheduler.runNow('alerts.verify-pending');
    await a.app.deps.outbox.drain();
    expect(alertOf(a, r)!.verification.flaggedAt).toBeDefined();
    expect(text(alert())).toContain("Not in the wallet's history after 30 seconds: this notification may be forged");
    const told = a.fake
      .channel(CHANNELS.approvals)
      .filter((m) => !m.thread_ts && (m.text ?? '').includes('reported confirmed is not in the wallet'));
    expect(told.map((m) => m.text)).toEqual([
      `:rotating_light: <@${USERS.erin}> A withdrawal reported confirmed is not in the wallet's history after 30 seconds: the notification may be forged.`,
    ]);
    // Not once, in any version of any message in #alerts, did it read confirmed or checked.
    const versions = everything(a).filter((m) => m.includes('2,000,000'));
    expect(versions.length).toBeGreaterThan(1);
    expect(versions.filter((m) => SAID_CONFIRMED.test(m))).toEqual([]);
  });

  it('a genuine withdrawal: reported while pending, then confirmed and checked once the request settled and its record matched', async () => {
    const a = await app();
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000');
    const r = await sent(a, '50');
    expect(r.state).toBe('completed');
    await until('confirmed', () => {
      const x = alertOf(a, r);
      return x?.status === 'CONFIRMED' && x.verification.state === 'confirmed';
    });
    await a.app.deps.alerts.idle();
    await a.app.deps.outbox.drain();
    expect(alertOf(a, r)).toMatchObject({ status: 'CONFIRMED', verification: { request: { settled: 'CONFIRMED' } } });
    const msgs = a.fake.channel(CHANNELS.alerts).filter((m) => !m.thread_ts && /50\.00 USDT/.test(m.text ?? ''));
    expect(msgs.map((m) => m.text)).toEqual(['Withdrawal of 50.00 USDT on BSC: confirmed']);
    expect(text(msgs[0]!)).toContain("Notified by the wallet service and checked against the wallet's history.");
    // Its first post, on the PENDING notification, was a claim.
    expect(everything(a).find((m) => m.includes('50.00 USDT'))).toContain(
      'Reported by the wallet service · checking (it says pending)',
    );
  });
});
