/** Sending: exact amounts, the service's answers, unknown outcomes, reconciliation, webhooks. */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION, verifyAudit, type AuditEntry } from '../../src/audit/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { scheduleJobs } from '../../src/jobs/table.js';
import { Scheduler } from '../../src/jobs/scheduler.js';
import { collection } from '../../src/store/index.js';
import { quietLogger, usdt, walletFor, world, type World } from './helpers.js';

/** The caller's own write in the same commit: any record will do, in the webhook events' collection. */
const CALLER_EVENTS = collection<{ received: boolean }>('webhook_events');

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const WITHDRAW_PATH = '/api/merchantClientWithdrawal';

async function requested(input: ReturnType<typeof usdt>, by = 'U0ALICE'): Promise<WithdrawalRequest> {
  const r = await w!.service.request(input, by);
  if (!r.ok) throw new Error(`${r.rule}: ${r.message}`);
  return r.request;
}

async function approvedAndSent(id: string, by = 'U0CAROL'): Promise<WithdrawalRequest> {
  const a = await w!.service.approve(id, by);
  if (!a.ok) throw new Error(a.message);
  if (!a.execution) throw new Error('expected the approval to start the send');
  return a.execution;
}

async function deadUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

describe('sending', () => {
  it('an 18-decimal ETH amount reaches the sandbox exactly, and the result is recorded', async () => {
    w = await world();
    const amount = '1.123456789012345678';
    const r = await requested({ ...usdt(amount), currency: 'ETH', network: 'ETH' });
    const done = await approvedAndSent(r.id);
    expect(done.state).toBe('completed');
    const txs = w.sandbox.transactions().filter((t) => t.reference === r.merchantReference);
    expect(txs).toHaveLength(1);
    expect(txs[0]!.amount).toBe(amount);
    expect(done.result).toMatchObject({ source: 'wallet', amount, feeCurrency: 'ETH' });
    expect(done.result?.serviceReference).toMatch(/^SWT-/);
    expect(done.result?.fee).toMatch(/^\d+(\.\d+)?$/);
    const body = w.sandbox.stats.requests.find((q) => q.path.startsWith(WITHDRAW_PATH))?.body ?? '';
    expect(body).toContain(`"amount":${amount}`);
    expect(body).toContain(r.merchantReference);
    const actions = w.store.all<AuditEntry>(AUDIT_COLLECTION).map((e) => e.action);
    expect(actions).toEqual(['request', 'approve', 'send', 'result']);
    expect(verifyAudit(w.store)).toEqual({ ok: true, count: 4 });
    expect(w.events.map((e) => e.type)).toEqual(['requested', 'approved', 'executing', 'completed']);
  });

  it('executing is durable before the wallet service is called', async () => {
    w = await world();
    const r = await requested(usdt('10'));
    let seen: { state?: string; postsAtHook?: number } = {};
    w.rebuild({
      hooks: {
        afterExecutingDurable: async (req) => {
          // Reopening would need the lock; reading the journal file is what a restart would see.
          const { readFile } = await import('node:fs/promises');
          const journal = await readFile(`${w!.dir}/journal.jsonl`, 'utf8');
          const lines = journal
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { ops: Array<{ c: string; id: string; v: WithdrawalRequest }> });
          const last = lines
            .flatMap((l) => l.ops)
            .filter((op) => op.c === 'withdrawals' && op.id === req.id)
            .pop();
          seen = { state: last?.v.state, postsAtHook: w!.posts() };
        },
      },
    });
    expect((await approvedAndSent(r.id)).state).toBe('completed');
    expect(seen).toEqual({ state: 'executing', postsAtHook: 0 });
  });

  it('a 400 from the service -> failed with its message, never retried', async () => {
    w = await world({ balance: [['USDT', 'BSC', '5']] });
    const r = await requested(usdt('10'));
    const done = await approvedAndSent(r.id);
    expect(done.state).toBe('failed');
    expect(done.error?.kind).toBe('rejected');
    expect(done.error?.message).toContain('Insufficient balance');
    await w.service.recover();
    await w.service.reconcileUnknown();
    await w.service.expireDue();
    expect(w.posts()).toBe(1);
    expect(w.service.get(r.id)?.state).toBe('failed');
  });

  it('unreachable before sending -> failed, "nothing was sent"', async () => {
    w = await world();
    w.rebuild({ wallet: walletFor(await deadUrl()) });
    const r = await requested(usdt('10'));
    const done = await approvedAndSent(r.id);
    expect(done.state).toBe('failed');
    expect(done.error?.kind).toBe('not_sent');
    expect(done.error?.message).toMatch(/nothing was sent/i);
  });

  it('answer lost after the service committed -> unknown, not resent; reconciliation finds it -> completed', async () => {
    w = await world();
    const r = await requested(usdt('10'));
    w.sandbox.injectFault(WITHDRAW_PATH, { kind: 'drop-after-commit' });
    const done = await approvedAndSent(r.id);
    expect(done.state).toBe('unknown');
    expect(done.unknownReason).toBeTruthy();
    expect(w.posts()).toBe(1);
    expect(w.sandboxWithdrawals(r.merchantReference)).toBe(1);
    // Recovery and the jobs never resend.
    const rec = await w.service.recover();
    expect(rec.markedUnknown).toEqual([]);
    expect(rec.reconcile.resolved.map((x) => x.id)).toEqual([r.id]);
    const after = w.service.get(r.id)!;
    expect(after.state).toBe('completed');
    expect(after.result).toMatchObject({ source: 'reconcile', amount: '10' });
    expect(after.result?.transactionHash).toBeTruthy();
    expect(w.posts()).toBe(1);
    expect(w.store.all<AuditEntry>(AUDIT_COLLECTION).map((e) => e.action)).toEqual([
      'request',
      'approve',
      'send',
      'unknown',
      'reconcile',
    ]);
  });

  it('a request lost before the service committed stays unknown (never resent) until an admin resolves it', async () => {
    w = await world();
    const r = await requested(usdt('10'));
    w.sandbox.injectFault(WITHDRAW_PATH, { kind: 'drop-before-commit' });
    const done = await approvedAndSent(r.id);
    expect(done.state).toBe('unknown');
    const rep = await w.service.reconcileUnknown();
    expect(rep).toMatchObject({ checked: 1, resolved: [], stillUnknown: [r.id] });
    await w.service.recover();
    expect(w.service.get(r.id)?.state).toBe('unknown');
    expect(w.posts()).toBe(1);
    expect(w.sandboxWithdrawals(r.merchantReference)).toBe(0);

    const denied = async (p: Promise<{ ok: boolean; reason?: string }>, reason: string) => {
      const o = await p;
      expect(o.ok ? 'ok' : o.reason).toBe(reason);
    };
    await denied(w.service.resolveUnknown(r.id, 'U0CAROL', 'not_sent', 'checked'), 'not_admin');
    await denied(w.service.resolveUnknown(r.id, 'U0ERIN', 'not_sent', ' '), 'note_required');
    const ok = await w.service.resolveUnknown(r.id, 'U0ERIN', 'not_sent', 'service support confirmed it never arrived');
    if (!ok.ok) throw new Error(ok.message);
    expect(ok.request.state).toBe('failed');
    expect(ok.request.resolution).toMatchObject({ by: 'U0ERIN', outcome: 'not_sent' });
    await denied(w.service.resolveUnknown(r.id, 'U0ERIN', 'sent', 'again'), 'not_unknown');
    expect(w.posts()).toBe(1);
    expect(w.store.all<AuditEntry>(AUDIT_COLLECTION).at(-1)).toMatchObject({ action: 'resolve', actor: 'U0ERIN' });
  });

  it('an admin can resolve an unknown request as sent', async () => {
    w = await world();
    const r = await requested(usdt('10'));
    w.sandbox.injectFault(WITHDRAW_PATH, { kind: 'status', status: 503 });
    expect((await approvedAndSent(r.id)).state).toBe('unknown');
    const ok = await w.service.resolveUnknown(r.id, 'U0ERIN', 'sent', 'seen on the block explorer');
    expect(ok.ok && ok.request.state).toBe('completed');
    expect(ok.ok && ok.request.result?.source).toBe('admin');
  });

  it('the daily limit keeps counting unknown requests (money may have moved)', async () => {
    w = await world({ policy: { dailyLimit: { USDT: '15' } } });
    const r = await requested(usdt('10'));
    w.sandbox.injectFault(WITHDRAW_PATH, { kind: 'drop-before-commit' });
    expect((await approvedAndSent(r.id)).state).toBe('unknown');
    expect(w.service.dailyUsage('USDT').used).toBe('10');
    const over = await w.service.request(usdt('5.000001'), 'U0BOB');
    expect(!over.ok && over.rule).toBe('daily_limit');
  });
});

