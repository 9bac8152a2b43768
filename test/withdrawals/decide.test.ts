/**
 * The decider alone (src/withdrawals/decide/): given a request built by earlier commands,
 * when a command arrives, then a refusal, no change, or the next state with its audit entry
 * and event. No store, no wallet, no clock: every fact is passed in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WalletRejectedError, WalletUnknownOutcomeError, WalletValidationError } from '../../src/wallet/errors.js';
import {
  decide,
  recoveryAction,
  type DecideContext,
  type Decision,
  type WithdrawalCommand,
} from '../../src/withdrawals/decide/index.js';
import {
  admitRequest,
  approvalsComplete,
  decisionRefusal,
  reservedFor,
  roleRefusal,
  stateRefusal,
  unfilledPlaces,
} from '../../src/withdrawals/rules.js';
import { deriveAddress } from '../../src/wallet/addresses.js';
import type { ListedTransaction, WithdrawAnswer } from '../../src/withdrawals/wallet-answer.js';
import { FINAL_STATES, type RequestInput, type WithdrawalRequest } from '../../src/withdrawals/types.js';
import { DEST, T0, testPolicy, usdt } from './helpers.js';
import { parsePolicy } from '../../src/policy/load.js';

const policy = testPolicy({ remindBefore: '30m' });
const ctx = (now = T0, p = policy): DecideContext => ({ now, policy: p });
const HOUR = 3_600_000;

function requestCommand(
  input: RequestInput,
  o: { by?: string; existing?: WithdrawalRequest[]; key?: string; id?: string } = {},
) {
  const checked = admitRequest(policy, input, true);
  if (!checked.ok) throw new Error(checked.message);
  return {
    type: 'request',
    requester: o.by ?? 'U0ALICE',
    checked,
    ...(o.key ? { idempotencyKey: o.key } : {}),
    id: o.id ?? 'w1',
    merchantReference: `ref-${o.id ?? 'w1'}`,
    existing: o.existing ?? [],
  } as const;
}

/** The state after a history of commands, each of which must change something. */
function given(first: WithdrawalCommand, ...rest: Array<[WithdrawalCommand, number?]>): WithdrawalRequest {
  let req: WithdrawalRequest | undefined;
  for (const [command, now] of [[first, T0] as [WithdrawalCommand, number?], ...rest]) {
    const d = decide(command, req, ctx(now ?? T0 + 60_000));
    if (d.kind !== 'changed') throw new Error(`given: ${command.type} gave ${JSON.stringify(d)}`);
    req = d.next;
  }
  return req!;
}

const approve = (user: string, satisfies: string[] = []): [WithdrawalCommand, number?] => [
  { type: 'approve', user, isApprover: true, satisfies },
];
const claim: [WithdrawalCommand, number?] = [{ type: 'claim-for-sending' }];

