/**
 * The history rule table (src/history/rules.ts): what may leave memory, and what never does
 * because a decision still reads it (open, completed, never executed, a batch's row, recent).
 */
import { describe, expect, it } from 'vitest';
import { AUDIT_RULE, closedAt, WITHDRAWAL_HOT_DAYS, withdrawalIsCold } from '../../src/history/rules.js';
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
    for (const state of ['rejected', 'expired', 'failed'] as const) {
      expect(withdrawalIsCold(closed(state), later(WITHDRAWAL_HOT_DAYS + 1))).toBe(true);
      expect(withdrawalIsCold(closed(state), later(WITHDRAWAL_HOT_DAYS - 1))).toBe(false);
    }
    expect(WITHDRAWAL_HOT_DAYS).toBeGreaterThan(90);
  });

  it('never what a decision still reads: open, completed, never executed, a batch row', () => {
    const long = later(10 * 365);
    for (const state of ['pending', 'approved', 'executing', 'unknown', 'completed'] as const)
      expect(withdrawalIsCold(closed(state), long)).toBe(false);
    const neverExecuted = closed('failed', { error: { kind: 'never_executed', message: 'no record' } });
    expect(withdrawalIsCold(neverExecuted, long)).toBe(false);
    expect(withdrawalIsCold(closed('expired', { batch: { id: 'b1', row: 1 } }), long)).toBe(false);
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