// Since invariant 14 is enforced, a withdrawal webhook is a CLAIM (unsigned: anyone who learns the
// URL can post one): recorded as the request's `notice`, then the wallet service is asked, and only
// its answer settles or is shown. These tests kept their intent; where one asserted that a webhook
// settled or marked a request, the sandbox's status answer for the reference now does (see the
// comments), and test/withdrawals/forged-webhooks.test.ts covers forged ones end to end.
describe('withdrawal webhooks', () => {
  it("record the claim and the service's word; duplicates change nothing", async () => {
    // Each notification here prompts its own question: 50 ms apart, not the production 5 s
    // (notice-throttle.ts, tested on its own in reconcile-notice.test.ts), or the test waits 10 s.
    w = await world({ service: { noticeThrottle: { minIntervalMs: 50 } } });
    const r = await requested(usdt('10'));
    await approvedAndSent(r.id);
    const ref = r.merchantReference;
    expect(await w.service.onWithdrawalEvent({ merchantReference: 'other', status: 'PENDING' })).toEqual({
      matched: false,
      changed: false,
    });
    const pending = await w.service.onWithdrawalEvent({
      merchantReference: ref,
      status: 'PENDING',
      transactionHash: null,
    });
    expect(pending.changed).toBe(true);
    // The transfer status shown is the service's answer (Completed), not the claim (PENDING).
    expect(pending.request).toMatchObject({
      notice: { status: 'PENDING', waiting: false },
      confirmation: { status: 'CONFIRMED' },
    });
    const serviceHash = pending.request?.confirmation?.transactionHash;
    expect(serviceHash).toMatch(/^0x[0-9a-f]{64}$/);
    const confirmed = await w.service.onWithdrawalEvent({
      merchantReference: ref,
      status: 3,
      transactionHash: '0xabc',
    });
    expect(confirmed.changed).toBe(true);
    // A claimed hash is kept as the claim's, never as the transfer's.
    expect(confirmed.request?.notice).toMatchObject({ status: 'CONFIRMED', transactionHash: '0xabc' });
    expect(confirmed.request?.confirmation?.transactionHash).toBe(serviceHash);
    expect(
      (await w.service.onWithdrawalEvent({ merchantReference: ref, status: 'CONFIRMED', transactionHash: '0xabc' }))
        .changed,
    ).toBe(false);
    const final = w.service.get(r.id)!;
    expect(final.state).toBe('completed');
    expect(final.confirmation?.status).toBe('CONFIRMED');
    expect(w.events.filter((e) => e.type === 'confirmation')).toHaveLength(1);
    expect(w.events.filter((e) => e.type === 'notice-disagreed')).toHaveLength(0);
  });

  it("a notification prompts the question; the service's answer settles an unknown request", async () => {
    w = await world();
    const r = await requested(usdt('10'));
    w.sandbox.injectFault(WITHDRAW_PATH, { kind: 'drop-after-commit' });
    expect((await approvedAndSent(r.id)).state).toBe('unknown');
    // Was: PENDING recorded, CONFIRMED completed (source webhook). Now the sandbox's status for the
    // reference (Completed: it executed it) settles it at the first notification, whatever it says.
    const e = await w.service.onWithdrawalEvent({
      merchantReference: r.merchantReference,
      status: 'PENDING',
      transactionHash: '0xdef',
    });
    expect(e.request?.state).toBe('completed');
    expect(e.request?.result).toMatchObject({ source: 'reconcile', via: 'status' });
    expect(w.posts()).toBe(1);
  });

  it('a FAILED or NOT_PROPAGATED notification settles nothing: the service executed it, so it is completed', async () => {
    w = await world();
    const r = await requested(usdt('10'));
    w.sandbox.injectFault(WITHDRAW_PATH, { kind: 'drop-after-commit' });
    expect((await approvedAndSent(r.id)).state).toBe('unknown');
    // Was: settled as failed on the webhook's word. The service's answer decides, and the claim is contradicted.
    const e = await w.service.onWithdrawalEvent({ merchantReference: r.merchantReference, status: 5 });
    expect(e.request).toMatchObject({
      state: 'completed',
      notice: { status: 'NOT_PROPAGATED', disagreed: { service: 'Completed' } },
    });
    expect(w.events.some((x) => x.type === 'notice-disagreed')).toBe(true);
  });

  it("the service's final word that contradicts our state is recorded for an admin, and changes nothing else", async () => {
    w = await world();
    const r = await requested(usdt('10'));
    expect((await approvedAndSent(r.id)).state).toBe('completed');
    // Was: a FAILED webhook contradicted it. Now the service's status for the reference must say Failed.
    w.sandbox.setWithdrawalStatus(r.merchantReference, 4);
    const e = await w.service.onWithdrawalEvent({
      merchantReference: r.merchantReference,
      status: 'FAILED',
      transactionHash: '0x9',
    });
    expect(e.request).toMatchObject({ state: 'completed', confirmation: { status: 'FAILED' } });
    expect(w.events.some((x) => x.type === 'contradiction')).toBe(true);
    expect(w.store.all<AuditEntry>(AUDIT_COLLECTION).map((x) => x.action)).toContain('service_contradiction');
  });

  it("records the claim inside a caller's commit, durable with the caller's own write; it settles nothing there", async () => {
    w = await world();
    const r = await requested(usdt('10'));
    w.sandbox.injectFault(WITHDRAW_PATH, { kind: 'drop-after-commit' });
    await approvedAndSent(r.id);
    const applied = await w.store.commit((tx) => {
      tx.put(CALLER_EVENTS, 'e1', { received: true });
      return w!.service.applyWithdrawalEvent(tx, { merchantReference: r.merchantReference, status: 'CONFIRMED' });
    });
    expect(applied.event?.type).toBe('notice');
    expect(w.service.get(r.id)).toMatchObject({ state: 'unknown', notice: { status: 'CONFIRMED', waiting: true } });
    expect(w.store.get(CALLER_EVENTS, 'e1')).toEqual({ received: true });
    // Asked once it is durable: the service's answer settles it.
    expect((await w.service.checkNotice(r.merchantReference))?.state).toBe('completed');
  });
});

