/**
 * The repeat hold alone (src/withdrawals/hold/ through decide/): a request made with
 * "New request with the same details" of one the service never executed, and what happens to it
 * when the service reports the original after all. No store, no wallet, no clock.
 */
import { describe, expect, it } from 'vitest';
import {
  decide,
  recoveryAction,
  type DecideContext,
  type WithdrawalCommand,
} from '../../src/withdrawals/decide/index.js';
import { contradictedRefusalWords } from '../../src/withdrawals/hold/words.js';
import {
  notifiedAfterNeverExecuted,
  repeatsOf,
  reportedAfterNeverExecuted,
} from '../../src/withdrawals/hold/family.js';
import { admitRequest } from '../../src/withdrawals/rules.js';
import { verdict } from '../../src/verification/verdict.js';
import type { WithdrawalRequest, WithdrawalState } from '../../src/withdrawals/types.js';
import { T0, testPolicy, usdt } from './helpers.js';

const policy = testPolicy();
const ctx = (now = T0 + 60_000): DecideContext => ({ now, policy });

function requestCommand(id: string, repeatOf?: { id: string; original: WithdrawalRequest | undefined }) {
  const checked = admitRequest(policy, usdt('50'), true);
  if (!checked.ok) throw new Error(checked.message);
  return {
    type: 'request',
    requester: 'U0ALICE',
    checked,
    id,
    merchantReference: `ref-${id}`,
    existing: [],
    ...(repeatOf ? { repeatOf } : {}),
  } as const;
}

function changed(command: WithdrawalCommand, req: WithdrawalRequest | undefined, now?: number): WithdrawalRequest {
  const d = decide(command, req, ctx(now));
  if (d.kind !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(d)}`);
  return d.next;
}

/** The original: sent, lost, then found "never executed" by its status past the grace. */
function neverExecutedOriginal(): WithdrawalRequest {
  const r = changed(requestCommand('orig'), undefined, T0);
  return {
    ...r,
    state: 'failed',
    sendStartedAt: new Date(T0).toISOString(),
    error: { kind: 'never_executed', message: 'Not sent: the wallet service has no record of it.' },
  };
}

const SERVICE = { PENDING: 'pending', CONFIRMED: 'completed', FAILED: 'failed' } as const;

/**
 * The original as the service then reports it: its OWN answer for our reference (a webhook alone
 * is only a claim since invariant 14 is enforced; `notified` below). Named by the status shown.
 */
function reported(original: WithdrawalRequest, status: keyof typeof SERVICE): WithdrawalRequest {
  const word = { via: 'status' as const, status: SERVICE[status], transactionHash: null };
  const d = decide({ type: 'service-word', word }, original, ctx());
  if (d.kind !== 'changed') throw new Error(`the service's word changed nothing: ${JSON.stringify(d)}`);
  return d.next;
}

/** The original as a notification (a claim, maybe forged) names it. */
function notified(original: WithdrawalRequest, status: unknown): WithdrawalRequest {
  const d = decide({ type: 'notice', status }, original, ctx());
  if (d.kind !== 'changed') throw new Error(`the notification changed nothing: ${JSON.stringify(d)}`);
  return d.next;
}

function repeatIn(state: WithdrawalState, original = neverExecutedOriginal()): WithdrawalRequest {
  const r = changed(requestCommand('again', { id: original.id, original }), undefined);
  return { ...r, state };
}

describe('a new request that repeats one the service never executed', () => {
  it('records which request it repeats, in the request and its audit entry', () => {
    const original = neverExecutedOriginal();
    const d = decide(requestCommand('again', { id: original.id, original }), undefined, ctx());
    expect(d).toMatchObject({
      kind: 'changed',
      next: { repeatOf: 'orig', state: 'pending' },
      audit: { action: 'request', details: { repeatOf: 'orig' } },
    });
  });

  it('is refused, with the words of the card, once the service reported the original', () => {
    const original = reported(neverExecutedOriginal(), 'PENDING');
    expect(decide(requestCommand('again', { id: original.id, original }), undefined, ctx())).toEqual({
      kind: 'refused',
      reason: 'repeat',
      message: contradictedRefusalWords(original),
    });
  });

  it('is refused for a request that was not "never executed", or does not exist', () => {
    const sent = { ...neverExecutedOriginal(), state: 'completed' as const, error: undefined };
    for (const original of [sent, undefined])
      expect(decide(requestCommand('again', { id: 'orig', original }), undefined, ctx())).toMatchObject({
        kind: 'refused',
        reason: 'repeat',
      });
  });
});

