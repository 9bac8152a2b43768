/**
 * What the admins read when we refused to verify a withdrawal for the wallet service, in the
 * approvals channel. The alarm (admins mentioned, as the other admin-attention notices are):
 * the service asked about a withdrawal the quorum never approved, so someone holds the
 * merchant API key. The plain notice: it asked about one of ours that the quorum approved but
 * that is not to be sent now (frozen, already sent, failed...), a late or repeated call.
 */
import { formatAmount } from '../format/amount.js';
import { utcMinute } from '../format/time.js';
import type { Outbox, Rendered } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Store } from '../store/index.js';
import { VERIFICATION_ALERT_RENDERER, VERIFICATION_ALERTS, type VerificationAlert } from '../verification/alerts.js';
import { VERDICT_WORDS } from '../verification/verdict.js';
import { context, fields, mention, section, shorten } from './blocks.js';
import { outside, outsideCode } from '../format/outside.js';
import type { PolicySource } from '../policy/source.js';

/** Shown characters of a reference: enough to find it, short enough for any message. */
const REFERENCE_SHOWN = 64;

/**
 * A reference (any text a caller chose) as inline code that reads safely in mrkdwn: invisible
 * and control characters shown as �, cut to REFERENCE_SHOWN characters, `&<>` escaped (no
 * mention, link or broadcast), and no backtick to end the code span early.
 */
export function referenceCode(reference: string): string {
  return outsideCode(reference.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '\uFFFD'), REFERENCE_SHOWN);
}

/** Our reference, short as the cards show it (ours are UUIDs). */
const ourShortRef = (reference: string) => referenceCode(reference.slice(0, 8));

/** Why an approved request of ours is no longer to be confirmed, in the card's words. */
const NOT_SENT_NOW: Record<string, string> = {
  approved: 'approved, not being sent yet',
  executing: 'being sent',
  completed: 'already sent',
  failed: 'failed, nothing was sent',
  unknown: 'its outcome is being checked with the wallet service',
};

function amountOf(a: VerificationAlert): string {
  return a.amount && a.currency ? formatAmount(a.amount, a.currency) : 'not known';
}

export function renderVerificationAlert(a: VerificationAlert, policy: Policy): Rendered {
  return a.kind === 'notice' ? renderNotice(a) : renderAlarm(a, policy);
}

function renderAlarm(a: VerificationAlert, policy: Policy): Rendered {
  const admins = policy.people.admins.map((x) => mention(x)).join(' ');
  const headline = `:rotating_light: ${admins} The wallet service asked us to verify a withdrawal we did not approve: someone holds the API key.`;
  const amount = amountOf(a);
  const ref = referenceCode(a.reference);
  const ours = a.state !== undefined;
  const asked = a.asked ? outside(a.asked) : undefined;
  const text = `${headline} Reference ${ref}${ours && a.destination ? `, destination of our request ${outside(shorten(a.destination))}` : ''}, amount ${outside(amount)}${asked ? `; the call asked for ${asked}` : ''}.`;
  return {
    text,
    blocks: [
      section(headline),
      fields([
        ['Reference', ref],
        [ours ? 'Destination of our request' : 'Destination', a.destination ? outsideCode(a.destination) : 'not known'],
        [
          ours ? 'Amount of our request' : 'Amount',
          a.network && a.amount ? `${outside(amount)} on ${outside(a.network)}` : outside(amount),
        ],
        ['Why we refused', `${VERDICT_WORDS[a.reason]}${a.state ? ` (this request is ${outside(a.state)})` : ''}`],
        ...(asked ? [['The call asked for', asked] as [string, string]] : []),
      ]),
      section(
        'We answered “not verified”, so the service should not execute it. Rotate the merchant API key in the wallet service’s dashboard and check who had it; `/treasury freeze <reason>` stops every send meanwhile.',
      ),
      context(`Asked at ${utcMinute(a.at)}`),
    ],
  };
}

function renderNotice(a: VerificationAlert): Rendered {
  const because =
    a.reason === 'frozen'
      ? 'sends are frozen'
      : `it is no longer being sent (${NOT_SENT_NOW[a.state ?? ''] ?? VERDICT_WORDS[a.reason]})`;
  const what = `${outside(amountOf(a))}${a.destination ? ` to ${outsideCode(shorten(a.destination))}` : ''}`;
  const headline = `:information_source: The wallet service asked to confirm withdrawal ${ourShortRef(a.reference)} (${what}): refused because ${because}.`;
  return {
    text: headline,
    blocks: [
      section(headline),
      fields([
        ['Reference', referenceCode(a.reference)],
        ['Destination of our request', a.destination ? outsideCode(a.destination) : 'not known'],
        ['Amount', a.network && a.amount ? `${outside(amountOf(a))} on ${outside(a.network)}` : outside(amountOf(a))],
      ]),
      context(
        `Asked at ${utcMinute(a.at)}. The quorum approved this withdrawal; we answered “not verified”, so the service should not execute it now.`,
      ),
    ],
  };
}

export function registerVerificationAlerts(o: { outbox: Outbox; store: Store; policy: PolicySource }): void {
  o.outbox.registerRenderer(VERIFICATION_ALERT_RENDERER, (ref) => {
    const a = o.store.get(VERIFICATION_ALERTS, ref);
    return a ? renderVerificationAlert(a, o.policy.current()) : null;
  });
}
