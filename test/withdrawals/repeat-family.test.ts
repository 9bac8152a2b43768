/**
 * The repeat hold treats the whole FAMILY of a payout as one (src/withdrawals/hold/): a repeat
 * of a repeat, one request under way, precaution holds, a release after expiry, a retyped
 * payout. Pure: no store, no wallet, no clock.
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
  familyOf,
  holdTargets,
  notifiedAfterNeverExecuted,
  reportedAfterNeverExecuted,
  sameDetails,
} from '../../src/withdrawals/hold/family.js';
import { mayRepeat, repeatRefusal } from '../../src/withdrawals/hold/decide.js';
import { admitRequest } from '../../src/withdrawals/rules.js';
import type { WithdrawalRequest, WithdrawalState } from '../../src/withdrawals/types.js';
import { T0, testPolicy, usdt } from './helpers.js';

const policy = testPolicy();
const ctx = (now = T0 + 60_000): DecideContext => ({ now, policy });

function ask(
  id: string,
  o: { repeatOf?: WithdrawalRequest; existing?: WithdrawalRequest[]; amount?: string; destination?: string } = {},
) {
  const checked = admitRequest(
    policy,
    usdt(o.amount ?? '50', o.destination ? { destination: o.destination } : {}),
    true,
  );
  if (!checked.ok) throw new Error(checked.message);
  const command = {
    type: 'request',
    requester: 'U0ALICE',
    checked,
    id,
    merchantReference: `ref-${id}-0000`,
    existing: o.existing ?? [],
    ...(o.repeatOf ? { repeatOf: { id: o.repeatOf.id, original: o.repeatOf } } : {}),
  } as const;
  return decide(command, undefined, ctx());
}

function next(d: ReturnType<typeof decide>): WithdrawalRequest {
  if (d.kind !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(d)}`);
  return d.next;
}

const neverExecuted = (r: WithdrawalRequest): WithdrawalRequest => ({
  ...r,
  state: 'failed',
  sendStartedAt: new Date(T0).toISOString(),
  error: { kind: 'never_executed', message: 'Not sent: the wallet service has no record of it.' },
});
const inState = (r: WithdrawalRequest, state: WithdrawalState): WithdrawalRequest => ({ ...r, state });

const SERVICE_WORD = {
  ABOUT_TO_INITIATE: 'pending',
  PENDING: 'pending',
  CONFIRMED: 'completed',
  FAILED: 'failed',
  NOT_PROPAGATED: 'failed',
} as const;

/**
 * The report of a never-executed request: since invariant 14, the wallet service's OWN answer for
 * our reference (named by the status shown), never a webhook's word (a webhook is a claim: `claim`).
 */
const report = (r: WithdrawalRequest, status: keyof typeof SERVICE_WORD, now?: number) =>
  decide(
    { type: 'service-word', word: { via: 'status', status: SERVICE_WORD[status], transactionHash: null } },
    r,
    ctx(now),
  );

/** A notification's claim (any status, maybe forged): a precaution, not the report. */
const claim = (r: WithdrawalRequest, status: unknown) =>
  decide({ type: 'notice', status } as WithdrawalCommand, r, ctx());

/** What the shell does in the report's (or the claim's) commit: every other member of the family, held or flagged. */
function holdPass(all: WithdrawalRequest[], reported: WithdrawalRequest, basis: 'notice' | 'service' = 'service') {
  return familyOf(all, reported)
    .filter((m) => m.id !== reported.id)
    .map((m) => decide({ type: 'hold-repeat', original: reported, basis }, m, ctx()));
}