function changed(d: Decision<string>) {
  if (d.kind !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(d)}`);
  return d;
}
function refusedWith(d: Decision<string>, reason: string) {
  expect(d.kind, JSON.stringify(d)).toBe('refused');
  if (d.kind === 'refused') {
    expect(d.reason).toBe(reason);
    expect(d.message.length).toBeGreaterThan(10);
  }
}

const answer = (over: Partial<WithdrawAnswer> = {}): WithdrawAnswer =>
  ({
    serviceReference: 'svc-1',
    merchantReference: 'ref-w1',
    destinationAddress: DEST,
    amount: '10',
    amountRequested: '10',
    fee: '0.5',
    feeCurrency: { name: 'USDT' },
    description: null,
    message: null,
    raw: {},
    ...over,
  }) as WithdrawAnswer;

const listed = (status: ListedTransaction['status']): ListedTransaction =>
  ({ status, type: 'withdrawal', hash: '0xhash', reference: 'ref-w1', amount: '10' }) as ListedTransaction;

describe('decide: request', () => {
  it('who may request and the stateless input rules are checked before anything is stored', () => {
    expect(admitRequest(policy, usdt('10'), false)).toMatchObject({ ok: false, rule: 'not_requester' });
    expect(admitRequest(policy, usdt('10.1234567'), true)).toMatchObject({ ok: false, rule: 'decimals' });
    expect(admitRequest(policy, { ...usdt('10'), destination: 'nope' }, true)).toMatchObject({
      ok: false,
      rule: 'destination',
    });
  });

  it('a new request is pending, with its tier, expiry, audit entry and the event `requested`', () => {
    const d = changed(decide(requestCommand(usdt('5000')), undefined, ctx()));
    expect(d.event).toBe('requested');
    expect(d.next).toMatchObject({
      id: 'w1',
      merchantReference: 'ref-w1',
      state: 'pending',
      amount: '5000',
      tier: { approvals: 2 },
      approvals: [],
    });
    expect(d.next.expiresAt).toBe(new Date(T0 + 2 * HOUR).toISOString());
    expect(d.audit).toMatchObject({
      actor: 'U0ALICE',
      action: 'request',
      subject: 'w1',
      details: { merchantReference: 'ref-w1', amount: '5000' },
    });
  });

  it('the same idempotency key from the same requester gives back the first request, unchanged', () => {
    const first = given(requestCommand(usdt('10'), { key: 'k1' }));
    expect(decide(requestCommand(usdt('10'), { key: 'k1', id: 'w2', existing: [first] }), undefined, ctx())).toEqual({
      kind: 'unchanged',
      request: first,
    });
    expect(
      changed(
        decide(requestCommand(usdt('10'), { key: 'k1', id: 'w2', by: 'U0BOB', existing: [first] }), undefined, ctx()),
      ).next.id,
    ).toBe('w2');
  });

  it('the daily limit counts the requests already stored', () => {
    const big = given(requestCommand(usdt('45000'), { id: 'big' }));
    refusedWith(decide(requestCommand(usdt('5001'), { id: 'w2', existing: [big] }), undefined, ctx()), 'daily_limit');
    expect(decide(requestCommand(usdt('5000'), { id: 'w2', existing: [big] }), undefined, ctx()).kind).toBe('changed');
  });

  it('an enforced allowlist refuses an address not on it', () => {
    const strict = testPolicy({ allowlist: 'enforce' });
    refusedWith(decide(requestCommand(usdt('10')), undefined, ctx(T0, strict)), 'allowlist');
  });
});

describe('decide: approve and reject', () => {
  const open = () => given(requestCommand(usdt('5000'))); // 2 approvals

  it.each([
    ['own_request', 'U0ALICE', true],
    ['not_approver', 'U0BOB', false],
  ] as const)('refused: %s', (reason, user, isApprover) => {
    refusedWith(decide({ type: 'approve', user, isApprover, satisfies: [] }, open(), ctx()), reason);
    refusedWith(decide({ type: 'reject', user, isApprover, reason: 'no' }, open(), ctx()), reason);
  });

  it('refused: no such request, past its expiry, no longer pending', () => {
    refusedWith(
      decide({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, undefined, ctx()),
      'not_found',
    );
    refusedWith(
      decide({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, open(), ctx(T0 + 2 * HOUR)),
      'expired',
    );
    const rejected = given(requestCommand(usdt('5000')), [
      { type: 'reject', user: 'U0DAVE', isApprover: true, reason: 'no' },
    ]);
    refusedWith(
      decide({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, rejected, ctx()),
      'not_pending',
    );
  });

  it('an approval short of the quorum is recorded (`approval-recorded`), the request stays pending', () => {
    const d = changed(
      decide({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, open(), ctx(T0 + 1000)),
    );
    expect(d.event).toBe('approval-recorded');
    expect(d.next.state).toBe('pending');
    expect(d.next.approvals).toEqual([{ user: 'U0CAROL', at: new Date(T0 + 1000).toISOString(), satisfies: [] }]);
    expect(d.audit).toMatchObject({ action: 'approve', actor: 'U0CAROL', details: { approvals: 1, required: 2 } });
  });

  it('the approval that completes the quorum makes it `approved` (event and state agree)', () => {
    const d = changed(
      decide(
        { type: 'approve', user: 'U0DAVE', isApprover: true, satisfies: [] },
        given(requestCommand(usdt('5000')), approve('U0CAROL')),
        ctx(),
      ),
    );
    expect(d.event).toBe('approved');
    expect(d.next.state).toBe('approved');
    expect(d.next.history.at(-1)).toMatchObject({ state: 'approved', by: 'U0DAVE' });
  });

  it('the same approver twice: refused, with words fitting approve or reject', () => {
    const once = given(requestCommand(usdt('5000')), approve('U0CAROL'));
    const a = decide({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, once, ctx());
    const r = decide({ type: 'reject', user: 'U0CAROL', isApprover: true, reason: 'no' }, once, ctx());
    refusedWith(a, 'already_approved');
    refusedWith(r, 'already_approved');
    expect(a.kind === 'refused' && r.kind === 'refused' && a.message !== r.message).toBe(true);
    expect(decisionRefusal(once, 'U0CAROL', 'reject', { isApprover: true, now: T0 })).toEqual(r);
  });

  it('the state refusals need no fact about roles; the role refusals come only after them', () => {
    const once = given(requestCommand(usdt('5000')), approve('U0CAROL'));
    const rejected = given(requestCommand(usdt('5000')), [
      { type: 'reject', user: 'U0DAVE', isApprover: true, reason: 'no' },
    ]);
    expect(stateRefusal(undefined, 'U0ZED', T0)?.reason).toBe('not_found');
    expect(stateRefusal(rejected, 'U0ZED', T0)?.reason).toBe('not_pending');
    expect(stateRefusal(once, 'U0ZED', T0 + 2 * HOUR)?.reason).toBe('expired');
    expect(stateRefusal(once, 'U0ALICE', T0)?.reason).toBe('own_request');
    expect(stateRefusal(once, 'U0ZED', T0)).toBeUndefined();
    expect(roleRefusal(once, 'U0ZED', 'approve', false)?.reason).toBe('not_approver');
    expect(roleRefusal(once, 'U0CAROL', 'approve', true)?.reason).toBe('already_approved');
    expect(roleRefusal(once, 'U0DAVE', 'approve', true)).toBeUndefined();
    // Composed, a state refusal wins whatever the roles: a settled request is refused as such even to a non-approver.
    expect(decisionRefusal(rejected, 'U0ZED', 'approve', { isApprover: false, now: T0 })?.reason).toBe('not_pending');
  });

  it("the last slots are reserved for the tier's must_include: others are refused, the named one completes it", () => {
    const two = given(requestCommand(usdt('20000')), approve('U0CAROL'), approve('U0DAVE')); // 3 approvals incl. U0ERIN
    expect(reservedFor(two)).toEqual(['U0ERIN']);
    refusedWith(
      decide({ type: 'approve', user: 'U0FRANK', isApprover: true, satisfies: [] }, two, ctx()),
      'must_include_required',
    );
    const d = changed(decide({ type: 'approve', user: 'U0ERIN', isApprover: true, satisfies: ['U0ERIN'] }, two, ctx()));
    expect(d.event).toBe('approved');
    expect(d.next.approvals.at(-1)?.satisfies).toEqual(['U0ERIN']);
  });

  it('each approval fills one must_include place at most: completion needs the places matched to distinct approvals', () => {
    // One approval matching both places (a delegate for their delegator, or a person named and in a group named).
    expect(unfilledPlaces(['U0ERIN', 'U0DAVE'], [{ satisfies: ['U0ERIN', 'U0DAVE'] }])).toHaveLength(1);
    expect(unfilledPlaces(['U0ERIN', 'S0OPS'], [{ satisfies: ['U0ERIN', 'S0OPS'] }, { satisfies: [] }])).toHaveLength(
      1,
    );
    // A second approval that can fill only the first place: the first moves to the other (a matching, not first come).
    expect(
      unfilledPlaces(['U0ERIN', 'U0DAVE'], [{ satisfies: ['U0ERIN', 'U0DAVE'] }, { satisfies: ['U0ERIN'] }]),
    ).toEqual([]);
    const p = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE, U0ERIN], admins: [U0ERIN] }
withdrawals:
  tiers:
    default:
      - { approvals: 2, must_include: [U0ERIN, U0DAVE] }
`);
    const admitted = admitRequest(p, usdt('5000'), true);
    if (!admitted.ok) throw new Error(admitted.message);
    const made = changed(
      decide(
        { type: 'request', requester: 'U0ALICE', checked: admitted, id: 'w1', merchantReference: 'r', existing: [] },
        undefined,
        ctx(T0, p),
      ),
    ).next;
    expect(made.tier).toMatchObject({ approvals: 2, mustInclude: ['U0ERIN', 'U0DAVE'] });
    // Erin approves, also for Dave (away, naming her): one place filled, the last slot reserved for the other.
    const once = changed(
      decide(
        { type: 'approve', user: 'U0ERIN', isApprover: true, satisfies: ['U0ERIN', 'U0DAVE'], for: ['U0DAVE'] },
        made,
        ctx(T0 + 1, p),
      ),
    ).next;
    expect(approvalsComplete(once)).toBe(false);
    expect(reservedFor(once)).toHaveLength(1);
    refusedWith(
      decide({ type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }, once, ctx(T0 + 2, p)),
      'must_include_required',
    );
  });

  it('a must_include member may take an unreserved slot too; only entries of the tier are recorded', () => {
    const d = changed(
      decide(
        { type: 'approve', user: 'U0ERIN', isApprover: true, satisfies: ['U0ERIN', 'S0OTHER'] },
        given(requestCommand(usdt('20000'))),
        ctx(),
      ),
    );
    expect(d.next.approvals[0]?.satisfies).toEqual(['U0ERIN']);
    expect(reservedFor(d.next)).toEqual([]);
  });

  it('a rejection needs a reason; with one it ends the request', () => {
    refusedWith(
      decide({ type: 'reject', user: 'U0DAVE', isApprover: true, reason: '  ' }, open(), ctx()),
      'reason_required',
    );
    const d = changed(
      decide({ type: 'reject', user: 'U0DAVE', isApprover: true, reason: ' unknown payee ' }, open(), ctx()),
    );
    expect(d.event).toBe('rejected');
    expect(d.next).toMatchObject({ state: 'rejected', rejection: { user: 'U0DAVE', reason: 'unknown payee' } });
  });
});

