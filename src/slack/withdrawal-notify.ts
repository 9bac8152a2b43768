/**
 * Turns withdrawal events into outbox entries, inside the commit of the change itself: the
 * card in the approvals channel is posted once and edited after every change, its thread
 * gets reminders and transfer updates (admins are called on a failed or contradicting
 * transfer), and the requester gets a DM for every outcome. The outbox renders from the
 * current state, so the content is never stale, and never lost across a crash.
 */
import type { Logger } from '../log.js';
import type { Outbox, OutboxRequest } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Store, Tx } from '../store/index.js';
import type { ExplorerNet } from '../wallet/explorers.js';
import { needsAdminAttention, type WithdrawalEvent, type WithdrawalService } from '../withdrawals/index.js';
import { mention } from './blocks.js';
import { CARD_RENDERER, DM_RENDERER, THREAD_RENDERER, cardKey, renderCard, renderDm, renderThread } from './withdrawal-card.js';

const DM_EVENTS = new Set(['requested', 'completed', 'failed', 'rejected', 'expired', 'unknown', 'resolved']);

const mentions = (ids: readonly string[]) => ids.map((a) => mention(a)).join(' ');

export function withdrawalMessages(event: WithdrawalEvent, policy: Policy, service: Pick<WithdrawalService, 'reminderTargets'>): OutboxRequest[] {
  const r = event.request;
  const key = cardKey(r.id);
  const out: OutboxRequest[] = [];
  if (event.type === 'requested') {
    out.push({ op: 'post', renderer: CARD_RENDERER, ref: r.id, key, channel: policy.channels.approvals });
  } else {
    out.push({ op: 'update', renderer: CARD_RENDERER, ref: r.id, key });
  }
  // Every approval gets its thread line, the one that completes the quorum (`approved`) too.
  if (event.type === 'approval-recorded' || event.type === 'approved') out.push({ op: 'reply', renderer: THREAD_RENDERER, ref: `${r.id}|approved|${r.approvals.at(-1)?.user ?? ''}`, key });
  if (event.type === 'executing') out.push({ op: 'dm', renderer: DM_RENDERER, ref: `${r.id}|approved`, user: r.requester, key: `${key}:dm:approved` });
  if (event.type === 'reminder') {
    out.push({ op: 'reply', renderer: THREAD_RENDERER, ref: `${r.id}|reminder|${mentions(service.reminderTargets(r))}`, key });
  }
  if ((event.type === 'confirmation' || event.type === 'contradiction') && r.confirmation) {
    const admins = needsAdminAttention(event) ? ` ${mentions(policy.people.admins)}` : '';
    out.push({ op: 'reply', renderer: THREAD_RENDERER, ref: `${r.id}|${event.type}|${r.confirmation.status}${admins}`, key });
  }
  if (DM_EVENTS.has(event.type)) {
    out.push({ op: 'dm', renderer: DM_RENDERER, ref: `${r.id}|${event.type}`, user: r.requester, key: `${key}:dm:${event.type}` });
  }
  return out;
}

export interface WithdrawalNotifier {
  /** For the service's onChange: runs inside the change's commit, so a notification is never lost. */
  onChange: (event: WithdrawalEvent, tx: Tx) => void;
  /** At start: a card for every request that has none (a crash between the request and its enqueue). */
  heal(): Promise<void>;
}

export function withdrawalNotifier(o: {
  store: Store;
  outbox: Outbox;
  service: WithdrawalService;
  policy: Policy;
  logger: Logger;
  explorerNet: ExplorerNet;
}): WithdrawalNotifier {
  const get = (id: string) => o.service.get(id);
  o.outbox.registerRenderer(CARD_RENDERER, (ref) => {
    const r = get(ref);
    return r ? renderCard(r, o.service, o.explorerNet) : null;
  });
  o.outbox.registerRenderer(THREAD_RENDERER, (ref) => renderThread(ref, get, o.explorerNet));
  o.outbox.registerRenderer(DM_RENDERER, (ref) => renderDm(ref, get));
  return {
    onChange(event, tx) {
      for (const req of withdrawalMessages(event, o.policy, o.service)) o.outbox.enqueue(tx, req);
    },
    async heal() {
      const missing = o.service.list().filter((r) => !o.outbox.message(cardKey(r.id)));
      if (!missing.length) return;
      o.logger.warn({ count: missing.length }, 'posting approval cards that were never queued');
      await o.store.commit((tx) => {
        for (const r of missing) o.outbox.enqueue(tx, { op: 'post', renderer: CARD_RENDERER, ref: r.id, key: cardKey(r.id), channel: o.policy.channels.approvals });
      });
    },
  };
}
