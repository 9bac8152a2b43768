/**
 * Approving a batch payout whose total is above step_up_above / passkey_above, from Slack: signed
 * requests to the real Bolt receiver, the recording fake Slack, the sandbox, and a clock the test
 * moves (each code of a fresh time step). The code is asked for once per approver, in a modal bound
 * to the batch's file; a code confirmed for another file approves nothing, and is not even spent.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import type { Batch } from '../../src/batches/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import { codeAt } from '../../src/stepup/index.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { CHANNELS, startTestApp, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const HEAD = 'address,amount,currency,network,client_email,reference';
const file = (n: number, amount: string, prefix: string) =>
  [HEAD, ...Array.from({ length: n }, (_, i) => `${DEST},${amount},USDT,BSC,${CLIENT},${prefix}-${i + 1}`)].join('\n');
// Each row (200) is below the code's threshold; each batch's total (1,000) above it, in the one-approval tier.
const policy = (extra: string) =>
  parsePolicy(TEST_POLICY_YAML.replace('  daily_limit: { USDT: 50000 }\n', `  daily_limit: { USDT: 50000 }\n${extra}`));
const INVALID = 'That code is not valid. Type the current code from your authenticator app.';

let offset = 0;
const clock = () => Date.now() + offset;
let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
  offset = 0;
});

async function app(extra: string): Promise<TestApp> {
  t = await startTestApp({
    policy: policy(extra),
    now: clock,
    env: { SECRETS_KEY: randomBytes(32).toString('base64') },
  });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  return t;
}

/** A code of a step no earlier code used. */
const freshCode = (secret: string) => {
  offset += 30_000;
  return codeAt(secret, clock());
};

/** `user` sets up authenticator codes (the service's own enrolment: its Slack flow is test/stepup's). */
async function enrolled(a: TestApp, user: string): Promise<string> {
  const begun = await a.app.deps.stepUp.begin(user);
  if (!begun.ok) throw new Error(begun.message);
  expect(await a.app.deps.stepUp.confirm(user, freshCode(begun.secret))).toEqual({ ok: true });
  return begun.secret;
}

async function submitted(a: TestApp, text: string, name: string): Promise<{ b: Batch; card: FakeMessage }> {
  const out = await a.app.deps.batches!.submit({ text, fileName: name }, USERS.alice);
  if (!out.ok) throw new Error(JSON.stringify(out));
  const b = out.batch;
  const card = await until('the batch card', () => {
    const posted = a.app.deps.outbox.message(`batch-card:${b.id}`);
    return a.fake.channel(CHANNELS.approvals).find((m) => posted && m.ts === posted.ts);
  });
  return { b, card };
}