describe('the original reported after "never executed"', () => {
  // Changed with invariant 14: a webhook (any status, empty or unknown included) is only a claim.
  // It is a PRECAUTION (the family waits), not the report; the report is the service's own answer
  // that it has the request (any status but NotFound); a second report is not the report.
  it("a notification of it is a precaution, the service's answer the report; a second report is not", () => {
    const original = neverExecutedOriginal();
    for (const status of ['ABOUT_TO_INITIATE', 'PENDING', 'CONFIRMED', 'FAILED', 'NOT_PROPAGATED', '', 'SUBMITTED']) {
      const claimed = notified(original, status);
      expect(notifiedAfterNeverExecuted(original, claimed), status).toBe(true);
      expect(reportedAfterNeverExecuted(original, claimed), status).toBe(false);
      expect(reportedAfterNeverExecuted(claimed, reported(claimed, 'PENDING')), status).toBe(true);
    }
    for (const status of ['PENDING', 'CONFIRMED', 'FAILED'] as const)
      expect(reportedAfterNeverExecuted(original, reported(original, status)), status).toBe(true);
    const pending = reported(original, 'PENDING');
    expect(reportedAfterNeverExecuted(pending, reported(pending, 'CONFIRMED'))).toBe(false);
  });

  it('a notification alone holds a repeat not yet sent as a precaution, and flags none already sent', () => {
    const original = notified(neverExecutedOriginal(), 'CONFIRMED');
    for (const state of ['pending', 'approved'] as const)
      expect(decide({ type: 'hold-repeat', original, basis: 'notice' }, repeatIn(state), ctx())).toMatchObject({
        kind: 'changed',
        // The card shows it; nobody is called on a claim alone.
        event: 'notice',
        next: { state, hold: { kind: 'notified', original: 'orig', status: 'CONFIRMED' } },
        audit: { action: 'hold', details: { precaution: true } },
      });
    for (const state of ['executing', 'completed', 'unknown', 'failed'] as const)
      expect(decide({ type: 'hold-repeat', original, basis: 'notice' }, repeatIn(state), ctx()).kind, state).toBe(
        'unchanged',
      );
  });

  it("a precaution released by an admin does not excuse the service's report that follows", () => {
    const claimed = notified(neverExecutedOriginal(), 'FAILED');
    const held = changed({ type: 'hold-repeat', original: claimed, basis: 'notice' }, repeatIn('pending'));
    const released = changed(
      { type: 'settle-hold', admin: 'U0ERIN', isAdmin: true, action: 'release', reason: 'service: no record' },
      held,
    );
    expect(released.holdReleased).toMatchObject({ kind: 'notified' });
    const original = reported(claimed, 'CONFIRMED');
    expect(decide({ type: 'hold-repeat', original, basis: 'service' }, released, ctx())).toMatchObject({
      kind: 'changed',
      event: 'held',
      next: { hold: { kind: 'original_reported_sent', status: 'CONFIRMED' } },
    });
    // And a precaution still in place gives way to the report's stronger reason (the admins are called again).
    expect(decide({ type: 'hold-repeat', original, basis: 'service' }, held, ctx())).toMatchObject({
      kind: 'changed',
      next: { hold: { kind: 'original_reported_sent' } },
    });
  });

  it('finds the repeats, and the repeats of a repeat, never anything else', () => {
    const others = [
      { id: 'a', repeatOf: 'orig' },
      { id: 'b', repeatOf: 'a' },
      { id: 'c' },
      { id: 'd', repeatOf: 'c' },
    ] as WithdrawalRequest[];
    expect(repeatsOf(others, 'orig').map((r) => r.id)).toEqual(['a', 'b']);
    expect(repeatsOf(others, 'x')).toEqual([]);
  });

  it('holds a pending or approved repeat, audited with why', () => {
    const original = reported(neverExecutedOriginal(), 'CONFIRMED');
    for (const state of ['pending', 'approved'] as const) {
      const d = decide({ type: 'hold-repeat', original, basis: 'service' }, repeatIn(state), ctx());
      expect(d).toMatchObject({
        kind: 'changed',
        event: 'held',
        next: { state, hold: { kind: 'original_reported_sent', original: 'orig', status: 'CONFIRMED' } },
        audit: { action: 'hold', actor: 'system', subject: 'again', details: { original: 'orig', amount: '50' } },
      });
    }
  });

  it('flags, once, a repeat already claimed or settled as sent; leaves one that moved no money alone', () => {
    const original = reported(neverExecutedOriginal(), 'CONFIRMED');
    for (const state of ['executing', 'completed', 'unknown'] as const) {
      const d = decide({ type: 'hold-repeat', original, basis: 'service' }, repeatIn(state), ctx());
      expect(d).toMatchObject({
        kind: 'changed',
        event: 'double-payment-risk',
        next: { state, doublePaymentRisk: { original: 'orig' } },
        audit: { action: 'double_payment_risk' },
      });
      if (d.kind !== 'changed') throw new Error('unreachable');
      expect(d.next.hold).toBeUndefined();
      expect(decide({ type: 'hold-repeat', original, basis: 'service' }, d.next, ctx()).kind).toBe('unchanged');
    }
    for (const state of ['failed', 'rejected', 'expired'] as const)
      expect(decide({ type: 'hold-repeat', original, basis: 'service' }, repeatIn(state), ctx()).kind, state).toBe(
        'unchanged',
      );
  });

  it('a second report adds nothing to a held repeat', () => {
    const original = reported(neverExecutedOriginal(), 'PENDING');
    const held = changed({ type: 'hold-repeat', original, basis: 'service' }, repeatIn('pending'));
    expect(
      decide({ type: 'hold-repeat', original: reported(original, 'CONFIRMED'), basis: 'service' }, held, ctx()).kind,
    ).toBe('unchanged');
  });
});

