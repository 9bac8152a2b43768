/**
 * The approvers' DMs (the ask, the reminder) kept true after a decision made anywhere: every
 * such DM already in Slack is edited, in the decision's own commit, to say where the request
 * stands now ("✅ You approved", "⛔ Rejected by @Dave: …", "✅ Sent"), so nobody acts on a DM
 * that still asks for a decision already made. Never a new message: only edits of those sent.
 */
import { COLLECTIONS, type Outbox, type Rendered } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import type { Tx } from '../store/index.js';
import type { WithdrawalEvent, WithdrawalRequest } from '../withdrawals/index.js';
import { stillNeeds } from '../withdrawals/queue.js';
import { outside } from '../format/outside.js';
import { link } from './blocks.js';
import { needsWords, payeeText } from './queue-words.js';
import { amountText, cardKey, rejecter, renderApproverDm, stateLabel, type CardPointer } from './withdrawal/index.js';

export const APPROVER_DM_NOW_RENDERER = 'withdrawal.approver-dm-now' as const;

/** Events after which an approver's DM may say something no longer true. */
const DECISIONS = new Set<WithdrawalEvent['type']>([
  'approval-recorded',
  'approved',
  'rejected',
  'expired',
  'completed',
  'failed',
  'unknown',
  'resolved',
  'held',
  'released',
  'reopened',
]);

/** The keys of the approvers' DMs of a request: the ask and the reminder, each ending in the user id. */
const dmPrefixes = (id: string) => [`${cardKey(id)}:dm:approver:`, `${cardKey(id)}:dm:remind:`];

export function renderApproverDmNow(
  ref: string,
  o: { get: (id: string) => WithdrawalRequest | undefined; policy: PolicySource; card: (id: string) => CardPointer },
): Rendered | null {
  const at = ref.lastIndexOf('|');
  const id = ref.slice(0, at);
  const user = ref.slice(at + 1);
  const r = o.get(id);
  if (!r) return null;
  const p = o.card(r.id);
  const card = p.permalink ? link(p.permalink, 'Open the card') : `The card is in <#${p.channel}>.`;
  const what = `*${outside(amountText(r))}* on ${outside(r.network, 30)} to ${payeeText(r)}, requested by <@${r.requester}>`;
  if (r.state === 'pending') {
    if (!r.approvals.some((a) => a.user === user)) return renderApproverDm(`${id}|${user}`, o.get, o.card);
    return { text: `✅ You approved · ${what}. ${needsWords(stillNeeds(r, o.policy.current(), false))}.\n${card}` };
  }
  const mine = r.approvals.some((a) => a.user === user) ? ' You approved it.' : '';
  const how: Partial<Record<WithdrawalRequest['state'], string>> = {
    rejected: ` by ${rejecter(r)}: “${outside(r.rejection?.reason ?? '', 300)}”`,
    approved: ': every approval is in.',
    executing: ': every approval is in.',
  };
  return {
    text: `${stateLabel(r)} · ${what}${how[r.state] ?? '.'}${mine} Nothing more is asked of you.\n${card}`,
  };
}

/** For the withdrawal service's change listeners: edits the DMs already sent, inside the change's commit. */
export function approverDmSync(
  outbox: Outbox,
  o: { get: (id: string) => WithdrawalRequest | undefined; policy: PolicySource; card: (id: string) => CardPointer },
): (event: WithdrawalEvent, tx: Tx) => void {
  outbox.registerRenderer(APPROVER_DM_NOW_RENDERER, (ref) => renderApproverDmNow(ref, o));
  return (event, tx) => {
    if (!DECISIONS.has(event.type)) return;
    const prefixes = dmPrefixes(event.request.id);
    for (const m of tx.all(COLLECTIONS.messages)) {
      // A DM still waiting to be posted is edited right after it (same lane, in order): a decision made
      // before the ask went out must not leave it asking.
      if (!prefixes.some((p) => m.key.startsWith(p))) continue;
      const user = m.key.slice(m.key.lastIndexOf(':') + 1);
      outbox.enqueue(tx, {
        op: 'update',
        renderer: APPROVER_DM_NOW_RENDERER,
        ref: `${event.request.id}|${user}`,
        key: m.key,
      });
    }
  };
}
