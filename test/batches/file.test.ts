/**
 * The pure core of batch payouts: the file read and validated whole (every error at once, by row,
 * column and reason), the batch judged by the rule table on its total, the rows' references, the
 * pace, and the approval's rules.
 */
import { describe, expect, it } from 'vitest';
import { approveBatch, progressOf, progressWords } from '../../src/batches/decide.js';
import { batchTier, judgeBatch, totalsOf } from '../../src/batches/judge.js';
import { paced } from '../../src/batches/pace.js';
import { fileSha256, rowReference, rowRequestId } from '../../src/batches/reference.js';
import { rowRequest } from '../../src/batches/rows.js';
import type { Batch } from '../../src/batches/types.js';
import { validatePayoutFile } from '../../src/batches/validate.js';
import { CLIENT, DEST, T0, testPolicy } from '../withdrawals/helpers.js';

const HEAD = 'address,amount,currency,network,client_email';
const line = (amount: string, o: Partial<{ address: string; email: string }> = {}) =>
  `${o.address ?? DEST},${amount},USDT,BSC,${o.email ?? CLIENT}`;
const file = (lines: string[], head = HEAD) => [head, ...lines].join('\n');
const policy = testPolicy({ dailyLimit: { USDT: '1000000' } });

function batchOf(text: string, p = policy): Batch {
  const v = validatePayoutFile(text, p);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const totals = totalsOf(v.rows, undefined);
  const tier = batchTier(p, totals);
  if ('refused' in tier) throw new Error(tier.refused);
  const at = new Date(T0).toISOString();
  return {
    id: 'b1',
    requester: 'U0ALICE',
    fileName: 'payouts.csv',
    sha256: fileSha256(text),
    state: 'pending',
    rows: v.rows,
    totals,
    tier,
    stepUp: false,
    approvals: [],
    newDestinations: 0,
    unlisted: 0,
    createdAt: at,
    expiresAt: new Date(T0 + 7_200_000).toISOString(),
  };
}

describe('the payout file', () => {
  it('takes the columns in any order, with the optional ones, and keeps the row numbers a spreadsheet shows', () => {
    const text = [
      'Client_Email,network,currency,amount,address,label,reference,note',
      `${CLIENT},BSC,usdt,10.5,${DEST},Ada,INV-1,refund`,
      '',
      `${CLIENT},BSC,USDT,20,${DEST},Bob,INV-2,`,
    ].join('\r\n');
    const v = validatePayoutFile(text, policy);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.rows.map((r) => [r.row, r.amount, r.currency, r.label, r.reference, r.note])).toEqual([
      [2, '10.5', 'USDT', 'Ada', 'INV-1', 'refund'],
      [4, '20', 'USDT', 'Bob', 'INV-2', ''],
    ]);
  });

  it('answers a file with 20 bad rows with 20 precise errors, every one at once', () => {
    const lines: string[] = [];
    for (let i = 0; i < 40; i++) {
      if (i % 2) lines.push(line(`5.${i}`));
      else if (i % 8 === 0) lines.push(line('abc'));
      else if (i % 8 === 2) lines.push(line('1.1234567890123456789'));
      else if (i % 8 === 4) lines.push(line('3', { address: '0x123' }));
      else lines.push(line('4', { email: 'not-an-email' }));
    }
    const v = validatePayoutFile(file(lines), policy);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.errors).toHaveLength(20);
    expect(v.errors[0]).toMatchObject({ row: 2, column: 'amount' });
    expect(v.errors[1]).toMatchObject({ row: 4, column: 'amount' });
    expect(v.errors[1]?.reason).toMatch(/decimal places/);
    expect(v.errors[2]).toMatchObject({ row: 6, column: 'address' });
    expect(v.errors[3]).toMatchObject({ row: 8, column: 'client_email' });
    expect(new Set(v.errors.map((e) => e.row)).size).toBe(20);
  });

  it('flags a row repeated within the file, naming the first; a distinct reference tells them apart', () => {
    const v = validatePayoutFile(file([line('10'), line('11'), line('10')]), policy);
    expect(!v.ok && v.errors).toEqual([
      { row: 4, column: 'address', reason: expect.stringMatching(/same payout as row 2/) },
    ]);
    const ok = validatePayoutFile(file([`${line('10')},A`, `${line('10')},B`], `${HEAD},reference`), policy);
    expect(ok.ok).toBe(true);
    // The same payout written another way: "600" and "600.00", an EVM address in capitals.
    const upper = `0x${'ab'.repeat(20).toUpperCase()}`;
    const same = validatePayoutFile(
      file([line('600', { address: `0x${'ab'.repeat(20)}` }), line('600.00', { address: upper })]),
      policy,
    );
    expect(!same.ok && same.errors).toEqual([
      { row: 3, column: 'address', reason: expect.stringMatching(/same payout as row 2/) },
    ]);
  });

  it('names a missing or unknown column, an empty file, too many rows, and broken CSV', () => {
    const miss = validatePayoutFile('address,amount,currency,network,email\nx,1,USDT,BSC,a@b.c', policy);
    expect(!miss.ok && miss.errors.map((e) => e.column)).toEqual(['email', 'client_email']);
    expect(!validatePayoutFile('', policy).ok).toBe(true);
    const many = validatePayoutFile(file(Array.from({ length: 1001 }, (_, i) => line(`${i + 1}`))), policy);
    expect(!many.ok && many.errors[0]?.reason).toMatch(/over 1000 rows; at most 1000/);
    // Parsing stops past the limit: a far longer file is refused the same way.
    const huge = validatePayoutFile(file(Array.from({ length: 5000 }, (_, i) => line(`${i + 1}`))), policy);
    expect(!huge.ok && huge.errors).toEqual([
      { row: 0, column: 'file', reason: 'The file has over 1000 rows; at most 1000 are taken.' },
    ]);
    const broken = validatePayoutFile(`${HEAD}\n"${DEST},1,USDT,BSC,${CLIENT}`, policy);
    expect(!broken.ok && broken.errors[0]?.reason).toMatch(/not valid CSV/);
  });
});