describe('while held', () => {
  const original = reported(neverExecutedOriginal(), 'CONFIRMED');
  const heldPending = changed({ type: 'hold-repeat', original, basis: 'service' }, repeatIn('pending'));

  it('approvals are still given, and complete it, but the send claim refuses it (audited) and startup leaves it', () => {
    const approved = changed({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, heldPending);
    expect(approved).toMatchObject({ state: 'approved', hold: { original: 'orig' } });
    expect(decide({ type: 'claim-for-sending' }, approved, ctx())).toMatchObject({
      kind: 'noted',
      audit: { action: 'send_held_repeat', subject: 'again' },
    });
    expect(recoveryAction(approved, T0 + 60_000)).toBe('none');
    expect(recoveryAction(approved, T0 + 100 * 3_600_000)).toBe('none');
    // The service's verification callback refuses it: only a claimed (executing) request is confirmed.
    expect(verdict({ referenceValid: true, request: approved, frozen: false, mismatches: [] })).toEqual({
      isVerified: false,
      reason: 'not_executing',
    });
    // Released: claimed as usual.
    const released = changed(
      { type: 'settle-hold', admin: 'U0ERIN', isAdmin: true, action: 'release', reason: 'checked: not paid' },
      approved,
    );
    expect(released.hold).toBeUndefined();
    expect(released.holdReleased).toMatchObject({ by: 'U0ERIN', reason: 'checked: not paid', original: 'orig' });
    expect(recoveryAction(released, T0 + 60_000)).toBe('send');
    expect(decide({ type: 'claim-for-sending' }, released, ctx())).toMatchObject({
      kind: 'changed',
      event: 'executing',
    });
  });

  it('only an admin, never the requester, with a reason, releases it; audited with who and why', () => {
    const settle = (o: { admin?: string; isAdmin?: boolean; reason?: string; action?: 'release' | 'reject' }) =>
      decide(
        {
          type: 'settle-hold',
          admin: o.admin ?? 'U0ERIN',
          isAdmin: o.isAdmin ?? true,
          action: o.action ?? 'release',
          reason: o.reason ?? 'checked the wallet service',
        },
        heldPending,
        ctx(),
      );
    expect(settle({ admin: 'U0CAROL', isAdmin: false })).toMatchObject({ kind: 'refused', reason: 'not_admin' });
    expect(settle({ admin: 'U0ALICE' })).toMatchObject({ kind: 'refused', reason: 'own_request' });
    expect(settle({ reason: '  ' })).toMatchObject({ kind: 'refused', reason: 'reason_required' });
    expect(settle({})).toMatchObject({
      kind: 'changed',
      event: 'released',
      next: { state: 'pending' },
      audit: { action: 'hold_release', actor: 'U0ERIN', details: { reason: 'checked the wallet service' } },
    });
    expect(settle({ action: 'reject', reason: 'paid by the original' })).toMatchObject({
      kind: 'changed',
      event: 'rejected',
      next: { state: 'rejected', rejection: { user: 'U0ERIN', reason: 'paid by the original' } },
      audit: { action: 'reject', actor: 'U0ERIN', details: { held: true } },
    });
    // Nothing to release on a request that is not held.
    expect(
      decide(
        { type: 'settle-hold', admin: 'U0ERIN', isAdmin: true, action: 'release', reason: 'x' },
        repeatIn('pending'),
        ctx(),
      ),
    ).toMatchObject({ kind: 'refused', reason: 'not_held' });
  });
});
