/**
 * "New request with the same details", and then the wallet service reports the ORIGINAL after
 * all: the whole app over HTTP (signed Slack requests, the sandbox, signed-path webhooks). The
 * repeat is held (nothing sent) until an admin sends it anyway or rejects it; one already sent is
 * flagged once to the admins under both cards; a restart keeps the hold.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { webhookChecksum, withdrawalPayload } from '../../src/sandbox/webhook-payloads.js';
import type { TransactionRecord } from '../../src/sandbox/state.js';
import { COLLECTIONS } from '../../src/outbox/index.js';
import { contradictedRefusalWords } from '../../src/withdrawals/hold/words.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import { stringifyJson } from '../../src/wallet/json.js';
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
import { startGate, type Gate } from '../verification/gate.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const MINUTE = 60_000;
const WEBHOOK_SECRET = 'wh_test_secret_f2_0123456789abcdef';

let t: TestApp | undefined;
const dirs: string[] = [];
let gate: Gate | undefined;
afterEach(async () => {
  await gate?.close();
  gate = undefined;
  await t?.stop();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let offset = 0;
async function app(
  dataDir?: string,
  sandbox?: NonNullable<Parameters<typeof startTestApp>[0]>['sandbox'],
): Promise<TestApp> {
  t = await startTestApp({
    now: () => Date.now() + offset,
    env: { WEBHOOK_SECRET },
    // Several notifications about one withdrawal in a row, each prompting its question at once
    // instead of 5 s after the last (the throttle's own tests: test/withdrawals/reconcile-notice.test.ts).
    noticeThrottle: { minIntervalMs: 50 },
    ...(dataDir ? { dataDir } : {}),
    ...(sandbox ? { sandbox } : {}),
  });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  return t;
}

const cards = (a: TestApp) => a.fake.channel(CHANNELS.approvals).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
const cardOf = (a: TestApp, r: WithdrawalRequest) =>
  cards(a).find((m) => visibleText(m as { blocks?: unknown }).includes(r.merchantReference));
const text = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });
const buttons = (m: FakeMessage) =>
  ((m.blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id: string }> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements!.map((e) => e.action_id));
const threadOf = (a: TestApp, card: FakeMessage) => a.fake.thread(CHANNELS.approvals, card.ts);
const get = (a: TestApp, id: string) => a.app.deps.withdrawals.get(id)!;
const audit = (a: TestApp) => a.app.deps.store.all(AUDIT_COLLECTION);
const click = (a: TestApp, user: string, actionId: string, r: WithdrawalRequest) => {
  const card = cardOf(a, r)!;
  return a.click(
    user,
    { actionId, value: r.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
  );
};

/** Approved by carol; the POST is lost before the service records it; past the grace: never executed. */
async function neverExecuted(a: TestApp): Promise<WithdrawalRequest> {
  const { responseUrl } = await a.command('/withdraw', `50 USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
  await a.replies(responseUrl);
  const r = await until('the request', () => a.app.deps.withdrawals.list()[0]);
  await until('its card', () => cardOf(a, r));
  a.app.sandbox!.injectFault('/api/merchantClientWithdrawal?', { kind: 'drop-before-commit' });
  await click(a, USERS.carol, 'wd_approve', r);
  await until('unknown', () => get(a, r.id).state === 'unknown');
  offset += 11 * MINUTE;
  await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
  expect(get(a, r.id)).toMatchObject({ state: 'failed', error: { kind: 'never_executed' } });
  await until('the not-sent card', () => buttons(cardOf(a, r)!).includes('wd_new_request'));
  return get(a, r.id);
}

/** "New request with the same details" clicked by alice: the prefilled form, as Slack would submit it. */
async function openRepeatForm(a: TestApp, original: WithdrawalRequest) {
  const before = a.fake.views().length;
  await click(a, USERS.alice, 'wd_new_request', original);
  const view = await until('the prefilled form', () =>
    a.fake
      .views()
      .slice(before)
      .find((v) => v.callback_id === 'wd_request_modal'),
  );
  const values = formValuesAsOpened(view.blocks);
  return {
    privateMetadata: view.private_metadata ?? '',
    submit: (viewId: string) =>
      a.submitView(USERS.alice, {
        callbackId: 'wd_request_modal',
        viewId,
        values,
        privateMetadata: view.private_metadata ?? '',
      }),
  };
}

let views = 0;
async function repeatOf(a: TestApp, original: WithdrawalRequest): Promise<WithdrawalRequest> {
  const known = new Set(a.app.deps.withdrawals.list().map((r) => r.id));
  const form = await openRepeatForm(a, original);
  expect(JSON.parse(form.privateMetadata)).toEqual({ repeatOf: original.id });
  // A view id of its own: the same id would be the same form submitted twice (one request).
  const res = await form.submit(`V0REPEAT${String(++views).padStart(2, '0')}`);
  expect(res.status).toBe(200);
  expect(res.json, JSON.stringify(res.json)).toBeUndefined();
  const again = await until('the repeat', () =>
    a.app.deps.withdrawals.list().find((r) => r.repeatOf === original.id && !known.has(r.id)),
  );
  await until('its card', () => cardOf(a, again));
  return again;
}

/** Webhook status codes beyond the sandbox's own (ABOUT_TO_INITIATE is 1 in the spec). */
const CODES = { ABOUT_TO_INITIATE: 1, PENDING: 2, CONFIRMED: 3, FAILED: 4 } as const;

/** The service's own status for the reference (1 NotFound, 2 Pending, 3 Completed, 4 Failed) behind each webhook status. */
const SERVICE_SAYS = { ABOUT_TO_INITIATE: 2, PENDING: 2, CONFIRMED: 3, FAILED: 4, none: 2 } as const;

/**
 * The wallet service reports this request: a withdrawal webhook POSTed to the app as the service
 * does (`none`: a body without any status, its checksum recomputed, as the service would sign it).
 * Since invariant 14 a webhook is only the prompt to ask: the sandbox's status for the reference
 * says the same (set here first), and that answer is the report. Forged ones that the service
 * contradicts are in forged-webhooks.test.ts.
 */
async function webhook(a: TestApp, r: WithdrawalRequest, status: keyof typeof CODES | 'none'): Promise<void> {
  a.app.sandbox!.setWithdrawalStatus(r.merchantReference, SERVICE_SAYS[status]);
  const payload = withdrawalPayload(
    {
      toAddress: r.destination,
      amount: r.amount,
      charge: '0',
      currency: r.currency,
      network: r.network,
      transactionHash: `0x${'ab'.repeat(32)}`,
      reference: r.merchantReference,
    } as unknown as TransactionRecord,
    'PENDING',
  ) as { data: Record<string, unknown> };
  const { checksum: _old, ...data } = payload.data;
  if (status === 'none') delete data.status;
  else data.status = CODES[status];
  const body = stringifyJson({ ...payload, data: { checksum: webhookChecksum(data), ...data } });
  const res = await fetch(`${a.app.url}/webhooks/wallet/${WEBHOOK_SECRET}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  expect(res.status).toBe(200);
  // The service is asked once the notification is acknowledged; its answer is what the test reads.
  const shown = { 2: 'PENDING', 3: 'CONFIRMED', 4: 'FAILED' }[SERVICE_SAYS[status]];
  await until('the wallet service asked', () => get(a, r.id).confirmation?.status === shown);
}

/** A reason form opened by a button, submitted by `user` with `reason`. */
async function confirmHold(a: TestApp, user: string, reason: string) {
  const view = await until('the hold form', () =>
    a.fake
      .views()
      .filter((v) => v.callback_id === 'wd_hold_modal')
      .at(-1),
  );
  return a.submitView(user, {
    callbackId: 'wd_hold_modal',
    viewId: view.id,
    privateMetadata: view.private_metadata ?? '',
    values: { reason: { value: { type: 'plain_text_input', value: reason } } },
  });
}

describe('a repeat of a "never executed" request, when the service reports the original after all', () => {
  it('is held: approvals complete but nothing is sent; only an admin sends it anyway, once, audited', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const again = await repeatOf(a, original);
    expect(again).toMatchObject({ state: 'pending', repeatOf: original.id });
    expect(audit(a).find((e) => e.action === 'request' && e.subject === again.id)?.details).toMatchObject({
      repeatOf: original.id,
    });
    const posts = a.app.sandbox!.stats.withdrawals;

    await webhook(a, get(a, original.id), 'CONFIRMED');
    expect(get(a, again.id).hold).toMatchObject({ kind: 'original_reported_sent', original: original.id });
    const held = await until('the held card', () => {
      const m = cardOf(a, again)!;
      return text(m).includes('On hold') && m;
    });
    const words = text(held);
    expect(words.indexOf('⏸️ On hold')).toBe(0);
    expect(words).toContain('the wallet service now reports the earlier request of the same payout'); // words changed by the review fix (status words)
    expect(words).toContain('Confirmed)');
    expect(words).toContain('may pay the client twice');
    // Plain words: the hold's section names no internal id.
    const why = words.slice(words.indexOf('On hold:'), words.indexOf('Send anyway') + 20);
    for (const id of [original.id, again.id, original.merchantReference]) expect(why).not.toContain(id);
    expect(buttons(held)).toEqual(['wd_approve', 'wd_hold_reject', 'wd_hold_release']);
    // The admins are told once, under the repeat's card.
    const onHoldLine = (m: FakeMessage) => (m.text ?? '').startsWith('⏸️ On hold');
    await until('the admins told', () => threadOf(a, held).some(onHoldLine));
    await a.app.deps.outbox.drain();
    const told = threadOf(a, held).filter(onHoldLine);
    expect(told).toHaveLength(1);
    expect(told[0]!.text).toContain(`<@${USERS.erin}>`);

    // Approvals are still given and complete it, but nothing is sent.
    const approved = await click(a, USERS.carol, 'wd_approve', get(a, again.id));
    expect(approved.res.status).toBe(200);
    // The send claim that follows the last approval is refused (audited); nothing else happens after it.
    await until('the claim refused', () =>
      audit(a).some((e) => e.action === 'send_held_repeat' && e.subject === again.id),
    );
    await a.app.deps.withdrawals.idle();
    expect(get(a, again.id).state).toBe('approved');
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts);
    await until('the approved held card', () => text(cardOf(a, again)!).includes('Every approval is in, but nothing'));
    expect(buttons(cardOf(a, again)!)).toEqual(['wd_hold_reject', 'wd_hold_release']);

    // Someone who is not an admin may not send it anyway.
    const refused = await click(a, USERS.carol, 'wd_hold_release', get(a, again.id));
    expect(String((await a.replies(refused.responseUrl))[0]!.text)).toContain('not allowed');
    expect(a.fake.views().filter((v) => v.callback_id === 'wd_hold_modal')).toHaveLength(0);

    // An admin, with a reason: sent, once.
    await click(a, USERS.erin, 'wd_hold_release', get(a, again.id));
    const res = await confirmHold(a, USERS.erin, 'Checked the wallet service: the first one bounced back');
    expect(res.status).toBe(200);
    expect(res.json).toBeUndefined();
    await until('sent', () => get(a, again.id).state === 'completed');
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts + 1);
    expect(get(a, again.id).holdReleased).toMatchObject({ by: USERS.erin });
    // Nothing sends it again: a restart's recovery and a second release find nothing to do.
    await a.app.deps.withdrawals.sendApproved();
    expect(await a.app.deps.withdrawals.settleHold(again.id, USERS.erin, 'release', 'again')).toMatchObject({
      ok: false,
      reason: 'not_held',
    });
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts + 1);

    const actions = audit(a)
      .filter((e) => e.subject === again.id)
      .map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['hold', 'send_held_repeat', 'hold_release', 'send']));
    const release = audit(a).find((e) => e.action === 'hold_release')!;
    expect(release).toMatchObject({
      actor: USERS.erin,
      details: { reason: 'Checked the wallet service: the first one bounced back' },
    });
    const { responseUrl } = await a.command('/treasury', 'audit', USERS.erin);
    const rows = visibleText((await a.replies(responseUrl))[0]!);
    expect(rows).toContain('⏸️ on hold');
    expect(rows).toContain('▶️ hold released');
  });

  it('an admin may reject it instead (never sent)', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const again = await repeatOf(a, original);
    await webhook(a, get(a, original.id), 'PENDING');
    await until('held', () => get(a, again.id).hold);
    await click(a, USERS.erin, 'wd_hold_reject', get(a, again.id));
    expect((await confirmHold(a, USERS.erin, 'The first one is being paid')).status).toBe(200);
    expect(get(a, again.id)).toMatchObject({ state: 'rejected', rejection: { user: USERS.erin } });
    await until('the rejected card', () => text(cardOf(a, again)!).startsWith('⛔ Rejected'));
    expect(buttons(cardOf(a, again)!)).toEqual([]);
  });

  it('released while still waiting for approvals: the last approval sends it, once', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const again = await repeatOf(a, original);
    await webhook(a, get(a, original.id), 'PENDING');
    await until('held', () => get(a, again.id).hold);
    const posts = a.app.sandbox!.stats.withdrawals;
    await click(a, USERS.erin, 'wd_hold_release', get(a, again.id));
    expect(
      (await confirmHold(a, USERS.erin, 'The first one is stuck; the client confirmed nothing arrived')).status,
    ).toBe(200);
    expect(get(a, again.id)).toMatchObject({ state: 'pending', holdReleased: { by: USERS.erin } });
    expect(get(a, again.id).hold).toBeUndefined();
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts);
    await until('the released card', () => buttons(cardOf(a, again)!).includes('wd_reject'));
    await click(a, USERS.carol, 'wd_approve', get(a, again.id));
    await until('sent', () => get(a, again.id).state === 'completed');
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts + 1);
  });

  it('already sent when the original is reported: both may have been paid, told once under both cards; no hold', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const again = await repeatOf(a, original);
    await click(a, USERS.carol, 'wd_approve', again);
    await until('the repeat sent', () => get(a, again.id).state === 'completed');

    await webhook(a, get(a, original.id), 'CONFIRMED');
    await webhook(a, get(a, original.id), 'CONFIRMED');
    expect(get(a, again.id)).toMatchObject({ state: 'completed', doublePaymentRisk: { original: original.id } });
    expect(get(a, again.id).hold).toBeUndefined();
    const both = (m: FakeMessage) => (m.text ?? '').startsWith('🚨 Both may have been paid');
    await until('told under both cards', () => [again, original].every((r) => threadOf(a, cardOf(a, r)!).some(both)));
    await a.app.deps.outbox.drain();
    const underRepeat = threadOf(a, cardOf(a, again)!).filter(both);
    const underOriginal = threadOf(a, cardOf(a, original)!).filter(both);
    expect(underRepeat).toHaveLength(1);
    expect(underOriginal).toHaveLength(1);
    expect(underRepeat[0]!.text).toContain('recover the duplicate');
    expect(underOriginal[0]!.text).toContain(`<@${USERS.erin}>`);
    // A third report changes nothing either (a final one: a Pending after Completed is not shown, notice.ts).
    await webhook(a, get(a, original.id), 'FAILED');
    await a.app.deps.outbox.drain();
    expect(threadOf(a, cardOf(a, again)!).filter(both)).toHaveLength(1);
    expect(threadOf(a, cardOf(a, original)!).filter(both)).toHaveLength(1);
    expect(audit(a).filter((e) => e.action === 'double_payment_risk')).toHaveLength(1);
    await until('the flagged card', () => text(cardOf(a, again)!).includes('Both may have been paid'));
  });

  it('stays held across a restart: nothing is sent', async () => {
    offset = 0;
    const dataDir = mkdtempSync(join(tmpdir(), 'repeat-hold-'));
    dirs.push(dataDir);
    const first = await app(dataDir);
    const original = await neverExecuted(first);
    const again = await repeatOf(first, original);
    await webhook(first, get(first, original.id), 'CONFIRMED');
    await click(first, USERS.carol, 'wd_approve', get(first, again.id));
    await until('approved, and its claim refused', () =>
      audit(first).some((e) => e.action === 'send_held_repeat' && e.subject === again.id),
    );
    expect(get(first, again.id).state).toBe('approved');
    await first.app.deps.withdrawals.idle();
    await first.stop();
    t = undefined;

    const a = await app(dataDir);
    await a.app.deps.withdrawals.recover();
    await a.app.deps.withdrawals.sendApproved();
    await a.app.deps.withdrawals.idle();
    expect(get(a, again.id)).toMatchObject({ state: 'approved', hold: { original: original.id } });
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
  });

  it('the prefilled form submitted after the original was reported is refused, with the words', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const form = await openRepeatForm(a, original);
    await webhook(a, get(a, original.id), 'PENDING');
    const res = await form.submit('V0LATE0001');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      response_action: 'errors',
      errors: { wd_amount: contradictedRefusalWords(get(a, original.id)) },
    });
    expect(contradictedRefusalWords(get(a, original.id))).toContain(original.merchantReference.slice(0, 8));
    expect(a.app.deps.withdrawals.list().filter((r) => r.id !== original.id)).toEqual([]);
  });

  it('a tampered form (private_metadata) is refused as out of date, nothing requested', async () => {
    offset = 0;
    const a = await app();
    const res = await a.submitView(USERS.alice, {
      callbackId: 'wd_request_modal',
      viewId: 'V0TAMPER01',
      privateMetadata: '{"repeatOf":42}',
      values: {},
    });
    expect(res.json).toMatchObject({
      response_action: 'errors',
      errors: { wd_amount: expect.stringMatching(/out of date/) },
    });
    expect(a.app.deps.withdrawals.list()).toEqual([]);
  });
});