describe('a repeat of a repeat belongs to the same payout', () => {
  const O = neverExecuted(next(ask('O')));
  const R1 = neverExecuted(next(ask('R1', { repeatOf: O, existing: [O] })));
  const Orep = next(report(O, 'CONFIRMED'));

  it('once the original is reported, the never-executed repeat offers no new request, and one is refused', () => {
    expect(reportedAfterNeverExecuted(O, Orep)).toBe(true);
    expect(mayRepeat(R1, [Orep, R1])).toBe(false);
    expect(ask('R3', { repeatOf: R1, existing: [Orep, R1] })).toEqual({
      kind: 'refused',
      reason: 'repeat',
      message: contradictedRefusalWords(Orep),
    });
    // The words name the earlier request.
    expect(contradictedRefusalWords(Orep)).toContain('(ref `ref-O-00`, Confirmed)');
  });

  it('the family is found from any member, up and down the chain', () => {
    const R2 = next(ask('R2', { repeatOf: R1, existing: [O, R1] }));
    const all = [O, R1, R2];
    for (const m of all) expect(familyOf(all, m).map((x) => x.id)).toEqual(['O', 'R1', 'R2']);
    // A second report of O finds R2 already held: nothing more.
    const held = holdPass(all, Orep).find((d) => d.kind === 'changed');
    expect(held).toMatchObject({ event: 'held', next: { id: 'R2', hold: { original: 'O' } } });
  });
});

describe('one payout, one request under way', () => {
  const O = neverExecuted(next(ask('O')));
  const R1 = next(ask('R1', { repeatOf: O, existing: [O] }));

  it('a second repeat is refused while another is pending, approved, executing, unknown or completed', () => {
    for (const state of ['pending', 'approved', 'executing', 'unknown', 'completed'] as const) {
      const d = ask('R2', { repeatOf: O, existing: [O, inState(R1, state)] });
      expect(d, state).toMatchObject({ kind: 'refused', reason: 'repeat' });
      if (d.kind === 'refused') expect(d.message).toContain('A request for this payout already exists (ref `ref-R1-0`');
      expect(mayRepeat(O, [O, inState(R1, state)]), state).toBe(false);
    }
  });

  it('allowed again once that repeat ended without paying (rejected, expired, failed)', () => {
    for (const state of ['rejected', 'expired'] as const) {
      expect(ask('R2', { repeatOf: O, existing: [O, inState(R1, state)] }).kind, state).toBe('changed');
      expect(mayRepeat(O, [O, inState(R1, state)]), state).toBe(true);
    }
    expect(ask('R2', { repeatOf: O, existing: [O, neverExecuted(R1)] }).kind).toBe('changed');
  });

  it('a reported repeat holds its pending sibling and flags the completed original-side members', () => {
    const R1ne = neverExecuted(R1);
    const R2 = next(ask('R2', { repeatOf: O, existing: [O, R1ne] }));
    const R1rep = next(report(R1ne, 'PENDING'));
    expect(reportedAfterNeverExecuted(R1ne, R1rep)).toBe(true);
    const decisions = holdPass([O, R1ne, R2], R1rep);
    // O moved no money (never executed): unchanged. R2 (a sibling, not a descendant of R1): held.
    expect(decisions.map((d) => d.kind)).toEqual(['unchanged', 'changed']);
    expect(decisions[1]).toMatchObject({
      event: 'held',
      next: { id: 'R2', hold: { original: 'R1', status: 'PENDING' } },
      audit: { details: { reason: expect.stringContaining('(Pending)') } },
    });
    const completedSibling = holdPass([O, R1ne, inState(R2, 'completed')], R1rep)[1];
    expect(completedSibling).toMatchObject({ event: 'double-payment-risk', next: { id: 'R2' } });
  });
});

