/**
 * The approvers' reminder DM (src/withdrawals/reminders.ts decides when and to whom): one per
 * person still needed, rendered when sent from the request as it is then, so a request decided
 * meanwhile sends nothing (a renderer's null) and the words never go stale.
 */
import type { Outbox, OutboxRequest, Rendered } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import type { Tx } from '../store/index.js';
import type { WithdrawalRequest } from '../withdrawals/index.js';
import { stillNeeds } from '../withdrawals/queue.js';
import { slackDate } from '../format/time.js';
import { outside } from '../format/outside.js';
import { link } from './blocks.js';
import { needsWords, payeeText, shortDuration } from './queue-words.js';
import { amountText, cardKey, riskFlags, type CardPointer } from './withdrawal/index.js';

export const REMINDER_DM_RENDERER = 'withdrawal.reminder-dm' as const;

const encodeRef = (id: string, user: string) => `${id}|${user}`;
function decodeRef(ref: string): { id: string; user: string } {
  const at = ref.lastIndexOf('|');
  return { id: ref.slice(0, at), user: ref.slice(at + 1) };
}

export function renderReminderDm(
  ref: string,
  o: {
    get: (id: string) => WithdrawalRequest | undefined;
    policy: PolicySource;
    now: () => number;
    card: (id: string) => CardPointer;
  },
): Rendered | null {
  const { id, user } = decodeRef(ref);
  const r = o.get(id);
  // Decided, expired, or this person approved meanwhile: nothing to remind of.
  if (r?.state !== 'pending' || r.approvals.some((a) => a.user === user)) return null;
  const left = Date.parse(r.expiresAt) - o.now();
  if (left <= 0) return null;
  const flags = riskFlags(r);
  const p = o.card(r.id);
  const card = p.permalink ? link(p.permalink, 'Open the card') : `The card is in <#${p.channel}>.`;
  const text =
    `⏰ Reminder · *${outside(amountText(r))}* on ${outside(r.network, 30)} to ${payeeText(r)}, requested by <@${r.requester}>, ` +
    `expires ${slackDate(r.expiresAt)} (${shortDuration(left)} left). ${needsWords(stillNeeds(r, o.policy.current(), false))}.` +
    `${flags.length ? ` ⚠️ ${flags.join(' · ')}.` : ''}\n${card}`;
  return { text };
}

/** The DMs of one reminder, keyed so each person gets it once even if it were enqueued twice. */
export function reminderDms(r: WithdrawalRequest, users: readonly string[]): OutboxRequest[] {
  return users.map((user) => ({
    op: 'dm',
    renderer: REMINDER_DM_RENDERER,
    ref: encodeRef(r.id, user),
    user,
    key: `${cardKey(r.id)}:dm:remind:${r.expiresAt}:${user}`,
  }));
}

/** Registers the renderer; returns what the reminders' commit calls to queue the DMs. */
export function reminderDmSender(
  outbox: Outbox,
  o: {
    get: (id: string) => WithdrawalRequest | undefined;
    policy: PolicySource;
    now: () => number;
    card: (id: string) => CardPointer;
  },
): (tx: Tx, r: WithdrawalRequest, users: readonly string[]) => void {
  outbox.registerRenderer(REMINDER_DM_RENDERER, (ref) => renderReminderDm(ref, o));
  return (tx, r, users) => {
    for (const dm of reminderDms(r, users)) outbox.enqueue(tx, dm);
  };
}