describe('decide: sending', () => {
  const approved = () => given(requestCommand(usdt('10')), approve('U0CAROL'));
  const executing = () => given(requestCommand(usdt('10')), approve('U0CAROL'), claim);

  it('only an approved request can be claimed for sending, once', () => {
    const d = changed(decide({ type: 'claim-for-sending' }, approved(), ctx(T0 + 5)));
    expect(d).toMatchObject({
      event: 'executing',
      next: { state: 'executing', sendStartedAt: new Date(T0 + 5).toISOString() },
      audit: { action: 'send' },
    });
    expect(decide({ type: 'claim-for-sending' }, d.next, ctx()).kind).toBe('unchanged');
    expect(decide({ type: 'claim-for-sending' }, given(requestCommand(usdt('10'))), ctx()).kind).toBe('unchanged');
  });

  it('the destination in the answer is compared as its address family requires: hex in any case, TRON base58 exactly', () => {
    const hex = `0x${'ab'.repeat(20)}`;
    const evm = given(requestCommand(usdt('10', { destination: hex })), approve('U0CAROL'), claim);
    const sameHex = changed(
      decide(
        {
          type: 'record-send-outcome',
          requestId: 'w1',
          outcome: { ok: true, answer: answer({ destinationAddress: `0x${'AB'.repeat(20)}` }) },
        },
        evm,
        ctx(),
      ),
    );
    expect(sameHex.next.result?.mismatches).toBeUndefined();
    const tronAddress = deriveAddress('tron', 'payee');
    const i = [...tronAddress].findIndex((ch, j) => j > 0 && /[a-z]/i.test(ch)); // one letter in the other case
    const flip = (ch: string) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase());
    const swapped = tronAddress.slice(0, i) + flip(tronAddress[i]!) + tronAddress.slice(i + 1);
    expect(swapped).not.toBe(tronAddress);
    const tron = given(
      requestCommand(usdt('10', { network: 'TRON', destination: tronAddress })),
      approve('U0CAROL'),
      claim,
    );
    const exact = changed(
      decide(
        {
          type: 'record-send-outcome',
          requestId: 'w1',
          outcome: { ok: true, answer: answer({ destinationAddress: tronAddress }) },
        },
        tron,
        ctx(),
      ),
    );
    expect(exact.next.result?.mismatches).toBeUndefined();
    const otherCase = changed(
      decide(
        {
          type: 'record-send-outcome',
          requestId: 'w1',
          outcome: { ok: true, answer: answer({ destinationAddress: swapped }) },
        },
        tron,
        ctx(),
      ),
    );
    expect(otherCase.next.result?.mismatches).toEqual([`destination ${swapped} instead of ${tronAddress}`]);
  });

  it("the wallet's answer completes it; an answer about another payment is recorded as mismatches", () => {
    const ok = changed(
      decide(
        { type: 'record-send-outcome', requestId: 'w1', outcome: { ok: true, answer: answer() } },
        executing(),
        ctx(),
      ),
    );
    expect(ok.next).toMatchObject({
      state: 'completed',
      result: { source: 'wallet', serviceReference: 'svc-1', fee: '0.5', feeCurrency: 'USDT' },
    });
    expect(ok.next.result?.mismatches).toBeUndefined();
    const odd = changed(
      decide(
        {
          type: 'record-send-outcome',
          requestId: 'w1',
          outcome: { ok: true, answer: answer({ amountRequested: '11', merchantReference: 'x' }) },
        },
        executing(),
        ctx(),
      ),
    );
    expect(odd.next.result?.mismatches).toEqual(['merchant reference x instead of ref-w1', 'amount 11 instead of 10']);
  });

  it('a refusal or an error before sending fails it; an error that may hide a send makes it unknown', () => {
    const refusedByService = new WalletRejectedError('refused', {
      operation: 'withdraw',
      serviceMessage: 'insufficient balance',
    });
    const notSent = new WalletValidationError('bad input', { operation: 'withdraw', source: 'input' });
    const maybe = new WalletUnknownOutcomeError('timed out', { operation: 'withdraw' });
    const outcome = (error: unknown) =>
      changed(
        decide({ type: 'record-send-outcome', requestId: 'w1', outcome: { ok: false, error } }, executing(), ctx()),
      );
    expect(outcome(refusedByService).next).toMatchObject({
      state: 'failed',
      error: { kind: 'rejected', message: expect.stringContaining('insufficient balance') },
    });
    expect(outcome(notSent).next).toMatchObject({ state: 'failed', error: { kind: 'not_sent' } });
    expect(outcome(maybe)).toMatchObject({ event: 'unknown', next: { state: 'unknown', unknownReason: 'timed out' } });
    expect(outcome(new TypeError('bug')).next.state).toBe('unknown');
  });

  it('an answer for a request something else settled meanwhile only goes to the audit log', () => {
    const done = changed(
      decide(
        { type: 'record-send-outcome', requestId: 'w1', outcome: { ok: true, answer: answer() } },
        executing(),
        ctx(),
      ),
    ).next;
    const d = decide(
      { type: 'record-send-outcome', requestId: 'w1', outcome: { ok: false, error: new Error('late') } },
      done,
      ctx(),
    );
    expect(d).toMatchObject({
      kind: 'noted',
      audit: { action: 'result', subject: 'w1', details: { ignored: true, state: 'completed', error: 'late' } },
    });
  });
});

