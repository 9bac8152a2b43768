/**
 * The history rule table (src/history/rules.ts): what may leave memory, and what never does
 * because a decision still reads it (open, never executed, a repeated payout, a batch's row,
 * recent); the embedded store keeps everything and folds nothing.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LIMIT_WINDOWS } from '../../src/policy/schema-patterns.js';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_RULE,
  closedAt,
  moveCold,
  WITHDRAWAL_HOT_DAYS,
  WITHDRAWAL_RULE,
  withdrawalIsCold,
} from '../../src/history/rules.js';
import { openStore } from '../../src/store/index.js';
import { PAID_DESTINATIONS } from '../../src/withdrawals/paid-summary.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { newRequest } from '../helpers/withdrawal-request.js';
import { T0, testPolicy, usdt } from '../withdrawals/helpers.js';

const DAY = 86_400_000;
const base = newRequest({ policy: testPolicy(), input: usdt('250'), now: T0 });
const closed = (state: WithdrawalRequest['state'], extra: Partial<WithdrawalRequest> = {}): WithdrawalRequest => ({
  ...base,
  state,
  history: [...base.history, { at: new Date(T0 + DAY).toISOString(), state, by: 'system' }],
  ...extra,
});
const later = (days: number) => T0 + DAY + days * DAY;

describe('which withdrawals leave memory', () => {
  it('a closed request, once closed longer than the longest lookback and a margin', () => {
    expect(closedAt(closed('rejected'))).toBe(T0 + DAY);
    for (const state of ['completed', 'rejected', 'expired', 'failed'] as const) {
      expect(withdrawalIsCold(closed(state), later(WITHDRAWAL_HOT_DAYS + 1))).toBe(true);
      expect(withdrawalIsCold(closed(state), later(WITHDRAWAL_HOT_DAYS - 1))).toBe(false);
    }
    // Past the longest rolling-limit window (those read requests in memory only).
    expect(WITHDRAWAL_HOT_DAYS * DAY).toBeGreaterThan(Math.max(...Object.values(LIMIT_WINDOWS)));
  });

  it('never what a decision still reads: open, never executed, a repeated payout, a batch row', () => {
    const long = later(10 * 365);
    for (const state of ['pending', 'approved', 'executing', 'unknown'] as const)
      expect(withdrawalIsCold(closed(state), long)).toBe(false);
    const neverExecuted = closed('failed', { error: { kind: 'never_executed', message: 'no record' } });
    expect(withdrawalIsCold(neverExecuted, long)).toBe(false);
    expect(withdrawalIsCold(closed('completed', { repeatOf: 'w0' }), long)).toBe(false);
    expect(withdrawalIsCold(closed('completed', { repeatLinked: 'same-details' }), long)).toBe(false);
    expect(withdrawalIsCold(closed('expired', { batch: { id: 'b1', row: 1 } }), long)).toBe(false);
  });

  it('on the embedded store nothing leaves memory, and nothing is folded into the paid summary', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rules-'));
    const store = await openStore({ dir });
    try {
      await store.commit((tx) => tx.put(WITHDRAWALS, base.id, closed('completed')));
      expect(await moveCold(store, WITHDRAWAL_RULE, later(10 * 365))).toBe(0);
      expect(store.get(WITHDRAWALS, base.id)?.state).toBe('completed');
      expect(store.all(PAID_DESTINATIONS)).toEqual([]);
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('which audit entries leave memory', () => {
  it('those older than a week', () => {
    const e = {
      seq: 1,
      at: new Date(T0).toISOString(),
      actor: 'system',
      action: 'request',
      subject: 'w1',
      details: {},
      prevHash: '',
      hash: '',
    };
    expect(AUDIT_RULE.cold(e, T0 + 8 * DAY)).toBe(true);
    expect(AUDIT_RULE.cold(e, T0 + 6 * DAY)).toBe(false);
    expect(AUDIT_RULE.idOf(e)).toBe('000000000001');
  });
});