/** Approved by carol, the POST lost before the service records it, past the grace: never executed too. */
async function lose(a: TestApp, r: WithdrawalRequest): Promise<WithdrawalRequest> {
  a.app.sandbox!.injectFault('/api/merchantClientWithdrawal?', { kind: 'drop-before-commit' });
  await click(a, USERS.carol, 'wd_approve', get(a, r.id));
  await until('unknown', () => get(a, r.id).state === 'unknown');
  offset += 11 * MINUTE;
  await a.app.deps.withdrawals.idle();
  await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
  expect(get(a, r.id)).toMatchObject({ state: 'failed', error: { kind: 'never_executed' } });
  return get(a, r.id);
}

const offersRepeat = (a: TestApp, r: WithdrawalRequest) => buttons(cardOf(a, r)!).includes('wd_new_request');
const heldLines = (a: TestApp, r: WithdrawalRequest) =>
  threadOf(a, cardOf(a, r)!).filter((m) => (m.text ?? '').startsWith('⏸️ On hold'));

describe('the whole payout is one: a repeat of a repeat, siblings, any report', () => {
  it('a repeat of a repeat, opened before the original is reported, is refused after it; no card offers one', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const first = await repeatOf(a, original);
    // A repeat is under way: the original's card no longer offers another, and a click is refused.
    await until('the original card without the button', () => !offersRepeat(a, original));
    const clicked = await click(a, USERS.alice, 'wd_new_request', original);
    expect(String((await a.replies(clicked.responseUrl))[0]!.text)).toContain(
      'A request for this payout already exists',
    );
    const lost = await lose(a, first);
    await until('both cards offer it again', () => offersRepeat(a, original) && offersRepeat(a, lost));
    const form = await openRepeatForm(a, lost);
    const posts = a.app.sandbox!.stats.withdrawals;

    await webhook(a, get(a, original.id), 'ABOUT_TO_INITIATE');
    const res = await form.submit('V0CHAIN001');
    expect(res.json).toMatchObject({
      response_action: 'errors',
      errors: { wd_amount: contradictedRefusalWords(get(a, original.id)) },
    });
    expect(a.app.deps.withdrawals.list().filter((r) => r.repeatOf === lost.id)).toEqual([]);
    await until('no card offers a new request', () => !offersRepeat(a, original) && !offersRepeat(a, lost));
    // The original's card: the app's status words, not the raw status. Since invariant 14 they are the
    // service's own answer (its Pending; "about to start" was the webhook's ABOUT_TO_INITIATE).
    const words = await until('the reported card', () => {
      const w = text(cardOf(a, original)!);
      return w.includes('Reported by the wallet service (Pending)') && w;
    });
    expect(words).not.toContain('about to initiate');
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts);
  });

  it('a reported repeat holds its pending sibling; a second repeat of the same payout is refused meanwhile', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const first = await lose(a, await repeatOf(a, original));
    const sibling = await repeatOf(a, original);
    expect(sibling.id).not.toBe(first.id);
    // While the sibling is pending, no third request of this payout.
    expect(
      await a.app.deps.withdrawals.request(
        {
          amount: '50',
          currency: 'USDT',
          network: 'BSC',
          destination: DEST,
          clientEmail: CLIENT,
          repeatOf: first.id,
        },
        USERS.alice,
      ),
    ).toMatchObject({ ok: false, rule: 'repeat', message: expect.stringContaining('already exists') });
    expect(audit(a).find((e) => e.action === 'refuse' && e.details.rule === 'repeat')).toMatchObject({
      actor: USERS.alice,
      details: { repeatOf: first.id, reason: expect.stringContaining('already exists') },
    });

    await webhook(a, get(a, first.id), 'PENDING');
    expect(get(a, sibling.id)).toMatchObject({ state: 'pending', hold: { original: first.id, status: 'PENDING' } });
    await until('told once', () => heldLines(a, sibling).length === 1);
    expect(heldLines(a, sibling)[0]!.text).toContain('(ref');
  });

  it('a webhook without a status holds the repeat; FAILED then CONFIRMED update the words, never a second hold', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const again = await repeatOf(a, original);

    // The statusless notification is the claim (`notice`); what the card says is the service's own
    // answer (Pending here), since invariant 14 (it was the empty webhook status, "Status unknown").
    await webhook(a, get(a, original.id), 'none');
    expect(get(a, original.id).notice).toMatchObject({ status: '' });
    expect(get(a, original.id).confirmation).toMatchObject({ status: 'PENDING' });
    expect(get(a, again.id).hold).toMatchObject({ original: original.id, status: 'PENDING' });
    await until('the held card', () => text(cardOf(a, again)!).includes('On hold:'));
    await until('the held card', () => text(cardOf(a, again)!).includes('Pending)'));

    await webhook(a, get(a, original.id), 'FAILED');
    await webhook(a, get(a, original.id), 'CONFIRMED');
    expect(get(a, original.id).confirmation).toMatchObject({ status: 'CONFIRMED' });
    await a.app.deps.outbox.drain();
    // The hold's words follow what the service says of the original now; told once, audited once.
    await until('the card updated', () => text(cardOf(a, again)!).includes('Confirmed)'));
    expect(heldLines(a, again)).toHaveLength(1);
    // Audited once for the report (the precaution taken on the notification alone is audited apart).
    const holds = audit(a).filter((e) => e.action === 'hold' && e.subject === again.id);
    expect(holds.filter((e) => !e.details.precaution)).toHaveLength(1);
    expect(holds.filter((e) => e.details.precaution)).toHaveLength(1);
  });

  it('a payout retyped by hand is linked to the never-executed one, said on its card, and held with it', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const { responseUrl } = await a.command('/withdraw', `50 USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
    await a.replies(responseUrl);
    const typed = await until('the retyped request', () =>
      a.app.deps.withdrawals.list().find((r) => r.id !== original.id),
    );
    expect(typed).toMatchObject({ repeatOf: original.id, repeatLinked: 'same-details' });
    expect(audit(a).find((e) => e.action === 'request' && e.subject === typed.id)?.details).toMatchObject({
      repeatOf: original.id,
    });
    await until('its card says so', () => {
      const card = cardOf(a, typed);
      return card && text(card).includes('the wallet service never executed');
    });
    await webhook(a, get(a, original.id), 'CONFIRMED');
    expect(get(a, typed.id).hold).toMatchObject({ original: original.id });
  });
});

/** A repeat of a never-executed request, held when the original was reported, then approved: nothing sent yet. */
async function approvedAndHeld() {
  offset = 0;
  const a = await app();
  const original = await neverExecuted(a);
  const again = await repeatOf(a, original);
  await webhook(a, get(a, original.id), 'CONFIRMED');
  await click(a, USERS.carol, 'wd_approve', get(a, again.id));
  await until('approved, held', () => get(a, again.id).state === 'approved');
  await a.app.deps.withdrawals.idle();
  return { a, original, again, posts: a.app.sandbox!.stats.withdrawals };
}

describe('a held request, and what may still happen to it', () => {
  it('released after its expiry: expired instead, nothing sent, the admin told to make a new request', async () => {
    const { a, original, again, posts } = await approvedAndHeld();
    offset += 3 * 60 * MINUTE; // past its 2h expiry
    // At start-up it stays held: an admin decides.
    await a.app.deps.withdrawals.recover();
    expect(get(a, again.id)).toMatchObject({ state: 'approved', hold: { original: original.id } });

    await click(a, USERS.erin, 'wd_hold_release', get(a, again.id));
    const res = await confirmHold(a, USERS.erin, 'Checked: the first one bounced');
    expect(res.json).toMatchObject({
      response_action: 'errors',
      errors: { reason: expect.stringContaining('If the payout is still due, make a new request') },
    });
    expect(get(a, again.id).state).toBe('expired');
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts);
    expect(audit(a).find((e) => e.action === 'expire' && e.subject === again.id)).toMatchObject({
      actor: USERS.erin,
      details: { held: true },
    });
    await until('the requester told', () =>
      a.fake
        .channel(a.fake.dmChannel(USERS.alice))
        .some((m) => (m.text ?? '').startsWith('⌛ Expired') && (m.text ?? '').includes('on hold')),
    );
    await until('the expired card', () =>
      text(cardOf(a, again)!).includes('while on hold, before an admin released it'),
    );
    expect(buttons(cardOf(a, again)!)).toEqual([]);
  });

  it('released (not expired): the requester is told by DM', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const again = await repeatOf(a, original);
    await webhook(a, get(a, original.id), 'PENDING');
    await click(a, USERS.erin, 'wd_hold_release', get(a, again.id));
    expect((await confirmHold(a, USERS.erin, 'The first one never left')).status).toBe(200);
    await until('the requester told', () =>
      a.fake.channel(a.fake.dmChannel(USERS.alice)).some((m) => (m.text ?? '').startsWith('▶️ Hold released')),
    );
  });

  it('a release and a reject at once: exactly one wins, nothing sent twice', async () => {
    const { a, again, posts } = await approvedAndHeld();
    const w = a.app.deps.withdrawals;
    const [rel, rej] = await Promise.all([
      w.settleHold(again.id, USERS.erin, 'release', 'checked'),
      w.settleHold(again.id, USERS.erin, 'reject', 'paid by the first'),
    ]);
    expect([rel.ok, rej.ok].filter(Boolean)).toHaveLength(1);
    const loser = rel.ok ? rej : rel;
    expect(loser).toMatchObject({ ok: false, reason: 'not_held' });
    if (rel.ok && rel.execution) await rel.execution;
    await w.idle();
    const end = get(a, again.id);
    expect(end.state).toBe(rel.ok ? 'completed' : 'rejected');
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts + (rel.ok ? 1 : 0));
  });

  it('a freeze and a hold: released while frozen, nothing is sent; held first, the freeze second', async () => {
    const { a, again, posts } = await approvedAndHeld();
    expect((await a.app.deps.freeze.freeze(USERS.erin, 'keys may have leaked')).ok).toBe(true);
    // While frozen, the hold is still what an admin decides; a release does not send.
    const out = await a.app.deps.withdrawals.settleHold(again.id, USERS.erin, 'release', 'checked');
    expect(out).toMatchObject({ ok: true });
    if (out.ok && out.execution) await out.execution;
    await a.app.deps.withdrawals.idle();
    expect(get(a, again.id)).toMatchObject({ state: 'approved', holdReleased: { by: USERS.erin } });
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts);
    expect(audit(a).some((e) => e.action === 'send_held' && e.subject === again.id)).toBe(true);
  });
});

describe('the wallet service asks us to verify a held request', () => {
  it('answers no while it is held with every approval in; the same request, released, is answered yes', async () => {
    offset = 0;
    gate = await startGate();
    const g = gate;
    let asking = false;
    // The sandbox asks our verify route (through the gate, which holds each call) only once we say so.
    const a = await app(undefined, {
      verificationUrl: () => (asking ? g.url : undefined),
      verificationTimeoutMs: 60_000,
    });
    g.target = `${a.app.url}/webhooks/wallet/${WEBHOOK_SECRET}/verify`;
    const verify = async (r: WithdrawalRequest) =>
      (await fetch(`${g.target}?reference=${encodeURIComponent(r.merchantReference)}`)).json();
    const original = await neverExecuted(a);
    const again = await repeatOf(a, original);
    await webhook(a, get(a, original.id), 'CONFIRMED');
    await click(a, USERS.carol, 'wd_approve', get(a, again.id));
    await until('the claim refused', () =>
      audit(a).some((e) => e.action === 'send_held_repeat' && e.subject === again.id),
    );
    const held = get(a, again.id);
    expect(held).toMatchObject({ state: 'approved', hold: { original: original.id } });
    expect(held.approvals).toHaveLength(held.tier.approvals);
    expect(await verify(held)).toEqual({ isVerified: false, checksum: '' });

    // Only the hold kept it from being confirmed: released, it is claimed and the service's question answered yes.
    asking = true;
    const out = await a.app.deps.withdrawals.settleHold(again.id, USERS.erin, 'release', 'checked: not paid');
    expect(out.ok).toBe(true);
    const call = await until('the sandbox asking', () => g.held[0]);
    expect(call.reference).toBe(again.merchantReference);
    expect(get(a, again.id).state).toBe('executing');
    expect(await verify(held)).toMatchObject({ isVerified: true });
    call.release();
    await until('sent', () => get(a, again.id).state === 'completed');
  });
});

describe('a payout retyped or reported, over HTTP', () => {
  it('a family member whose card was never queued: the hold of the webhook and all its notifications still commit', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    const repeat = await repeatOf(a, original);
    // Another request of the payout, never executed, whose card was never queued (heal() would post it).
    const ghost: WithdrawalRequest = {
      ...original,
      id: 'ghost-member',
      merchantReference: 'ghostref-0000-0000',
      repeatOf: original.id,
    };
    await a.app.deps.store.commit((tx) => tx.put(WITHDRAWALS, ghost.id, ghost));
    expect(a.app.deps.store.get(COLLECTIONS.messages, `withdrawal:${ghost.id}`)).toBeUndefined();
    const before = threadOf(a, cardOf(a, original)!).length;
    await webhook(a, get(a, original.id), 'CONFIRMED');
    expect(get(a, repeat.id).hold).toMatchObject({ original: original.id });
    await until('the repeat card on hold', () => text(cardOf(a, repeat)!).includes('On hold'));
    // Every notification of that commit was queued (a throw in the outbox would have dropped the
    // rest): the held line under the repeat, and the report under the original's card.
    await until('the held line', () => heldLines(a, repeat).length === 1);
    await until('the report under the original', () => threadOf(a, cardOf(a, original)!).length > before);
    expect(get(a, ghost.id).hold).toBeUndefined();
  });

  it('retyped after a Failed report: made on hold, its card names the earlier ref and why, and offers Send anyway', async () => {
    offset = 0;
    const a = await app();
    const original = await neverExecuted(a);
    await webhook(a, get(a, original.id), 'FAILED');
    const { responseUrl } = await a.command(
      '/withdraw',
      `50 USDT BSC ${DEST.toUpperCase().replace('0X', '0x')} ${CLIENT}`,
      USERS.bob,
    );
    // The requester hears at once that it is on hold, why, and who decides.
    const reply = String((await a.replies(responseUrl))[0]!.text);
    expect(reply).toMatch(/^⏸️ Requested, on hold · 50(\.00)? USDT on BSC: /);
    expect(reply).toContain('Nothing is sent until an admin chooses *Send anyway* or *Reject*');
    const again = await until('the retyped request', () =>
      a.app.deps.withdrawals.list().find((r) => r.id !== original.id),
    );
    expect(again).toMatchObject({ repeatOf: original.id, hold: { kind: 'retyped', original: original.id } });
    const card = await until('its card', () => cardOf(a, again));
    const words = text(card);
    expect(words).toContain(`ref \`${original.merchantReference.slice(0, 8)}\``);
    expect(words).toContain(
      'reported (Failed) after it had no record of it: any report means the wallet service has that request',
    );
    expect(words).toContain('If this is a separate payout');
    // The linked line: the currency, and what to do for a separate payout.
    expect(words).toMatch(/amount and currency \(50(\.00)? USDT\)/);
    expect(buttons(card)).toEqual(expect.arrayContaining(['wd_hold_release', 'wd_hold_reject']));
    // The admins are told once, in its thread.
    const held = await until('the held line', () => (heldLines(a, again).length ? heldLines(a, again) : undefined));
    expect(held).toHaveLength(1);
    expect(text(held[0]!)).toContain('separate payout');
    // Approved, nothing sent; an admin who checked sends it anyway (a separate payout), once.
    const posts = a.app.sandbox!.stats.withdrawals;
    await click(a, USERS.carol, 'wd_approve', get(a, again.id));
    await until('approved', () => get(a, again.id).state === 'approved');
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts);
    await click(a, USERS.erin, 'wd_hold_release', get(a, again.id));
    const form = await until('the hold form', () => a.fake.views().find((v) => v.callback_id === 'wd_hold_modal'));
    const formWords = JSON.stringify(form.blocks);
    expect(formWords).not.toContain('reported sent');
    expect(formWords).toContain('so it has that request');
    const res = await confirmHold(a, USERS.erin, 'The April payout: a separate one');
    expect(res.json).toBeUndefined();
    await until('sent', () => get(a, again.id).state === 'completed');
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(posts + 1);
  });
});
