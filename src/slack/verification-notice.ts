/**
 * The admins' alarm, in the approvals channel with the admins mentioned (as the other
 * admin-attention notices are): the wallet service asked us to verify a withdrawal we did not
 * approve, so someone holds the merchant API key.
 */
import { formatAmount } from '../format/amount.js';
import { utcMinute } from '../format/time.js';
import type { Outbox, Rendered } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Store } from '../store/index.js';
import { VERIFICATION_ALERT_RENDERER, VERIFICATION_ALERTS, type VerificationAlert } from '../verification/alerts.js';
import { VERDICT_WORDS } from '../verification/verdict.js';
import { context, esc, fields, mention, section } from './blocks.js';

export function renderVerificationAlert(a: VerificationAlert, policy: Policy): Rendered {
  const admins = policy.people.admins.map((x) => mention(x)).join(' ');
  const headline = `:rotating_light: ${admins} The wallet service asked us to verify a withdrawal we did not approve: someone holds the API key.`;
  const amount = a.amount && a.currency ? formatAmount(a.amount, a.currency) : 'not known';
  const text = `${headline} Reference ${a.reference}, destination ${a.destination ?? 'not known'}, amount ${amount}.`;
  return {
    text,
    blocks: [
      section(headline),
      fields([
        ['Reference', `\`${esc(a.reference)}\``],
        ['Destination', a.destination ? `\`${esc(a.destination)}\`` : 'not known'],
        ['Amount', a.network && a.amount ? `${amount} on ${esc(a.network)}` : amount],
        ['Why we refused', `${VERDICT_WORDS[a.reason]}${a.state ? ` (this request is ${a.state})` : ''}`],
      ]),
      section(
        'We answered “not verified”, so the service should not execute it. Rotate the merchant API key in the wallet service’s dashboard and check who had it; `/treasury freeze <reason>` stops every send meanwhile.',
      ),
      context(`Asked at ${utcMinute(a.at)}`),
    ],
  };
}

export function registerVerificationAlerts(o: { outbox: Outbox; store: Store; policy: () => Policy }): void {
  o.outbox.registerRenderer(VERIFICATION_ALERT_RENDERER, (ref) => {
    const a = o.store.get(VERIFICATION_ALERTS, ref);
    return a ? renderVerificationAlert(a, o.policy()) : null;
  });
}
