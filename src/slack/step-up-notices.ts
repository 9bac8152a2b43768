/**
 * What people are told about step-up codes, drawn by the outbox from the notice records the
 * step-up service writes in the same commit as the decision (so each is sent once, after a
 * crash too): a lockout or a new enrolment goes to the alerts channel for the admins, a reset to
 * the person by DM.
 * Never a secret, a code or a QR image here.
 */
import type { Outbox, OutboxRequest } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Store, Tx } from '../store/index.js';
import { MAX_WRONG_CODES, NOTICES, type StepUpNotice } from '../stepup/index.js';
import { mention } from './blocks.js';
import type { PolicySource } from '../policy/source.js';

export const STEPUP_NOTICE_RENDERER = 'stepup-notice';

const utcTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The admins a notice about `user` asks to act: never `user` themselves, who can neither reset
 * their own codes (another admin must) nor be the check on their own account.
 */
function otherAdmins(policy: Policy, user: string): string {
  return policy.people.admins
    .filter((a) => a !== user)
    .map((a) => mention(a))
    .join(' ');
}

export function renderStepUpNotice(n: StepUpNotice, policy: Policy): { text: string } {
  const others = otherAdmins(policy, n.user);
  // With no other admin to ask, say so rather than ask the person to act on themselves.
  const nobodyElse = policy.people.admins.includes(n.user)
    ? 'Only another admin can reset their codes, and the treasury policy names no other admin.'
    : 'Only an admin can reset their codes, and the treasury policy names none.';
  if (n.kind === 'locked') {
    return {
      text:
        `:lock: Authenticator codes of <@${n.user}> are locked until ${utcTime(n.until ?? 0)} after ${MAX_WRONG_CODES} wrong codes in a row. ` +
        'Until then they cannot approve large withdrawals. If it was not them typing, someone may be trying their Slack account' +
        (others ? `: check with them. ${others}` : '.'),
    };
  }
  if (n.kind === 'enrolled') {
    return {
      text:
        `:iphone: <@${n.user}> set up authenticator codes for approving large withdrawals (${utcTime(Date.parse(n.at))}). ` +
        (others
          ? "If they did not, their Slack account may be in someone else's hands: reset their codes with " +
            `\`/treasury stepup reset\` and check their account. ${others}`
          : `If they did not, their Slack account may be in someone else's hands. ${nobodyElse}`),
    };
  }
  return {
    text:
      `:key: <@${n.by}> reset your authenticator codes for approving large withdrawals. ` +
      'Your old codes no longer work: open the Treasury app’s Home tab and press “Set up authenticator codes” to set them up again. ' +
      'If you did not ask for this, tell another admin.',
  };
}

/** The outbox request that carries a notice: lockouts to the alerts channel, resets to the person. */
export function stepUpNoticeRequest(n: StepUpNotice, policy: Policy): OutboxRequest {
  return n.kind !== 'reset'
    ? { op: 'post', renderer: STEPUP_NOTICE_RENDERER, ref: n.id, channel: policy.channels.alerts }
    : { op: 'dm', renderer: STEPUP_NOTICE_RENDERER, ref: n.id, user: n.user };
}

/** Registers the renderer and returns the service's `notify` (read the policy at the moment of use). */
export function stepUpNotices(o: { outbox: Outbox; store: Store; policy: PolicySource }) {
  o.outbox.registerRenderer(STEPUP_NOTICE_RENDERER, (ref) => {
    const n = o.store.get(NOTICES, ref);
    return n ? renderStepUpNotice(n, o.policy.current()) : null;
  });
  return (tx: Tx, n: StepUpNotice): void => void o.outbox.enqueue(tx, stepUpNoticeRequest(n, o.policy.current()));
}