// Changed with invariant 14: a webhook is only a claim. Any notification of a never-executed
// request, whatever its status, still makes the family wait (a precaution) and refuses a new
// repeat; the report that flags payments is the service's own answer.
describe('any notification of a never-executed request holds the family as a precaution', () => {
  const O = neverExecuted(next(ask('O')));

  it('FAILED, NOT_PROPAGATED, empty, missing or unknown statuses are recorded, and hold the family', () => {
    for (const status of ['FAILED', 'NOT_PROPAGATED', '', 'SUBMITTED', 0, 99]) {
      const d = claim(O, status);
      expect(d.kind, String(status)).toBe('changed');
      const rep = next(d);
      expect(notifiedAfterNeverExecuted(O, rep), String(status)).toBe(true);
      expect(reportedAfterNeverExecuted(O, rep), String(status)).toBe(false);
      const R = next(ask('R', { repeatOf: O, existing: [O] }));
      expect(holdPass([rep, R], rep, 'notice')[0], String(status)).toMatchObject({
        kind: 'changed',
        event: 'notice',
        next: { hold: { kind: 'notified' } },
      });
      // The refusal and the hold agree: a new repeat is refused too.
      expect(repeatRefusal(rep, [rep])?.message).toBe(contradictedRefusalWords(rep));
    }
  });

  it("a later Completed after Failed updates the service's status shown, and is not a second report", () => {
    const failed = next(report(O, 'FAILED'));
    const d = report(failed, 'CONFIRMED');
    expect(d).toMatchObject({
      kind: 'changed',
      event: 'contradiction',
      next: { confirmation: { status: 'CONFIRMED' } },
    });
    expect(reportedAfterNeverExecuted(failed, next(d))).toBe(false);
    // The same status again, or NotFound, adds nothing.
    expect(report(next(d), 'CONFIRMED').kind).toBe('unchanged');
    expect(
      decide(
        { type: 'service-word', word: { via: 'status', status: 'not_found', transactionHash: null } },
        next(d),
        ctx(),
      ).kind,
    ).toBe('unchanged');
  });

  it('a held request is not held twice by a later report', () => {
    const rep = next(report(O, 'ABOUT_TO_INITIATE'));
    const R = next(ask('R', { repeatOf: O, existing: [O] }));
    const held = next(holdPass([rep, R], rep)[0]!);
    const later = next(report(rep, 'CONFIRMED'));
    expect(decide({ type: 'hold-repeat', original: later, basis: 'service' }, held, ctx()).kind).toBe('unchanged');
  });
});

describe('a request released for one report', () => {
  it('is held again when ANOTHER request of the payout is reported, not for the same one', () => {
    const O = neverExecuted(next(ask('O')));
    const R1 = neverExecuted(next(ask('R1', { repeatOf: O, existing: [O] })));
    const R2 = next(ask('R2', { repeatOf: O, existing: [O, R1] }));
    const Orep = next(report(O, 'PENDING'));
    const held = next(decide({ type: 'hold-repeat', original: Orep, basis: 'service' }, R2, ctx()));
    const released = next(
      decide({ type: 'settle-hold', admin: 'U0ERIN', isAdmin: true, action: 'release', reason: 'ok' }, held, ctx()),
    );
    expect(
      decide({ type: 'hold-repeat', original: next(report(Orep, 'CONFIRMED')), basis: 'service' }, released, ctx())
        .kind,
    ).toBe('unchanged');
    const R1rep = next(report(R1, 'PENDING'));
    expect(decide({ type: 'hold-repeat', original: R1rep, basis: 'service' }, released, ctx())).toMatchObject({
      event: 'held',
      next: { hold: { original: 'R1' } },
    });
  });
});

describe('a release after the expiry expires it instead', () => {
  const O = neverExecuted(next(ask('O')));
  const Orep = next(report(O, 'PENDING'));
  const R = inState(next(ask('R', { repeatOf: O, existing: [O] })), 'approved');
  const held = next(decide({ type: 'hold-repeat', original: Orep, basis: 'service' }, R, ctx()));
  const late = Date.parse(held.expiresAt) + 1;
  const release = { type: 'settle-hold', admin: 'U0ERIN', isAdmin: true, action: 'release', reason: 'ok' } as const;

  it('expired, audited, nothing sent; at start-up it stays held for an admin', () => {
    expect(recoveryAction(held, late)).toBe('none');
    const d = decide(release, held, ctx(late));
    expect(d).toMatchObject({
      kind: 'changed',
      event: 'expired',
      next: { state: 'expired' },
      audit: { action: 'expire', actor: 'U0ERIN', details: { held: true, outcome: 'expired, nothing sent' } },
    });
    expect(decide({ type: 'claim-for-sending' }, next(d), ctx(late)).kind).toBe('unchanged');
    // Within its expiry the release works as before.
    expect(decide(release, held, ctx(late - 2))).toMatchObject({ kind: 'changed', event: 'released' });
  });

  it('a reject after the expiry is still a reject', () => {
    expect(decide({ ...release, action: 'reject' }, held, ctx(late))).toMatchObject({ event: 'rejected' });
  });
});

