/**
 * What people are told about away states (src/away), drawn by the outbox from the notice records
 * the away service writes in the same commit as the change: the person, when an admin set or
 * cleared it for them; the delegate, when they are named.
 */
import { utcMinute } from '../format/time.js';
import type { Outbox } from '../outbox/index.js';
import type { Store, Tx } from '../store/index.js';
import { AWAY_NOTICES, type AwayNotice } from '../away/state.js';

export const AWAY_NOTICE_RENDERER = 'away-notice';

export function renderAwayNotice(n: AwayNotice): { text: string } {
  const until = n.until ? utcMinute(n.until) : '';
  switch (n.kind) {
    case 'set-for-you':
      return {
        text: `🏝️ <@${n.by}> set you as away until ${until}${n.delegate ? `: <@${n.delegate}> approves withdrawals in your place meanwhile` : ': you are not asked to approve withdrawals meanwhile'}. If that is wrong, type \`/treasury back\`.`,
      };
    case 'back-for-you':
      return { text: `👋 <@${n.by}> set you as back: you are asked to approve withdrawals again.` };
    case 'admins-set':
      return {
        text: `🤝 <@${n.user}> is away until ${until} and <@${n.delegate}> approves withdrawals in their place (set by <@${n.by}>). If that is not what they meant, their Slack account may be in someone else’s hands: end it with \`/treasury back @person\`.`,
      };
    case 'admins-ended':
      return {
        text: `👋 <@${n.user}> is back (set by <@${n.by}>): <@${n.delegate}> no longer approves withdrawals in their place.`,
      };
    case 'delegate':
      return {
        text: `🤝 <@${n.user}> is away until ${until} and handed their withdrawal approvals to you: you are asked in their place, and your approval counts for them (one vote for both of you). You never decide on a request either of you made.`,
      };
  }
}

/** Registers the renderer and returns the service's `notify`: each notice one DM, durable with the change. */
export function awayNotices(o: { outbox: Outbox; store: Store }) {
  o.outbox.registerRenderer(AWAY_NOTICE_RENDERER, (ref) => {
    const n = o.store.get(AWAY_NOTICES, ref);
    return n ? renderAwayNotice(n) : null;
  });
  return (tx: Tx, n: AwayNotice): void =>
    void o.outbox.enqueue(tx, { op: 'dm', renderer: AWAY_NOTICE_RENDERER, ref: n.id, user: n.to });
}