const clickApprove = (a: TestApp, user: string, b: Batch, card: FakeMessage) =>
  a.click(
    user,
    { actionId: 'batch_approve', value: b.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
  );

const submitCode = (a: TestApp, user: string, meta: { id: string; sha256: string }, code: string) =>
  a.submitView(user, {
    callbackId: 'batch_step_up',
    privateMetadata: JSON.stringify(meta),
    values: { stepup_code: { code: { type: 'plain_text_input', value: code } } },
  });
const inlineError = (res: { json: unknown }) =>
  (res.json as { errors?: Record<string, string> } | undefined)?.errors?.stepup_code;
const modals = (a: TestApp) => a.fake.views().filter((v) => v.callback_id === 'batch_step_up');
const audit = (a: TestApp) => a.app.deps.store.all(AUDIT_COLLECTION);

describe('approving a batch payout above step_up_above', () => {
  it('asks each approver for a code bound to the file; another file’s code approves nothing and is not spent', async () => {
    const a = await app('  step_up_above: { USDT: 500 }\n');
    const secret = await enrolled(a, USERS.carol);
    const one = await submitted(a, file(5, '200', 'A'), 'november.csv');
    const other = await submitted(a, file(4, '250', 'B'), 'december.csv');
    expect(one.b.sha256).not.toBe(other.b.sha256);
    expect(one.b).toMatchObject({ stepUp: true, stepUpNeed: 'code', tier: { approvals: 1 } });
    expect(visibleText(one.card)).toMatch(/authenticator code/);

    // Approve opens the code modal, naming the batch's rows, total and file; nothing is recorded yet.
    await clickApprove(a, USERS.carol, one.b, one.card);
    const modal = await until('the code modal', () => modals(a)[0]);
    expect(JSON.parse(modal.private_metadata ?? '{}')).toEqual({ id: one.b.id, sha256: one.b.sha256 });
    const words = visibleText({ blocks: modal.blocks });
    expect(words).toContain('5 rows');
    expect(words).toContain('1,000.00 USDT');
    expect(words).toContain('november.csv');
    expect(a.app.deps.batches!.get(one.b.id)!.approvals).toEqual([]);
    // The plain path, without a confirmed code, cannot approve it.
    expect(await a.app.deps.batches!.approve(one.b.id, USERS.carol)).toMatchObject({ reason: 'step_up_required' });

    // A code confirmed for the other file (its modal) is refused for this batch, before the code is checked.
    const verifiedBefore = audit(a).filter((e) => e.action === 'stepup_verified').length;
    const crossed = await submitCode(a, USERS.carol, { id: one.b.id, sha256: other.b.sha256 }, freshCode(secret));
    expect(inlineError(crossed)).toMatch(/another file/);
    expect(audit(a).filter((e) => e.action === 'stepup_verified')).toHaveLength(verifiedBefore);
    expect(a.app.deps.batches!.get(one.b.id)!.approvals).toEqual([]);
    // A wrong code approves nothing either.
    expect(inlineError(await submitCode(a, USERS.carol, { id: one.b.id, sha256: one.b.sha256 }, '000000'))).toMatch(
      /not valid|tries left/,
    );
    expect(inlineError(await submitCode(a, USERS.carol, { id: one.b.id, sha256: one.b.sha256 }, 'abc'))).toBe(INVALID);
    expect(a.app.deps.batches!.get(one.b.id)!.approvals).toEqual([]);
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);

    // The code of this file: approved once (the one approval its tier needs), then every row sent. The
    // rows are judged once, by the approval (a full check before the code too came close to Slack's 3 s).
    const judgements = vi.spyOn(a.app.deps.batches!, 'check');
    const approvals = vi.spyOn(a.app.deps.batches!, 'approve');
    const ok = await submitCode(a, USERS.carol, { id: one.b.id, sha256: one.b.sha256 }, freshCode(secret));
    expect(ok.body).toBe('');
    expect(judgements).not.toHaveBeenCalled();
    expect(approvals).toHaveBeenCalledTimes(1);
    await until('every row sent', () => a.app.deps.batches!.get(one.b.id)?.state === 'done', 30_000);
    expect(a.app.sandbox!.stats.withdrawals).toBe(5);
    expect(a.app.deps.batches!.get(one.b.id)!.approvals).toMatchObject([{ user: USERS.carol, stepUp: 'verified' }]);
    expect(audit(a).find((e) => e.action === 'batch_approve' && e.subject === one.b.id)?.details).toMatchObject({
      stepUp: 'verified',
      stepUpFor: one.b.sha256,
    });
    // The other batch is still waiting: the code of one file was no approval of another.
    expect(a.app.deps.batches!.get(other.b.id)).toMatchObject({ state: 'pending', approvals: [] });

    // An approver without codes is told how to set them up, and no modal opens.
    const before = modals(a).length;
    const { responseUrl } = await clickApprove(a, USERS.dave, other.b, other.card);
    const replies = await a.repliesUntil(responseUrl, (r) => /Home tab/.test(String(r.text)));
    expect(String(replies.at(-1)!.text)).toMatch(/batch payout/);
    expect(modals(a)).toHaveLength(before);
    // The requester is refused before any code is asked for.
    const own = await clickApprove(a, USERS.alice, other.b, other.card);
    await a.repliesUntil(own.responseUrl, (r) => /your own batch payout/.test(String(r.text)));
    expect(modals(a)).toHaveLength(before);
  });

  it('above passkey_above only a passkey counts: no code modal, and a code submitted anyway approves nothing', async () => {
    const a = await app('  step_up_above: { USDT: 500 }\n  passkey_above: { USDT: 900 }\n');
    const secret = await enrolled(a, USERS.carol);
    const { b, card } = await submitted(a, file(5, '200', 'P'), 'payouts.csv');
    expect(b.stepUpNeed).toBe('passkey');
    const { responseUrl } = await clickApprove(a, USERS.carol, b, card);
    const replies = await a.repliesUntil(responseUrl, (r) => /passkey/i.test(String(r.text)));
    expect(String(replies.at(-1)!.text)).toMatch(/passkey/);
    expect(modals(a)).toEqual([]);
    // A code modal forged for this very file: the code is not enough at this total.
    const forged = await submitCode(a, USERS.carol, { id: b.id, sha256: b.sha256 }, freshCode(secret));
    expect(inlineError(forged)).toMatch(/passkey/);
    expect(a.app.deps.batches!.get(b.id)).toMatchObject({ state: 'pending', approvals: [] });
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
  });
});