describe('the batch judged on its total', () => {
  it('100 rows of 600 each: every row alone needs one approval, the batch the top tier (3, with U0ERIN)', () => {
    const b = batchOf(
      file(
        Array.from({ length: 100 }, () => line('600')).map((l, i) => `${l},R${i}`),
        `${HEAD},reference`,
      ),
    );
    expect(b.totals.perCurrency).toEqual({ USDT: '60000' });
    expect(b.tier).toMatchObject({ index: 2, approvals: 3, mustInclude: ['U0ERIN'] });
    const rows = b.rows.map((r) => rowRequest(b, r, 'pending', b.createdAt));
    const judged = judgeBatch(rows, b.totals, { step: 'request', now: T0, policy, prices: undefined, others: [] });
    expect(judged.refusals).toEqual([]);
    expect(judged.tier).toMatchObject({ index: 2, approvals: 3 });
  });

  it('counts the batch against the daily limit as a whole: the row that crosses it is named', () => {
    const p = testPolicy({ dailyLimit: { USDT: '50000' } });
    const b = batchOf(
      file(
        Array.from({ length: 100 }, (_, i) => `${line('600')},R${i}`),
        `${HEAD},reference`,
      ),
      p,
    );
    const rows = b.rows.map((r) => rowRequest(b, r, 'pending', b.createdAt));
    const judged = judgeBatch(rows, b.totals, { step: 'approve', now: T0, policy: p, prices: undefined, others: [] });
    // 83 rows make 49,800; the 84th (row 85 of the file) would reach 50,400.
    expect(judged.holds).toEqual([expect.stringMatching(/^row 85: .*50,400/)]);
  });

  it('one approval of the batch: the requester cannot, the tier must include U0ERIN, and three complete it', () => {
    const b = batchOf(
      file(
        Array.from({ length: 20 }, (_, i) => `${line('600')},R${i}`),
        `${HEAD},reference`,
      ),
    );
    const clean = {
      refusals: [],
      holds: [],
      stepUp: false,
      stepUpNeed: 'none' as const,
      newDestinations: 0,
      unlisted: 0,
      allowlists: {},
      tier: b.tier,
    };
    const f = { now: T0, isApprover: true, satisfies: [] as string[] };
    expect(approveBatch(b, { ...f, user: 'U0ALICE' }, clean)).toMatchObject({ ok: false, reason: 'own_request' });
    const one = approveBatch(b, { ...f, user: 'U0CAROL' }, clean);
    if (!one.ok) throw new Error(one.message);
    const two = approveBatch(one.batch, { ...f, user: 'U0DAVE' }, clean);
    if (!two.ok) throw new Error(two.message);
    expect(approveBatch(two.batch, { ...f, user: 'U0FRANK' }, clean)).toMatchObject({
      reason: 'must_include_required',
    });
    const three = approveBatch(two.batch, { ...f, user: 'U0ERIN', satisfies: ['U0ERIN'] }, clean);
    expect(three.ok && three.complete).toBe(true);
    // A code confirmed for another file is no approval of this one.
    const stepped = { ...b, stepUp: true };
    expect(approveBatch(stepped, { ...f, user: 'U0CAROL', stepUpFor: 'other' }, clean)).toMatchObject({
      reason: 'step_up_required',
    });
    // No proof named: no approval, even for this file.
    expect(approveBatch(stepped, { ...f, user: 'U0CAROL', stepUpFor: b.sha256 }, clean)).toMatchObject({
      reason: 'step_up_required',
    });
    const coded = approveBatch(stepped, { ...f, user: 'U0CAROL', stepUpFor: b.sha256, proof: 'verified' }, clean);
    expect(coded.ok && coded.batch.approvals[0]?.stepUp).toBe('verified');
    // Above passkey_above (stored, or judged now) only a passkey counts.
    const keyed = { ...b, stepUp: true, stepUpNeed: 'passkey' as const };
    const byCode = { ...f, user: 'U0CAROL', stepUpFor: b.sha256, proof: 'verified' as const };
    expect(approveBatch(keyed, byCode, clean)).toMatchObject({ reason: 'step_up_required' });
    expect(approveBatch(stepped, byCode, { ...clean, stepUpNeed: 'passkey' })).toMatchObject({
      reason: 'step_up_required',
    });
    const passkeyed = approveBatch(keyed, { ...byCode, proof: 'passkey' }, clean);
    expect(passkeyed.ok && passkeyed.batch.approvals[0]?.stepUp).toBe('passkey');
    expect(approveBatch(keyed, { ...byCode, proof: 'passkey', stepUpFor: 'other' }, clean)).toMatchObject({
      reason: 'step_up_required',
    });
  });

  it('words the progress as the card shows it', () => {
    const b = { ...batchOf(file([line('1'), line('2'), line('3')])), state: 'sending' as const };
    const rows = b.rows.map((r) => rowRequest(b, r, 'approved', b.createdAt));
    const states = ['completed', 'failed', 'approved'] as const;
    const p = progressOf(
      b,
      rows.map((r, i) => ({ ...r, state: states[i]! })),
    );
    expect(progressWords(p)).toBe('1 of 3 sent · 1 failed');
  });
});

