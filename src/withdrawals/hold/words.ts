/**
 * The words of the domain's own refusals and audit entries about repeats and holds. A refusal
 * carries the sentence a person reads (the decider's contract: reason + words), and the audit
 * log must read on its own, so these stay in the domain; what only the card says is on the
 * Slack side (src/slack/withdrawal/hold-words.ts).
 */
import { statusDetail } from '../../format/status.js';
import { stateWords } from '../rules.js';
import type { RepeatHold, WithdrawalRequest } from '../types.js';

/** The refusal of a new request of a payout one of whose requests (`m`) the service reported after "never executed". */
export const CONTRADICTED_REFUSAL_PREFIX = 'The wallet service now reports the earlier request of this payout';
export function contradictedRefusalWords(m: WithdrawalRequest): string {
  // A notification alone is a claim (maybe forged): said so, and its text is never repeated here.
  const what = m.confirmation
    ? reportedStatusWords(m.confirmation.status)
    : 'named by a notification the wallet service has not confirmed';
  return `${CONTRADICTED_REFUSAL_PREFIX} (ref \`${shortRef(m)}\`, ${what}) after it had no record of it: it may have been paid. Do not pay it again; an admin must check it in the wallet service first.`;
}

/** "Pending", "Confirmed", "Failed: never reached the network", "Status unknown": the app's status words. */
export function reportedStatusWords(status: string | undefined): string {
  const w = statusDetail(status);
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/** The short reference people quote (the card's "Ref"). */
export const shortRef = (r: Pick<WithdrawalRequest, 'merchantReference'>) => r.merchantReference.slice(0, 8);

/** The plain words of a retyped request's hold (audit, claim refusal). */
export function retypedHoldWords(h: RepeatHold, earlier?: WithdrawalRequest): string {
  const ref = earlier ? ` (ref \`${shortRef(earlier)}\`)` : '';
  return h.earlierState
    ? `the same details as an earlier request${ref} that is ${stateWords(h.earlierState)}: paying this one too may pay the client twice; if this is a separate payout, an admin can send it anyway`
    : h.status
      ? `the same details as an earlier request${ref} the wallet service reported (${reportedStatusWords(h.status)}) after it had no record of it: any report means the service has that request, so it may have been paid; if this is a separate payout, an admin can send it anyway`
      : `the same details as an earlier request${ref} that a notification named after the wallet service had no record of it (not confirmed by the service; it may be forged, but the earlier request may have been paid); if this is a separate payout, an admin can send it anyway`;
}

/** The words of a precaution hold: a notification (unsigned) names the earlier request; never its text. */
export const NOTIFIED_HOLD_WORDS =
  'a notification names the earlier request of the same payout after the wallet service had no record of it; the wallet service has not confirmed it (it may be forged), but until it does this one is held as a precaution';

/** The words an admin reads when a release came after the request's expiry (it expired instead). */
export const RELEASED_AFTER_EXPIRY =
  'This request expired before it was released: its approvals are too old, so it was not sent and is now expired. If the payout is still due, make a new request.';