describe('decide: time, recovery, reconciliation, admins, webhooks', () => {
  const unknown = () =>
    given(requestCommand(usdt('10')), approve('U0CAROL'), claim, [
      {
        type: 'record-send-outcome',
        requestId: 'w1',
        outcome: { ok: false, error: new WalletUnknownOutcomeError('timed out', { operation: 'withdraw' }) },
      },
    ]);

  it('a pending request expires at its expiry, not before; an approved one only through recovery', () => {
    const open = given(requestCommand(usdt('10')));
    expect(decide({ type: 'expire' }, open, ctx(T0 + 2 * HOUR - 1)).kind).toBe('unchanged');
    expect(changed(decide({ type: 'expire' }, open, ctx(T0 + 2 * HOUR)))).toMatchObject({
      event: 'expired',
      next: { state: 'expired' },
      audit: { action: 'expire' },
    });
    const approved = given(requestCommand(usdt('10')), approve('U0CAROL'));
    expect(decide({ type: 'expire' }, approved, ctx(T0 + 3 * HOUR)).kind).toBe('unchanged');
    expect(decide({ type: 'expire-unsent' }, approved, ctx(T0 + HOUR)).kind).toBe('unchanged');
    expect(changed(decide({ type: 'expire-unsent' }, approved, ctx(T0 + 2 * HOUR))).next.state).toBe('expired');
  });

  it('a reminder is due within remind_before of the expiry, once', () => {
    const open = given(requestCommand(usdt('10')));
    expect(decide({ type: 'remind' }, open, ctx(T0 + 89 * 60_000)).kind).toBe('unchanged');
    const d = changed(decide({ type: 'remind' }, open, ctx(T0 + 90 * 60_000)));
    expect(d).toMatchObject({
      event: 'reminder',
      next: { state: 'pending', reminderSentAt: new Date(T0 + 90 * 60_000).toISOString() },
    });
    expect(decide({ type: 'remind' }, d.next, ctx(T0 + 91 * 60_000)).kind).toBe('unchanged');
  });

  it('a request found executing at startup becomes unknown; nothing else does', () => {
    const d = changed(
      decide({ type: 'mark-unknown-at-startup' }, given(requestCommand(usdt('10')), approve('U0CAROL'), claim), ctx()),
    );
    expect(d).toMatchObject({
      event: 'unknown',
      next: { state: 'unknown' },
      audit: { details: { reason: 'found executing at startup' } },
    });
    expect(
      decide({ type: 'mark-unknown-at-startup' }, given(requestCommand(usdt('10')), approve('U0CAROL')), ctx()).kind,
    ).toBe('unchanged');
  });

  it('recoveryAction: approved is sent within its expiry and expires unsent past it; executing becomes unknown; nothing else is touched', () => {
    const approved = given(requestCommand(usdt('10')), approve('U0CAROL'));
    expect(recoveryAction(approved, T0 + 2 * HOUR - 1)).toBe('send');
    expect(recoveryAction(approved, T0 + 2 * HOUR)).toBe('expire-unsent');
    expect(recoveryAction(given(requestCommand(usdt('10')), approve('U0CAROL'), claim), T0 + 3 * HOUR)).toBe(
      'mark-unknown',
    );
    expect(recoveryAction(given(requestCommand(usdt('10'))), T0 + 3 * HOUR)).toBe('none');
    expect(recoveryAction(unknown(), T0)).toBe('none');
    // The commands agree with the query (one rule, not two).
    expect(decide({ type: 'expire-unsent' }, approved, ctx(T0 + 2 * HOUR - 1)).kind).toBe('unchanged');
    expect(decide({ type: 'mark-unknown-at-startup' }, unknown(), ctx()).kind).toBe('unchanged');
  });

  it('reconciliation settles an unknown request from a readable record only', () => {
    expect(changed(decide({ type: 'reconcile', found: listed('successful') }, unknown(), ctx())).next).toMatchObject({
      state: 'completed',
      result: { source: 'reconcile', transactionHash: '0xhash' },
    });
    expect(changed(decide({ type: 'reconcile', found: listed('failed') }, unknown(), ctx())).next).toMatchObject({
      state: 'failed',
      error: { kind: 'reported_failed' },
    });
    expect(decide({ type: 'reconcile', found: listed('unknown') }, unknown(), ctx()).kind).toBe('unchanged');
  });

  it('only an admin resolves an unknown outcome, with a note', () => {
    const resolve = (o: Partial<{ admin: string; isAdmin: boolean; note: string }>, req = unknown()) =>
      decide(
        {
          type: 'resolve-unknown',
          admin: 'U0ERIN',
          isAdmin: true,
          outcome: 'sent',
          note: 'checked the explorer',
          ...o,
        },
        req,
        ctx(),
      );
    refusedWith(resolve({ isAdmin: false }), 'not_admin');
    refusedWith(resolve({ note: ' ' }), 'note_required');
    refusedWith(resolve({}, given(requestCommand(usdt('10')))), 'not_unknown');
    refusedWith(
      decide(
        { type: 'resolve-unknown', admin: 'U0ERIN', isAdmin: true, outcome: 'sent', note: 'seen' },
        undefined,
        ctx(),
      ),
      'not_found',
    );
    expect(changed(resolve({}))).toMatchObject({
      event: 'resolved',
      next: { state: 'completed', resolution: { by: 'U0ERIN', outcome: 'sent' } },
    });
  });

  // Before invariant 14 was enforced, a final webhook status settled an unknown outcome here. A
  // webhook is now a claim (`notice`): it settles nothing; the service's word (`service-word`, the
  // status it answers for our reference) is what is shown, and a final answer against our final
  // state is still a contradiction for the admins.
  it('a webhook is a claim: recorded, settling nothing; the service word is shown and contradicts a settled one', () => {
    const noticed = changed(decide({ type: 'notice', status: 'FAILED' }, unknown(), ctx()));
    expect(noticed).toMatchObject({
      event: 'notice',
      next: { state: 'unknown', notice: { status: 'FAILED', waiting: true } },
      audit: { action: 'webhook', details: { claim: expect.any(String) } },
    });
    expect(noticed.next.confirmation).toBeUndefined();
    expect(decide({ type: 'notice', status: 4 }, noticed.next, ctx()).kind).toBe('unchanged');
    expect(
      changed(decide({ type: 'notice', status: 'FAILED', transactionHash: '0x1' }, noticed.next, ctx())).next.notice
        ?.transactionHash,
    ).toBe('0x1');
    const word = (status: 'completed' | 'failed' | 'pending' | 'not_found') => ({
      via: 'status' as const,
      status,
      transactionHash: '0xabc',
    });
    const pending = changed(decide({ type: 'service-word', word: word('pending') }, noticed.next, ctx()));
    expect(pending).toMatchObject({
      event: 'confirmation',
      next: { state: 'unknown', confirmation: { status: 'PENDING' } },
    });
    expect(decide({ type: 'service-word', word: word('pending') }, pending.next, ctx()).kind).toBe('unchanged');
    // The service's Completed against the FAILED claim: the claim is contradicted (told once).
    const verdict = changed(decide({ type: 'notice-verdict', word: word('completed') }, noticed.next, ctx()));
    expect(verdict).toMatchObject({
      event: 'notice-disagreed',
      next: { state: 'unknown', notice: { waiting: false, disagreed: { status: 'FAILED', service: 'Completed' } } },
      audit: { action: 'notice_contradiction' },
    });
    const again = changed(decide({ type: 'notice', status: 'NOT_PROPAGATED' }, verdict.next, ctx()));
    expect(changed(decide({ type: 'notice-verdict', word: word('completed') }, again.next, ctx()))).toMatchObject({
      event: 'notice',
      audit: { action: 'notice_contradiction' },
    });
    const completed = given(requestCommand(usdt('10')), approve('U0CAROL'), claim, [
      { type: 'record-send-outcome', requestId: 'w1', outcome: { ok: true, answer: answer() } },
    ]);
    expect(changed(decide({ type: 'service-word', word: word('failed') }, completed, ctx()))).toMatchObject({
      event: 'contradiction',
      next: { state: 'completed', confirmation: { status: 'FAILED' } },
      audit: { action: 'service_contradiction' },
    });
    // A claim alone never contradicts our state: only the service's answer can.
    expect(changed(decide({ type: 'notice', status: 'FAILED' }, completed, ctx()))).toMatchObject({
      event: 'notice',
      next: { state: 'completed' },
    });
  });
});

