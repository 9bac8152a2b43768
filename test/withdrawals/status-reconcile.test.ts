/**
 * Unknown outcomes settled by the wallet service's status for the merchant reference, the
 * whole app over HTTP: status first (no transaction list), the list as fallback, NotFound
 * trusted only after the grace period, and then a NEW request from the card (never a resend).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import {
  CHANNELS,
  formValuesAsOpened,
  startTestApp,
  USERS,
  visibleText,
  type TestApp,
} from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { withdrawalPayload } from '../../src/sandbox/webhook-payloads.js';
import type { TransactionRecord } from '../../src/sandbox/state.js';
import { stringifyJson } from '../../src/wallet/json.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const MINUTE = 60_000;
const WEBHOOK_SECRET = 'wh_test_secret_f2_0123456789abcdef';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

let offset = 0;
async function app(): Promise<TestApp> {
  offset = 0;
  t = await startTestApp({ now: () => Date.now() + offset });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  return t;
}

const topLevel = (a: TestApp) => a.fake.channel(CHANNELS.approvals).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
const cardText = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });
const buttons = (m: FakeMessage) =>
  ((m.blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id: string; text: { text: string } }> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements!.map((e) => ({ id: e.action_id, text: e.text.text })));
const requests = (a: TestApp): WithdrawalRequest[] => a.app.deps.withdrawals.list();
const listLookups = (a: TestApp) =>
  a.app.sandbox!.stats.requests.filter((r) => /transaction-record/i.test(r.path) && r.path.includes(DEST)).length;

/** A request approved by carol whose POST fault leaves it unknown. */
async function unknownWithdrawal(a: TestApp, fault: 'drop-after-commit' | 'drop-before-commit') {
  const { responseUrl } = await a.command('/withdraw', `50 USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
  await a.replies(responseUrl);
  const card = await until('the card', () => topLevel(a)[0]);
  a.app.sandbox!.injectFault('/api/merchantClientWithdrawal?', { kind: fault });
  // The service's own notification of a committed send prompts the app to ask it (notice.ts):
  // its answer is kept away until the request is seen unknown, so each test decides what it says.
  a.app.sandbox!.setWithdrawalStatusUnavailable('*', true);
  a.app.sandbox!.injectFault('/api/v2/analytics/transaction-record', { kind: 'status', status: 503 }, 1_000);
  const id = requests(a)[0]!.id;
  await a.click(
    USERS.carol,
    { actionId: 'wd_approve', value: id },
    { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
  );
  await until('unknown', () => a.app.deps.withdrawals.get(id)?.state === 'unknown');
  a.app.sandbox!.clearFaults();
  a.app.sandbox!.setWithdrawalStatusUnavailable('*', false);
  return id;
}

describe('settling unknown withdrawals by status', () => {
  it('a Completed status settles it without looking at the transaction list', async () => {
    const a = await app();
    const id = await unknownWithdrawal(a, 'drop-after-commit');
    const before = listLookups(a);
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(a.app.deps.withdrawals.get(id)).toMatchObject({
      state: 'completed',
      result: { source: 'reconcile', via: 'status', amount: '50' },
    });
    expect(listLookups(a)).toBe(before);
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
    await until('the card', () => cardText(topLevel(a)[0]!).includes('confirmed by the wallet service'));
  });

  it('falls back to the transaction list when the status call fails', async () => {
    const a = await app();
    const id = await unknownWithdrawal(a, 'drop-after-commit');
    a.app.sandbox!.injectFault('/api/merchantClientWithdrawal/status/', { kind: 'status', status: 503 }, 20);
    const before = listLookups(a);
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(a.app.deps.withdrawals.get(id)).toMatchObject({ state: 'completed', result: { source: 'reconcile' } });
    expect(a.app.deps.withdrawals.get(id)!.result!.via).toBeUndefined();
    expect(listLookups(a)).toBeGreaterThan(before);
  });

  it('a Pending status keeps it unknown', async () => {
    const a = await app();
    const id = await unknownWithdrawal(a, 'drop-after-commit');
    a.app.sandbox!.setWithdrawalStatus(a.app.deps.withdrawals.get(id)!.merchantReference, 'Pending');
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(a.app.deps.withdrawals.get(id)!.state).toBe('unknown');
  });

  it('NotFound within the grace stays unknown; after it, never executed, and the card offers a NEW request (never a resend)', async () => {
    const a = await app();
    const id = await unknownWithdrawal(a, 'drop-before-commit');
    const first = a.app.deps.withdrawals.get(id)!;
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);

    offset = 9 * MINUTE;
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(a.app.deps.withdrawals.get(id)!.state).toBe('unknown');

    offset = 11 * MINUTE;
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(a.app.deps.withdrawals.get(id)).toMatchObject({ state: 'failed', error: { kind: 'never_executed' } });
    const card = await until(
      'the not-sent card',
      () => cardText(topLevel(a)[0]!).includes('*Not sent:* the wallet service has no record of it') && topLevel(a)[0],
    );
    expect(cardText(card)).toContain('❌ Not sent');
    expect(buttons(card)).toEqual([{ id: 'wd_new_request', text: 'New request with the same details' }]);
    await until('the requester DM', () =>
      a.fake
        .channel(a.fake.dmChannel(USERS.alice))
        .some((m) => (m.text ?? '').startsWith('❌ Not sent') && (m.text ?? '').includes('no record of it')),
    );

    // Audited, with why.
    const { responseUrl: auditUrl } = await a.command('/treasury', 'audit', USERS.erin);
    expect(visibleText((await a.replies(auditUrl))[0]!)).toContain(
      '❌ not sent (the wallet service has no record of it)',
    );

    // Someone who may not request cannot use the button.
    const refused = await a.click(
      USERS.carol,
      { actionId: 'wd_new_request', value: id },
      { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
    );
    expect(String((await a.replies(refused.responseUrl))[0]!.text)).toContain('not allowed to request withdrawals');
    expect(a.fake.views().filter((v) => v.callback_id === 'wd_request_modal')).toHaveLength(0);

    await a.click(
      USERS.alice,
      { actionId: 'wd_new_request', value: id },
      { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
    );
    const view = await until('the prefilled form', () =>
      a.fake.views().find((v) => v.callback_id === 'wd_request_modal'),
    );
    // Issue 24: the filled-in form opens with its value line (value and tier), not the empty form's hint.
    const line = (view.blocks as Array<{ block_id?: string; elements?: Array<{ text: string }> }>).find(
      (b) => b.block_id === 'form_value',
    );
    expect(line?.elements?.[0]?.text).toMatch(
      /^(≈ \$\d\d\.\d\d|Value unknown \(.+\)), (up to|above) [$\d,.]+( USDT)?: \d approvals?/,
    );
    // Submit the form as Slack would with the values it was opened with.
    const values = formValuesAsOpened(view.blocks);
    expect(values).toMatchObject({
      wd_amount: { value: { value: '50' } },
      wd_currency: { value: { selected_option: { value: 'USDT' } } },
      wd_network: { value: { selected_option: { value: 'BSC' } } },
      wd_destination: { value: { value: DEST } },
      wd_client: { value: { value: CLIENT } },
    });
    const res = await a.submitView(USERS.alice, { callbackId: 'wd_request_modal', viewId: 'V0AGAIN01', values });
    expect(res.status).toBe(200);
    expect(res.json).toBeUndefined();

    const again = await until('the new request', () => requests(a).find((r) => r.id !== id));
    expect(again).toMatchObject({ state: 'pending', amount: '50', destination: DEST, clientEmail: CLIENT });
    expect(again.merchantReference).not.toBe(first.merchantReference);
    // Nothing was resent: the only POST is the first one, and the new request waits for approvals.
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(0);
  });
});

/** A withdrawal webhook from the wallet service for this request, POSTed to the app as the service does. */
async function webhook(a: TestApp, r: WithdrawalRequest, status: 'PENDING' | 'CONFIRMED'): Promise<number> {
  const body = stringifyJson(
    withdrawalPayload(
      {
        toAddress: r.destination,
        amount: r.amount,
        charge: '0',
        currency: r.currency,
        network: r.network,
        transactionHash: `0x${'ab'.repeat(32)}`,
        reference: r.merchantReference,
      } as unknown as TransactionRecord,
      status,
    ),
  );
  const res = await fetch(`${a.app.url}/webhooks/wallet/${WEBHOOK_SECRET}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return res.status;
}

describe('never executed, then the service speaks of it (no double payment)', () => {
  it('a record in the transaction list settles a NotFound past the grace (status first, list second)', async () => {
    const a = await app();
    // Lost before the service answered, no webhook: only the transaction list knows of it.
    const id = await unknownWithdrawal(a, 'drop-before-commit');
    const r = a.app.deps.withdrawals.get(id)!;
    a.app.sandbox!.resetTransactions([
      {
        reference: r.merchantReference,
        transactionType: 'Withdrawal',
        transactionStatus: 'SUCCESSFUL',
        toAddress: DEST,
        amount: '50',
        currency: 'USDT',
        network: 'BSC',
        clientEmail: CLIENT,
      },
    ]);
    // The status call still answers NotFound (the service's two views disagree).
    a.app.sandbox!.setWithdrawalStatus(r.merchantReference, 'NotFound');
    offset = 11 * MINUTE;
    const before = listLookups(a);
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(listLookups(a)).toBeGreaterThan(before);
    expect(a.app.deps.withdrawals.get(id)).toMatchObject({ state: 'completed', result: { source: 'reconcile' } });
    expect(a.app.deps.withdrawals.get(id)!.error).toBeUndefined();
  });

  it('a webhook received before the NotFound keeps it unknown (the service has it)', async () => {
    t = await startTestApp({ now: () => Date.now() + offset, env: { WEBHOOK_SECRET } });
    offset = 0;
    t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
    const id = await unknownWithdrawal(t, 'drop-before-commit');
    expect(await webhook(t, t.app.deps.withdrawals.get(id)!, 'PENDING')).toBe(200);
    // The notification is recorded as a claim (`notice`; it was `confirmation` before invariant 14):
    // a claim still keeps a NotFound from being believed, so the request stays for an admin.
    await until('the notification recorded', () => t!.app.deps.withdrawals.get(id)!.notice);
    offset = 11 * MINUTE;
    await t.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(t.app.deps.withdrawals.get(id)!.state).toBe('unknown');
  });

  it('a CONFIRMED webhook after "never executed": the card says so first, no New request button, the button refuses', async () => {
    t = await startTestApp({ now: () => Date.now() + offset, env: { WEBHOOK_SECRET } });
    offset = 0;
    const a = t;
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
    const id = await unknownWithdrawal(a, 'drop-before-commit');
    offset = 11 * MINUTE;
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(a.app.deps.withdrawals.get(id)).toMatchObject({ state: 'failed', error: { kind: 'never_executed' } });
    const old = await until('the not-sent card', () => buttons(topLevel(a)[0]!).length > 0 && topLevel(a)[0]);

    // Since invariant 14 the notification is only the prompt: the service's own status for the
    // reference (Completed, set in the sandbox) is the report the card shows.
    a.app.sandbox!.setWithdrawalStatus(a.app.deps.withdrawals.get(id)!.merchantReference, 3);
    expect(await webhook(a, a.app.deps.withdrawals.get(id)!, 'CONFIRMED')).toBe(200);
    const card = await until('the contradicted card', () => {
      const m = topLevel(a)[0]!;
      return cardText(m).includes('🚨 Reported by the wallet service') && m;
    });
    const words = cardText(card);
    // The app's status words ("Confirmed"), not the raw status.
    expect(words).toContain('🚨 Reported by the wallet service (Confirmed), do not pay again');
    expect(words).toContain('*Do not pay it again*');
    expect(words).not.toContain('make a new request');
    expect(buttons(card)).toEqual([]);

    // The button of the card as it was (a stale message) refuses, with the reason.
    const res = await a.click(
      USERS.alice,
      { actionId: 'wd_new_request', value: id },
      { channel: CHANNELS.approvals, message: { ts: old.ts, blocks: old.blocks } },
    );
    expect(String((await a.replies(res.responseUrl))[0]!.text)).toContain('Do not pay it again');
    expect(a.fake.views().filter((v) => v.callback_id === 'wd_request_modal')).toHaveLength(0);
  });
});
