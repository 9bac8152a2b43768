/**
 * Which Slack messages each withdrawal event queues (src/slack/withdrawal-notify.ts), for requests
 * built by the decider itself: every approval gets its thread line, the one that completes the
 * quorum (`approved`) as well as those short of it (`approval-recorded`).
 */
import { describe, expect, it } from 'vitest';
import { cardPostedDms, withdrawalMessages } from '../../src/slack/withdrawal-notify.js';
import { APPROVER_DM_RENDERER, DM_RENDERER, THREAD_RENDERER } from '../../src/slack/withdrawal/index.js';
import {
  admitRequest,
  decide,
  type WithdrawalCommand,
  type WithdrawalEvent,
  type WithdrawalRequest,
} from '../../src/withdrawals/index.js';
import { T0, testPolicy, usdt } from '../withdrawals/helpers.js';

const policy = testPolicy();
const service = { reminderTargets: () => ['U0DAVE'] };

/** The events of a history of commands, as the service would announce them. */
function events(...commands: WithdrawalCommand[]): WithdrawalEvent[] {
  const checked = admitRequest(policy, usdt('5000'), true); // 2 approvals
  if (!checked.ok) throw new Error(checked.message);
  let req: WithdrawalRequest | undefined;
  const out: WithdrawalEvent[] = [];
  for (const c of [
    { type: 'request', requester: 'U0ALICE', checked, id: 'w1', merchantReference: 'ref', existing: [] } as const,
    ...commands,
  ]) {
    const d = decide(c, req, { now: T0, policy });
    if (d.kind !== 'changed') throw new Error(`${c.type}: ${JSON.stringify(d)}`);
    req = d.next;
    out.push({ type: d.event, request: req });
  }
  return out;
}

const threadRefs = (e: WithdrawalEvent) =>
  withdrawalMessages(e, policy, service)
    .filter((m) => m.renderer === THREAD_RENDERER)
    .map((m) => m.ref);
const dmRefs = (e: WithdrawalEvent) =>
  withdrawalMessages(e, policy, service)
    .filter((m) => m.renderer === DM_RENDERER)
    .map((m) => m.ref);

describe('withdrawal notifications', () => {
  it('each approval gets a thread line under the card, whether or not it completes the quorum', () => {
    const [requested, first, last, executing] = events(
      { type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] },
      { type: 'approve', user: 'U0DAVE', isApprover: true, satisfies: [] },
      { type: 'claim-for-sending' },
    );
    expect([requested, first, last, executing].map((e) => e!.type)).toEqual([
      'requested',
      'approval-recorded',
      'approved',
      'executing',
    ]);
    expect(threadRefs(first!)).toEqual(['w1|approved|U0CAROL']);
    expect(threadRefs(last!)).toEqual(['w1|approved|U0DAVE']);
    expect(threadRefs(executing!)).toEqual([]);
    // The requester hears once per event: not at each approval, not "being sent" a second before "sent".
    expect([first, last].flatMap((e) => dmRefs(e!))).toEqual([]);
    expect(dmRefs(executing!)).toEqual([]);
    // The request's DMs wait for the card (they link to it): the requester's for a form, one per approver.
    expect(dmRefs(requested!)).toEqual([]);
    const posted = (r: WithdrawalRequest) =>
      cardPostedDms(r, ['U0CAROL', 'U0DAVE']).map((m) => `${m.renderer} ${m.ref} ${m.key}`);
    expect(posted(requested!.request)).toEqual([
      `${DM_RENDERER} w1|requested withdrawal:w1:dm:requested`,
      `${APPROVER_DM_RENDERER} w1|U0CAROL withdrawal:w1:dm:approver:U0CAROL`,
      `${APPROVER_DM_RENDERER} w1|U0DAVE withdrawal:w1:dm:approver:U0DAVE`,
    ]);
    // A one-line request was answered where it was typed: no DM saying the same.
    expect(posted({ ...requested!.request, requestedFrom: 'command' })).toEqual([
      `${APPROVER_DM_RENDERER} w1|U0CAROL withdrawal:w1:dm:approver:U0CAROL`,
      `${APPROVER_DM_RENDERER} w1|U0DAVE withdrawal:w1:dm:approver:U0DAVE`,
    ]);
  });
});
