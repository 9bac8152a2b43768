/**
 * Invariant 14 for withdrawals: a webhook is a claim. The wallet service signs nothing, so
 * whoever learns the webhook URL can post any status for any reference (the sandbox's
 * test-only forgery endpoints play that outsider, over HTTP). The whole app is under test:
 * signed Slack requests, the recording fake Slack, the sandbox as the wallet service.
 *
 * A notification only prompts the app to ask the service (its status for our reference, the
 * transaction list as a fallback); only that answer settles. A notification the answer
 * contradicts is audited and told to the admins once; one the service cannot answer leaves the
 * request as it is, the card saying it waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { forgedWithdrawalBody, forgeWebhook, serviceSays } from '../helpers/forgery.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const WITHDRAW_POST = '/api/merchantClientWithdrawal?';
const DISAGREED = 'A notification disagreed with the wallet service: it may be forged';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function app(): Promise<TestApp> {
  // The genuine webhooks: PENDING at once, the final one shortly after (as the real service does, sooner).
  // A short gap between two notice-prompted questions about one request (5 s in production): a
  // second forged claim is asked about after 50 ms, not 5 s.
  t = await startTestApp({
    sandbox: { webhook: { confirmAfterMs: 400, retryBaseMs: 50 } },
    noticeThrottle: { minIntervalMs: 50 },
  });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  await until('the webhook URL registered', () => t!.app.sandbox!.webhook.url());
  return t;
}

const text = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });
const cardOf = (a: TestApp, r: WithdrawalRequest) =>
  a.fake
    .channel(CHANNELS.approvals)
    .find((m) => (!m.thread_ts || m.thread_ts === m.ts) && text(m).includes(r.merchantReference));
const get = (a: TestApp, id: string) => a.app.deps.withdrawals.get(id)!;
const audit = (a: TestApp, id: string) =>
  a.app.deps.store.all(AUDIT_COLLECTION).filter((e: { subject: string }) => e.subject === id) as Array<{
    action: string;
    details: Record<string, unknown>;
  }>;
const buttons = (m: FakeMessage) =>
  ((m.blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id: string }> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements!.map((e) => e.action_id));
const toldAdmins = (a: TestApp, r: WithdrawalRequest) =>
  a.fake
    .thread(CHANNELS.approvals, cardOf(a, r)!.ts)
    .filter((m) => (m.text ?? '').includes(DISAGREED) && (m.text ?? '').includes(`<@${USERS.erin}>`));

async function requested(a: TestApp): Promise<WithdrawalRequest> {
  const known = new Set(a.app.deps.withdrawals.list().map((r) => r.id));
  const { responseUrl } = await a.command('/withdraw', `50 USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
  await a.replies(responseUrl);
  const r = await until('the request', () => a.app.deps.withdrawals.list().find((x) => !known.has(x.id)));
  await until('its card', () => cardOf(a, r));
  return r;
}

async function approve(a: TestApp, r: WithdrawalRequest): Promise<void> {
  const card = cardOf(a, r)!;
  await a.click(
    USERS.carol,
    { actionId: 'wd_approve', value: r.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
  );
}

/**
 * Approved by carol, and the answer to the one POST is lost: `after-commit`, the service
 * executed it (and its genuine webhooks follow); `before-commit`, it never got it.
 */
async function unknownOutcome(
  a: TestApp,
  lost: 'after-commit' | 'before-commit',
  before?: (r: WithdrawalRequest) => Promise<void>,
) {
  const r = await requested(a);
  await before?.(r);
  a.app.sandbox!.injectFault(WITHDRAW_POST, {
    kind: lost === 'after-commit' ? 'drop-after-commit' : 'drop-before-commit',
  });
  await approve(a, r);
  await until(
    'unknown',
    () => get(a, r.id).state === 'unknown' || get(a, r.id).history.some((h) => h.state === 'unknown'),
  );
  return r;
}