describe('a payout retyped by hand is linked to the request the service never executed', () => {
  const O = neverExecuted(next(ask('O')));

  it('linked, recorded and audited; made on hold where the family rules would refuse a repeat', () => {
    const d = ask('T', { existing: [O] });
    expect(d).toMatchObject({
      kind: 'changed',
      next: { repeatOf: 'O', repeatLinked: 'same-details' },
      audit: { details: { repeatOf: 'O', repeatLinked: expect.stringContaining('never executed') } },
    });
    // Held when O is reported.
    const Orep = next(report(O, 'CONFIRMED'));
    expect(holdPass([Orep, next(d)], Orep)[0]).toMatchObject({ event: 'held' });
    // Never refused, made ON HOLD while another request of that payout is under
    // way, or once O was reported (it may be a separate payout: an admin decides).
    expect(ask('T2', { existing: [O, next(d)] })).toMatchObject({
      kind: 'changed',
      next: { state: 'pending', repeatOf: 'O', hold: { kind: 'retyped', original: 'T', earlierState: 'pending' } },
      audit: { details: { hold: expect.stringContaining('(ref `ref-T-00`) that is waiting for approvals') } },
    });
    expect(ask('T2', { existing: [Orep] })).toMatchObject({
      kind: 'changed',
      next: { hold: { kind: 'retyped', original: 'O', status: 'CONFIRMED' } },
      audit: { details: { hold: expect.stringContaining('separate payout') } },
    });
  });

  it('not linked when any detail differs, or when the earlier one was not "never executed"', () => {
    expect(next(ask('T', { existing: [O], amount: '51' })).repeatOf).toBeUndefined();
    expect(
      next(ask('T', { existing: [O], destination: '0x000000000000000000000000000000000000dEaD' })).repeatOf,
    ).toBeUndefined();
    expect(next(ask('T', { existing: [inState(O, 'completed')] })).repeatOf).toBeUndefined();
    // Its payout already paid by a repeat: the same details typed afterwards are a new payout, not refused.
    const paid = inState(next(ask('R', { repeatOf: O, existing: [O] })), 'completed');
    expect(ask('T', { existing: [O, paid] })).toMatchObject({ kind: 'changed', next: { state: 'pending' } });
    expect(next(ask('T', { existing: [O, paid] })).repeatOf).toBeUndefined();
  });
});

describe('the same payout by its details, and the words of a hold (pure)', () => {
  const O = neverExecuted(next(ask('O')));

  it('the destination in another letter case is the same payout (EVM); TRON base58 is case-sensitive', () => {
    const mixed = '0xabCDeF0123456789AbcdEf0123456789aBCDEF01';
    const Om = neverExecuted(next(ask('Om', { destination: mixed })));
    expect(next(ask('T', { existing: [Om], destination: mixed.toLowerCase() }))).toMatchObject({
      repeatOf: 'Om',
      repeatLinked: 'same-details',
    });
    const tron = { destination: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', currency: 'USDT', network: 'TRON' };
    const a = { ...O, ...tron };
    expect(sameDetails(a, { ...a, destination: tron.destination.toLowerCase() })).toBe(false);
    expect(sameDetails(a, { ...a })).toBe(true);
  });

  it('a report holds a request of the same details outside the family, made after the reported one', () => {
    const A = neverExecuted(next(ask('A')));
    const C = next(ask('C', { existing: [A] })); // linked to A
    const B = neverExecuted(next(ask('B')));
    const Brep = next(report(B, 'CONFIRMED'));
    const targets = holdTargets([A, C, Brep], Brep).map((r) => r.id);
    // C is of A's family, not B's: held all the same (A is failed: nothing to hold).
    expect(targets).toEqual(expect.arrayContaining(['C']));
    expect(decide({ type: 'hold-repeat', original: Brep, basis: 'service' }, C, ctx())).toMatchObject({
      event: 'held',
    });
  });

  it('a hold after a Failed report says why it still holds', () => {
    const Ofail = next(report(O, 'FAILED'));
    const R = next(ask('R', { repeatOf: O, existing: [O] }));
    const d = decide({ type: 'hold-repeat', original: Ofail, basis: 'service' }, R, ctx());
    expect(d).toMatchObject({
      event: 'held',
      audit: { details: { reason: expect.stringContaining('(Failed)') } },
    });
    if (d.kind === 'changed')
      expect(d.audit?.details.reason).toContain('any report means the service has that request');
  });
});