describe('references and pace', () => {
  it('derives each row its own reference, the same every time, as a UUID', () => {
    const a = rowReference('b1', 2);
    expect(a).toBe(rowReference('b1', 2));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const all = new Set<string>();
    for (const b of ['b1', 'b2']) for (let r = 2; r < 1002; r++) all.add(rowReference(b, r));
    expect(all.size).toBe(2000);
    expect(rowRequestId('b1', 2)).not.toBe(a);
  });

  it('keeps at most `concurrency` in flight and spaces the starts, and starts nothing once stopped', async () => {
    let inFlight = 0;
    let max = 0;
    const starts: number[] = [];
    const stats = await paced(
      Array.from({ length: 12 }, (_, i) => i),
      { concurrency: 3, perSecond: 200 },
      async () => {
        starts.push(Date.now());
        max = Math.max(max, ++inFlight);
        await new Promise((r) => setTimeout(r, 15));
        inFlight--;
      },
    );
    expect(stats).toEqual({ started: 12, maxInFlight: 3 });
    expect(max).toBe(3);
    // Each start waits for its reserved slot (5 ms apart): 12 starts span at least 11 slots, however late the timers.
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(50);
    let n = 0;
    const stopped = await paced(
      [1, 2, 3, 4],
      { concurrency: 1, perSecond: 1000 },
      async () => void n++,
      () => n >= 2,
    );
    expect(stopped.started).toBe(2);
  });
});