describe('a forged withdrawal webhook settles nothing: the wallet service is asked', () => {
  it('the double-payment story: a forged FAILED for a payout the service executed never makes it "failed"', async () => {
    const a = await app();
    const r = await unknownOutcome(a, 'after-commit');
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(1);

    // The outsider's FAILED for its reference. Before this fix it settled the request as failed at
    // once, the genuine CONFIRMED that followed was dropped (same rank), the requester retyped the
    // payout and an approver approved it: paid twice.
    const answer = await forgeWebhook(a, forgedWithdrawalBody(get(a, r.id), 4));
    expect(answer.status).toBe(200);
    await until('settled by the service', () => get(a, r.id).state !== 'unknown');
    expect(get(a, r.id)).toMatchObject({ state: 'completed', result: { source: 'reconcile', via: 'status' } });

    // The genuine CONFIRMED arrives and agrees; the request never was failed, not even for a moment.
    await until('the genuine CONFIRMED delivered', () =>
      a.app.sandbox!.webhook.deliveries.some(
        (d) => d.kind === 'withdrawal' && d.transactionStatus === 'CONFIRMED' && d.status === 200,
      ),
    );
    await a.app.deps.outbox.drain();
    const done = get(a, r.id);
    expect(done.state).toBe('completed');
    expect(done.history.map((h) => h.state)).not.toContain('failed');

    // The requester is told it was sent, never that it failed: nothing invites a retype.
    const dms = a.fake.channel(a.fake.dmChannel(USERS.alice)).map(text);
    expect(dms.some((d) => d.startsWith('✅ Sent'))).toBe(true);
    expect(dms.some((d) => d.includes('❌'))).toBe(false);
    const card = cardOf(a, r)!;
    expect(text(card)).toContain('*Sent*');
    expect(buttons(card)).not.toContain('wd_new_request');
    // The forged FAILED contradicted the service: audited, the admins told once; sent once.
    // (judged once the service's answer is in: it may land a moment after the request settled)
    await until('the contradiction audited', () =>
      audit(a, r.id).some((e) => e.action === 'notice_contradiction' && e.details.status === 'FAILED'),
    );
    await until('the admins told', () => toldAdmins(a, r).length > 0);
    expect(toldAdmins(a, r)).toHaveLength(1);
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(1);
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
    // Nor does the alerts channel tell anyone the funds did not leave: the failure there was a claim,
    // and once the request settled (sent) the alert follows it; its thread only says what was reported.
    const alertTexts = () => a.fake.channel(CHANNELS.alerts).map((m) => JSON.stringify(m.blocks ?? m.text));
    const alert = () => a.fake.channel(CHANNELS.alerts).find((m) => !m.thread_ts && /50\.00 USDT/.test(m.text ?? ''));
    await until(
      'the alert redrawn as the request settled, the forged FAILED in its thread as a report',
      () => alertTexts().some((t) => /Reported failed by the wallet service/.test(t)) && !/failed/.test(alert()!.text!),
    );
    expect(alertTexts().some((t) => /did not leave the wallet|Now failed/.test(t))).toBe(false);
  });

  it('a forged FAILED for an unknown request the service says Completed: completed, audited, the admins told once', async () => {
    const a = await app();
    // The service never answered the POST; its status for the reference says Completed.
    const r = await unknownOutcome(a, 'before-commit', (x) => serviceSays(a, x.merchantReference, { status: 3 }));
    expect(get(a, r.id).state).toBe('unknown');

    await forgeWebhook(a, forgedWithdrawalBody(r, 'FAILED'));
    await until('completed', () => get(a, r.id).state === 'completed');
    expect(get(a, r.id)).toMatchObject({
      result: { source: 'reconcile', via: 'status' },
      notice: { status: 'FAILED', waiting: false, disagreed: { status: 'FAILED', service: 'Completed' } },
    });
    await until('the admins told', () => toldAdmins(a, r).length > 0);
    const contradictions = () => audit(a, r.id).filter((e) => e.action === 'notice_contradiction');
    expect(contradictions()).toHaveLength(1);
    expect(contradictions()[0]!.details).toMatchObject({ status: 'FAILED', service: 'Completed', via: 'status' });
    expect(audit(a, r.id).some((e) => e.action === 'reconcile' && e.details.outcome === 'completed')).toBe(true);

    // Another forged FAILED, then one NOT_PROPAGATED: audited each time, the admins not told again.
    await forgeWebhook(a, forgedWithdrawalBody(r, 'NOT_PROPAGATED'));
    await until('audited again', () => contradictions().length === 2);
    await a.app.deps.outbox.drain();
    expect(toldAdmins(a, r)).toHaveLength(1);
    expect(get(a, r.id).state).toBe('completed');
  });

  it('the service unreachable: nothing changes, the card says it waits; the reconcile job asks again', async () => {
    const a = await app();
    const r = await unknownOutcome(a, 'before-commit', (x) =>
      serviceSays(a, x.merchantReference, { unavailable: true }),
    );
    const before = get(a, r.id);

    await forgeWebhook(a, forgedWithdrawalBody(r, 4));
    const waiting = await until('the card waits', () => {
      const m = cardOf(a, r)!;
      return text(m).includes('A notification says FAILED; waiting for the wallet service to confirm') && m;
    });
    expect(text(waiting)).toContain('Outcome unknown');
    await a.app.deps.outbox.drain();
    const after = get(a, r.id);
    expect(after.state).toBe('unknown');
    expect(after.history).toEqual(before.history);
    expect(after.result).toBeUndefined();
    expect(after.notice).toMatchObject({ status: 'FAILED', waiting: true });
    expect(toldAdmins(a, r)).toHaveLength(0);

    // The service answers again (Failed, say): the job settles on that answer, not on the notification.
    await serviceSays(a, r.merchantReference, { unavailable: false, status: 4 });
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(get(a, r.id)).toMatchObject({ state: 'failed', error: { kind: 'reported_failed' } });
    expect(get(a, r.id).notice).toMatchObject({ waiting: false });
    await until('the waiting line gone', () => !text(cardOf(a, r)!).includes('waiting for the wallet service'));
  });

  it('a forged CONFIRMED for a request the service says Failed: failed, never completed; the admins told once', async () => {
    const a = await app();
    const r = await unknownOutcome(a, 'before-commit', (x) => serviceSays(a, x.merchantReference, { status: 4 }));

    await forgeWebhook(a, forgedWithdrawalBody(r, 'CONFIRMED'));
    await until('failed', () => get(a, r.id).state === 'failed');
    expect(get(a, r.id).history.map((h) => h.state)).not.toContain('completed');
    expect(get(a, r.id)).toMatchObject({
      error: { kind: 'reported_failed' },
      notice: { disagreed: { status: 'CONFIRMED', service: 'Failed' } },
    });
    await until('the admins told', () => toldAdmins(a, r).length > 0);
    await a.app.deps.outbox.drain();
    expect(toldAdmins(a, r)).toHaveLength(1);
    // Its money counts as not moved (the service's word), and the card says why in the service's words.
    expect(text(cardOf(a, r)!)).toContain('reports it failed');
  });

  it('a forged CONFIRMED for a request never sent settles nothing; the service has no record of it', async () => {
    const a = await app();
    const r = await requested(a);
    // Still waiting for its approval: never sent, so the service has no record of it (NotFound).
    await forgeWebhook(a, forgedWithdrawalBody(r, 'CONFIRMED'));
    await until('the claim checked', () => get(a, r.id).notice?.waiting === false);
    expect(get(a, r.id)).toMatchObject({ state: 'pending', notice: { disagreed: { service: 'NotFound' } } });
    expect(get(a, r.id).confirmation).toBeUndefined();
    await until('the admins told', () => toldAdmins(a, r).length > 0);
  });

  it("a status text carrying mrkdwn never reaches Slack raw, in the card or the admins' line", async () => {
    const a = await app();
    const evil = '<!channel> <https://evil.example|x> *bold*';
    const r = await requested(a);
    await serviceSays(a, r.merchantReference, { unavailable: true });
    // The list fallback cannot answer either for a request never sent: it waits.
    await forgeWebhook(a, forgedWithdrawalBody(r, evil));
    await until('the card waits', () => text(cardOf(a, r)!).includes('waiting for the wallet service to confirm'));
    // While it waits, an unrecognised text is not repeated at all.
    expect(text(cardOf(a, r)!)).toContain('A notification says an unrecognised status;');
    expect(text(cardOf(a, r)!)).not.toContain('evil.example');

    // Answered (NotFound: it was never sent): the contradiction, told to the admins, escaped too.
    await serviceSays(a, r.merchantReference, { unavailable: false });
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    await until('the admins told', () => toldAdmins(a, r).length > 0);
    expect(toldAdmins(a, r)[0]!.text).toContain('&lt;!channel&gt;');
    await a.app.deps.outbox.drain();
    const everything = [
      ...a.fake.channel(CHANNELS.approvals),
      ...a.fake.channel(a.fake.dmChannel(USERS.alice)),
      ...a.fake.channel(a.fake.dmChannel(USERS.carol)),
    ].map(text);
    for (const m of everything) {
      expect(m).not.toContain('<!channel>');
      expect(m).not.toContain('<https://evil.example');
    }
  });

  it('an unrecognised failure text against Completed is a contradiction: audited, the admins told once', async () => {
    const a = await app();
    const r = await unknownOutcome(a, 'before-commit', (x) => serviceSays(a, x.merchantReference, { status: 3 }));
    const claim = 'Failed - not sent, please request again';
    await forgeWebhook(a, forgedWithdrawalBody(r, claim));
    await until('completed', () => get(a, r.id).state === 'completed');
    await until('the admins told', () => toldAdmins(a, r).length > 0);
    expect(audit(a, r.id).find((e) => e.action === 'notice_contradiction')?.details).toMatchObject({
      status: claim,
      service: 'Completed',
    });
    expect(audit(a, r.id).some((e) => e.action === 'webhook_checked')).toBe(false);
    await a.app.deps.outbox.drain();
    expect(toldAdmins(a, r)).toHaveLength(1);
  });

  it('a FAILED followed by five distinct other claims is still judged when the service answers', async () => {
    const a = await app();
    const r = await unknownOutcome(a, 'before-commit', (x) =>
      serviceSays(a, x.merchantReference, { unavailable: true }),
    );
    await forgeWebhook(a, forgedWithdrawalBody(r, 'FAILED'));
    for (const junk of ['PENDING', 'x-1', 'x-2', 'x-3', 'x-4']) await forgeWebhook(a, forgedWithdrawalBody(r, junk));
    expect(get(a, r.id).notice).toMatchObject({ status: 'x-4', waiting: true });

    await serviceSays(a, r.merchantReference, { unavailable: false, status: 3 });
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(get(a, r.id).state).toBe('completed');
    expect(audit(a, r.id).find((e) => e.action === 'notice_contradiction')?.details).toMatchObject({
      status: 'FAILED',
      service: 'Completed',
    });
    await until('the admins told', () => toldAdmins(a, r).length > 0);
  });
});
