/**
 * The escalation messages (src/withdrawals/escalation.ts decides when and to whom): a DM to an
 * approver still needed, listing every request waiting on them; and at twice the time, a post to
 * the escalation channel (or an admin's DM) naming what each waits on and who is away. Drawn when
 * sent from the requests as they are then: a request decided meanwhile drops out, and a message
 * left with none is not sent.
 */
import { delegationIn } from '../away/service.js';
import { outside } from '../format/outside.js';
import type { Outbox, Rendered } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import type { Store, Tx } from '../store/index.js';
import { ESCALATION_NOTICES, type EscalationNotice } from '../withdrawals/escalation.js';
import type { WithdrawalRequest } from '../withdrawals/index.js';
import { stillNeeds } from '../withdrawals/queue.js';
import { link } from './blocks.js';
import { needsWords, payeeText, shortDuration } from './queue-words.js';
import { amountText, type CardPointer } from './withdrawal/index.js';

export const ESCALATION_RENDERER = 'withdrawal.escalation' as const;

interface Facts {
  store: Store;
  get: (id: string) => WithdrawalRequest | undefined;
  policy: PolicySource;
  now: () => number;
  card: (id: string) => CardPointer;
}

export function renderEscalation(n: EscalationNotice, o: Facts): Rendered | null {
  const now = o.now();
  const away = delegationIn(o.store, now);
  const open = n.requests
    .map((id) => o.get(id))
    .filter((r): r is WithdrawalRequest => r?.state === 'pending' && Date.parse(r.expiresAt) > now);
  if (!open.length) return null;
  const lines = open.slice(0, 20).map((r) => {
    const p = o.card(r.id);
    const card = p.permalink ? link(p.permalink, 'Open the card') : `the card is in <#${p.channel}>`;
    return (
      `• *${outside(amountText(r))}* on ${outside(r.network, 30)} to ${payeeText(r)}, requested by <@${r.requester}>, ` +
      `waiting ${shortDuration(now - Date.parse(r.createdAt))}, ${shortDuration(Date.parse(r.expiresAt) - now)} left. ` +
      `${needsWords(stillNeeds(r, o.policy.current(), false, away))}. ${card}`
    );
  });
  const more = open.length > 20 ? `\n…and ${open.length - 20} more in \`/treasury pending\`.` : '';
  const head =
    n.stage === 'dm'
      ? `⏰ ${open.length === 1 ? 'A withdrawal request waits' : `${open.length} withdrawal requests wait`} for your approval:`
      : `📣 Escalation: ${open.length === 1 ? 'a withdrawal request is' : `${open.length} withdrawal requests are`} still short of approvals:`;
  return { text: `${head}\n${lines.join('\n')}${more}` };
}

/** Registers the renderer; returns what the escalation's commit calls to queue a message. */
export function escalationSender(outbox: Outbox, o: Facts): (tx: Tx, n: EscalationNotice) => void {
  outbox.registerRenderer(ESCALATION_RENDERER, (ref) => {
    const n = o.store.get(ESCALATION_NOTICES, ref);
    return n ? renderEscalation(n, o) : null;
  });
  return (tx, n) =>
    void outbox.enqueue(
      tx,
      n.kind === 'dm'
        ? { op: 'dm', renderer: ESCALATION_RENDERER, ref: n.id, user: n.user! }
        : { op: 'post', renderer: ESCALATION_RENDERER, ref: n.id, channel: n.channel! },
    );
}
