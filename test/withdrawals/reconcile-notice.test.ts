/**
 * The questions a notification prompts (src/withdrawals/reconcile.ts): a real store and shell, a
 * wallet stand-in that counts what it is asked. One question per request at a time (the job's
 * too), notification-prompted ones throttled and cheap, an answer about another payment settling
 * nothing, and a request found never executed asked about again after a notification.
 */
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { WalletClient } from '../../src/wallet/client.js';
import type { WithdrawalStatus } from '../../src/wallet/client/withdrawal-status.js';
import type { NoticeThrottleOptions } from '../../src/withdrawals/notice-throttle.js';
import { createReconciler } from '../../src/withdrawals/reconcile.js';
import { createShell, WITHDRAWALS } from '../../src/withdrawals/shell.js';
import type { WithdrawalEvent, WithdrawalRequest } from '../../src/withdrawals/types.js';
import { DEST, quietLogger, T0, tempDir } from './helpers.js';
import { decide } from '../../src/withdrawals/decide/index.js';
import { ctx, policy, unknownRequest } from './notice-helpers.js';
import { changingPolicy } from '../helpers/policy-source.js';

const DAY = 86_400_000;

type Answer = WithdrawalStatus['status'] | Partial<WithdrawalStatus> | Error;

interface Rig {
  store: Store;
  clock: { now: number };
  events: WithdrawalEvent[];
  statusCalls: string[];
  listCalls: number;
  inFlight: { now: number; max: number };
  /** The next answers of the status operation, in order (the last one repeats). */
  answers: Answer[];
  /** Holds every status answer until released. */
  gate?: Promise<void>;
  listPages: number;
  reconciler: ReturnType<typeof createReconciler>;
  put(...reqs: WithdrawalRequest[]): Promise<void>;
  notice(id: string, status: unknown, hash?: string): Promise<void>;
  get(id: string): WithdrawalRequest;
  audit(id: string): Array<{ action: string; details: Record<string, unknown> }>;
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function rig(throttle?: NoticeThrottleOptions): Promise<Rig> {
  const dir = await tempDir();
  const store = await openStore({ dir });
  cleanup.push(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const clock = { now: T0 + 60_000 };
  const events: WithdrawalEvent[] = [];
  const shell = createShell({
    store,
    policy: changingPolicy(() => policy),
    now: () => clock.now,
    logger: quietLogger(),
    // The change hook fires inside the commit that makes the change (shell.ts).
    onChange: (e) => {
      events.push(e);
    },
  });
  const r = {
    store,
    clock,
    events,
    statusCalls: [] as string[],
    listCalls: 0,
    inFlight: { now: 0, max: 0 },
    answers: ['pending'] as Answer[],
    listPages: 10,
  } as Rig;
  const wallet = {
    async withdrawalStatus(reference: string): Promise<WithdrawalStatus> {
      r.statusCalls.push(reference);
      r.inFlight.now++;
      r.inFlight.max = Math.max(r.inFlight.max, r.inFlight.now);
      try {
        await r.gate;
        await new Promise((resolve) => setTimeout(resolve, 1));
        const a = r.answers.length > 1 ? r.answers.shift()! : r.answers[0]!;
        if (a instanceof Error) throw a;
        const base = { merchantReference: reference, amount: null, destinationAddress: null, transactionHash: null };
        return typeof a === 'string' ? { ...base, status: a } : { ...base, status: 'pending', ...a };
      } finally {
        r.inFlight.now--;
      }
    },
    // A list of other withdrawals, one per page, as the service pages it (src/wallet/pager.ts reads its totals).
    async listTransactions(f: { page?: number; pageSize?: number }) {
      r.listCalls++;
      const page = f.page ?? 1;
      return {
        records: [{ reference: `someone-else-${page}`, raw: { page } }],
        currentPage: page,
        totalPages: r.listPages,
        totalRecords: r.listPages,
        page,
        pageSize: 1,
      };
    },
  } as unknown as Pick<WalletClient, 'listTransactions' | 'withdrawalStatus'>;
  r.reconciler = createReconciler(shell, {
    wallet,
    logger: quietLogger(),
    maxPages: 10,
    pageSize: 100,
    ...(throttle ? { noticeThrottle: throttle } : {}),
  });
  r.put = (...reqs) =>
    store.commit((tx) => {
      for (const q of reqs) tx.put(WITHDRAWALS, q.id, q);
    });
  r.notice = async (id, status, hash) => {
    await store.commit((tx) =>
      shell.apply(tx, { type: 'notice', status, ...(hash ? { transactionHash: hash } : {}) }, tx.get(WITHDRAWALS, id)),
    );
  };
  r.get = (id) => store.get(WITHDRAWALS, id)!;
  r.audit = (id) =>
    store.all(AUDIT_COLLECTION).filter((e: { subject: string }) => e.subject === id) as Array<{
      action: string;
      details: Record<string, unknown>;
    }>;
  return r;
}

describe('one question per request at a time', () => {
  it("the reconcile job's question waits for a notification's question about the same request", async () => {
    const r = await rig();
    await r.put(unknownRequest('w1'));
    await r.notice('w1', 'FAILED');
    let release!: () => void;
    r.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The notification's question is under way (a stale Pending, say); the job asks meanwhile.
    r.answers = ['pending', 'completed'];
    const asked = r.reconciler.check('w1');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const job = r.reconciler.run();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(r.inFlight.max).toBe(1);
    release();
    await asked;
    await job;
    expect(r.inFlight.max).toBe(1);
    expect(r.statusCalls).toHaveLength(2);
    // Committed in the order asked: the newer Completed stands.
    expect(r.get('w1')).toMatchObject({ state: 'completed', confirmation: { status: 'CONFIRMED' } });
  });
});

describe('questions prompted by notifications are throttled', () => {
  it('at least the interval between two questions about one request; notifications in between share the next', async () => {
    const r = await rig({ minIntervalMs: 300 });
    await r.put(unknownRequest('w1'));
    await r.notice('w1', 'FAILED');
    const started = performance.now();
    await r.reconciler.check('w1');
    expect(r.statusCalls).toHaveLength(1);
    await r.notice('w1', 'junk-1');
    const second = r.reconciler.check('w1');
    await r.notice('w1', 'junk-2');
    const third = r.reconciler.check('w1');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.statusCalls).toHaveLength(1);
    await Promise.all([second, third]);
    expect(r.statusCalls).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('a global budget (burst 20): a flood of notifications for many requests is not all asked; the job asks the rest', async () => {
    const r = await rig({ minIntervalMs: 0 });
    const ids = Array.from({ length: 40 }, (_, i) => `w${i}`);
    await r.put(...ids.map((id) => unknownRequest(id)));
    for (const id of ids) await r.notice(id, 'FAILED');
    await Promise.all(ids.map((id) => r.reconciler.check(id)));
    expect(r.statusCalls.length).toBeGreaterThanOrEqual(20);
    expect(r.statusCalls.length).toBeLessThan(25);
    expect(ids.filter((id) => r.get(id).notice?.waiting)).toHaveLength(40);
    // The reconcile job is never throttled.
    const before = r.statusCalls.length;
    await r.reconciler.run();
    expect(r.statusCalls.length - before).toBe(40);
  });

  it("a notification's question reads one page of the transaction list at most; the job's reads up to its limit", async () => {
    const r = await rig();
    await r.put(unknownRequest('w1'));
    r.answers = [new Error('status unavailable')];
    await r.notice('w1', 'FAILED');
    await r.reconciler.check('w1');
    expect(r.listCalls).toBe(1);
    await r.reconciler.run();
    expect(r.listCalls).toBe(11);
  });
});

describe("the status answer must be about this request's payment", () => {
  it('another amount or destination: nothing settled, audited, the admins told once; the same destination in other case is the same', async () => {
    const r = await rig();
    await r.put(unknownRequest('w1'));
    await r.notice('w1', 'FAILED');
    r.answers = [{ status: 'completed', amount: '999', destinationAddress: DEST }];
    await r.reconciler.check('w1');
    expect(r.get('w1')).toMatchObject({ state: 'unknown', notice: { waiting: true } });
    expect(r.get('w1').confirmation).toBeUndefined();
    expect(r.audit('w1').filter((e) => e.action === 'service_mismatch')).toHaveLength(1);
    expect(r.audit('w1').some((e) => e.action === 'notice_contradiction')).toBe(false);
    await r.reconciler.run();
    await r.reconciler.run();
    expect(r.events.filter((e) => e.type === 'service-mismatch')).toHaveLength(1);
    expect(r.audit('w1').filter((e) => e.action === 'service_mismatch')).toHaveLength(1);

    r.answers = [{ status: 'completed', amount: '10.000', destinationAddress: DEST.toUpperCase().replace('0X', '0x') }];
    await r.reconciler.run();
    expect(r.get('w1').state).toBe('completed');
  });

  it('an answer naming another merchant reference is no answer: nothing settled, the list asked instead', async () => {
    const r = await rig();
    await r.put(unknownRequest('w1'));
    r.answers = [{ status: 'completed', merchantReference: 'ref-other' }];
    await r.reconciler.run();
    expect(r.get('w1').state).toBe('unknown');
    expect(r.listCalls).toBeGreaterThan(0);
  });
});

describe('a request found never executed is asked about again after a notification', () => {
  const neverExecuted = (): WithdrawalRequest => {
    const d = decide(
      {
        type: 'settle-by-status',
        status: {
          status: 'not_found',
          merchantReference: 'ref-w1',
          amount: null,
          destinationAddress: null,
          transactionHash: null,
        },
      },
      unknownRequest('w1'),
      ctx(T0 + DAY),
    );
    if (d.kind !== 'changed') throw new Error('not settled');
    return d.next;
  };

  it('a forged PENDING judged (NotFound), then the service has it: the job asks for 7 days and its report is recorded', async () => {
    const r = await rig();
    // Built past the grace, so NotFound settles it as never executed.
    r.clock.now = T0 + DAY;
    const req = neverExecuted();
    expect(req).toMatchObject({ state: 'failed', error: { kind: 'never_executed' } });
    await r.put(req);
    r.answers = ['not_found'];
    await r.notice('w1', 'PENDING');
    await r.reconciler.check('w1');
    expect(r.get('w1').notice).toMatchObject({ waiting: false, disagreed: { service: 'NotFound' } });

    // The genuine PENDING (the same claim, no hash) is deduplicated; the job keeps asking.
    r.answers = ['pending'];
    await r.notice('w1', 'PENDING');
    expect(r.get('w1').notice?.waiting).toBe(false);
    const calls = r.statusCalls.length;
    await r.reconciler.run();
    expect(r.statusCalls.length).toBe(calls + 1);
    expect(r.get('w1').confirmation).toMatchObject({ status: 'PENDING' });

    // Seven days after the notification, no more.
    r.clock.now = Date.parse(r.get('w1').notice!.at) + 7 * DAY;
    const later = r.statusCalls.length;
    await r.reconciler.run();
    expect(r.statusCalls.length).toBe(later);
  });
});