describe('decide: properties over any sequence of commands', () => {
  const users = ['U0ALICE', 'U0CAROL', 'U0DAVE', 'U0ERIN', 'U0FRANK'];
  // Weighted towards progress (approvals, claims, times before the expiry), so that many runs reach a send.
  const command: fc.Arbitrary<WithdrawalCommand> = fc.oneof(
    {
      weight: 12,
      // The facts as the shell resolves them: Erin satisfies the tier's must_include, nobody else does.
      arbitrary: fc
        .record({
          user: fc.constantFrom(...users),
          isApprover: fc.oneof(
            { weight: 5, arbitrary: fc.constant(true) },
            { weight: 1, arbitrary: fc.constant(false) },
          ),
        })
        .map(
          ({ user, isApprover }): WithdrawalCommand => ({
            type: 'approve',
            user,
            isApprover,
            satisfies: user === 'U0ERIN' ? ['U0ERIN'] : [],
          }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('reject' as const),
        user: fc.constantFrom(...users),
        isApprover: fc.boolean(),
        reason: fc.constantFrom('', 'no'),
      }),
    },
    { weight: 3, arbitrary: fc.constant({ type: 'claim-for-sending' as const }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<WithdrawalCommand>(
        { type: 'expire' },
        { type: 'expire-unsent' },
        { type: 'remind' },
        { type: 'mark-unknown-at-startup' },
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<WithdrawalCommand>(
        {
          type: 'record-send-outcome',
          requestId: 'w1',
          outcome: { ok: true, answer: answer({ amount: '20000', amountRequested: '20000' }) },
        },
        {
          type: 'record-send-outcome',
          requestId: 'w1',
          outcome: { ok: false, error: new WalletUnknownOutcomeError('timed out', { operation: 'withdraw' }) },
        },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('reconcile' as const),
        found: fc.constantFrom(listed('successful'), listed('failed'), listed('unknown')),
      }),
    },
    {
      weight: 1,
      // A notification's claim (it settles nothing on its own, whatever it says).
      arbitrary: fc.record({
        type: fc.constant('notice' as const),
        status: fc.constantFrom('PENDING', 'CONFIRMED', 'FAILED', '<!channel>'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('resolve-unknown' as const),
        admin: fc.constant('U0ERIN'),
        isAdmin: fc.boolean(),
        outcome: fc.constantFrom('sent' as const, 'not_sent' as const),
        note: fc.constant('seen'),
      }),
    },
  );
  const at = fc.oneof(
    { weight: 9, arbitrary: fc.integer({ min: 0, max: 2 * HOUR - 1 }) },
    { weight: 1, arbitrary: fc.integer({ min: 2 * HOUR, max: 3 * HOUR }) },
  );

  it('no send without a full quorum of distinct approvers other than the requester; a non-approver is never recorded; final states never change', () => {
    // Counted so that the test fails if the generator stops reaching what the properties are about.
    let runsReachingSend = 0;
    let nonApproversAtAnOpenRequest = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(command, at), { minLength: 5, maxLength: 40 }), (steps) => {
        let req = given(requestCommand(usdt('20000'))); // 3 approvals incl. U0ERIN
        let sent = false;
        for (const [c, t] of steps) {
          if (c.type === 'approve' && !c.isApprover && !stateRefusal(req, c.user, T0 + t))
            nonApproversAtAnOpenRequest++;
          const d = decide(c, req, ctx(T0 + t));
          if (d.kind !== 'changed') continue;
          const before = req;
          req = d.next;
          if (c.type === 'approve') {
            // Only an approver's approval is ever recorded, one per command.
            expect(c.isApprover).toBe(true);
            expect(req.approvals.map((a) => a.user)).toEqual([...before.approvals.map((a) => a.user), c.user]);
          }
          if (FINAL_STATES.includes(before.state)) expect(req.state).toBe(before.state);
          // A notification (a claim anyone can post) never moves a request, nor records the service's word.
          if (c.type === 'notice') {
            expect(req.state).toBe(before.state);
            expect(req.confirmation).toEqual(before.confirmation);
          }
          if (req.state === 'executing' && before.state !== 'executing') {
            sent = true;
            expect(before.state).toBe('approved');
            const approvers = req.approvals.map((a) => a.user);
            expect(new Set(approvers).size).toBe(3);
            expect(approvers).not.toContain('U0ALICE');
            expect(approvers).toContain('U0ERIN');
          }
        }
        if (sent) runsReachingSend++;
      }),
      { numRuns: 300 },
    );
    expect(runsReachingSend).toBeGreaterThan(0);
    expect(nonApproversAtAnOpenRequest).toBeGreaterThan(0);
  });
});
