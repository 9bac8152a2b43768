/**
 * Turns withdrawal events into outbox entries: the card in the approvals channel is posted
 * once and edited after every change, its thread gets reminders and transfer updates, and
 * the requester gets a DM for every outcome. The outbox renders from the current state,
 * so the content is never stale and never lost across a restart.
 */
import type { Logger } from '../src/log.js';
import type { Outbox, OutboxRequest } from '../src/outbox/index.js';
import type { Policy } from '../src/policy/schema.js';
import type { Store } from '../src/store/index.js';
import type { WithdrawalEvent, WithdrawalService } from '../src/withdrawals/index.js';
import type { ExplorerNet } from '../src/wallet/explorers.js';
import { CARD_RENDERER, DM_RENDERER, THREAD_RENDERER, cardKey, renderCard, renderDm, renderThread } from './withdraw-card.js';

const DM_EVENTS = new Set(['requested', 'completed', 'failed', 'rejected', 'expired', 'unknown', 'resolved']);

export function withdrawalMessages(event: WithdrawalEvent, policy: Policy): OutboxRequest[] {
  const r = event.request;
  const key = cardKey(r.id);
  const out: OutboxRequest[] = [];
  if (event.type === 'requested') {
    out.push({ op: 'post', renderer: CARD_RENDERER, ref: r.id, key, channel: policy.channels.approvals });
  } else {
    out.push({ op: 'update', renderer: CARD_RENDERER, ref: r.id, key });
  }
  if (event.type === 'approved') out.push({ op: 'reply', renderer: THREAD_RENDERER, ref: `${r.id}|approved|${r.approvals.at(-1)?.user ?? ''}`, key });
  if (event.type === 'executing') out.push({ op: 'dm', renderer: DM_RENDERER, ref: `${r.id}|approved`, user: r.requester, key: `${key}:dm:approved` });
  if (event.type === 'reminder') {
    const approved = new Set(r.approvals.map((a) => a.user));
    const waiting = policy.people.approvers.filter((a) => a !== '*' && a !== r.requester && !approved.has(a));
    const mentions = waiting.map((a) => (a.startsWith('S') ? `<!subteam^${a}>` : `<@${a}>`)).join(' ');
    out.push({ op: 'reply', renderer: THREAD_RENDERER, ref: `${r.id}|reminder|${mentions}`, key });
  }
  if (event.type === 'confirmation' && r.confirmation) {
    out.push({ op: 'reply', renderer: THREAD_RENDERER, ref: `${r.id}|confirmation|${r.confirmation.status}`, key });
  }
  if (DM_EVENTS.has(event.type)) {
    out.push({ op: 'dm', renderer: DM_RENDERER, ref: `${r.id}|${event.type}`, user: r.requester, key: `${key}:dm:${event.type}` });
  }
  return out;
}

export interface WithdrawalNotifier {
  listener: (event: WithdrawalEvent) => Promise<void>;
  /** At start: a card for every request that has none (a crash between the request and its enqueue). */
  heal(): Promise<void>;
}

export function withdrawalNotifier(o: {
  store: Store;
  outbox: Outbox;
  service: () => WithdrawalService;
  policy: Policy;
  logger: Logger;
  explorerNet: ExplorerNet;
}): WithdrawalNotifier {
  const get = (id: string) => o.service().get(id);
  o.outbox.registerRenderer(CARD_RENDERER, (ref) => {
    const r = get(ref);
    return r ? renderCard(r, o.service(), o.explorerNet) : null;
  });
  o.outbox.registerRenderer(THREAD_RENDERER, (ref) => renderThread(ref, get, o.explorerNet));
  o.outbox.registerRenderer(DM_RENDERER, (ref) => renderDm(ref, get));
  return {
    async listener(event) {
      const requests = withdrawalMessages(event, o.policy);
      await o.store.commit((tx) => {
        for (const req of requests) o.outbox.enqueue(tx, req);
      });
    },
    async heal() {
      const missing = o.service().list().filter((r) => !o.outbox.message(cardKey(r.id)));
      if (!missing.length) return;
      o.logger.warn({ count: missing.length }, 'posting approval cards that were never queued');
      await o.store.commit((tx) => {
        for (const r of missing) o.outbox.enqueue(tx, { op: 'post', renderer: CARD_RENDERER, ref: r.id, key: cardKey(r.id), channel: o.policy.channels.approvals });
      });
    },
  };
}