describe('jobs', () => {
  it('the job table adds expiry/reminders and reconciliation that the scheduler can run', async () => {
    w = await world();
    const scheduler = new Scheduler(quietLogger());
    scheduleJobs(scheduler, { withdrawals: w.service });
    expect(scheduler.names()).toEqual(['withdrawals.expire-and-remind', 'withdrawals.reconcile-unknown']);
    const r = await requested(usdt('10'));
    w.clock.now = Date.parse(r.expiresAt);
    await scheduler.runNow('withdrawals.expire-and-remind');
    expect(w.service.get(r.id)?.state).toBe('expired');

    const r2 = await requested(usdt('10'));
    w.sandbox.injectFault(WITHDRAW_PATH, { kind: 'drop-after-commit' });
    expect((await approvedAndSent(r2.id)).state).toBe('unknown');
    await scheduler.runNow('withdrawals.reconcile-unknown');
    expect(w.service.get(r2.id)?.state).toBe('completed');
    await scheduler.stop();
  });
});

describe('the service answer is checked against the approval', () => {
  it('flags an answer about another reference, destination or amount for an admin', async () => {
    // The wallet service's answer, as a faulty service could give it: the real sandbox sends, the reply is altered.
    w = await world({
      service: {
        wallet: {
          withdraw: async (i) => ({
            ...(await w!.wallet.withdraw(i)),
            merchantReference: 'someone-else',
            amountRequested: '11',
          }),
          listTransactions: (f) => w!.wallet.listTransactions(f),
        },
      },
    });
    const r = await requested(usdt('10'));
    const done = await approvedAndSent(r.id);
    expect(done.state).toBe('completed');
    expect(done.result?.mismatches).toEqual([
      `merchant reference someone-else instead of ${r.merchantReference}`,
      'amount 11 instead of 10',
    ]);
  });
});
