/**
 * Events the webhook route (receiver.ts) or the leader's inbox drain (src/replica/inbox.ts)
 * has checked, made durable in the store with their outbox entries, then followed up. Many
 * events go in one commit, so a drain of thousands pays for a few database round trips, not
 * one each: the caller learns the outcome of each only once all of them are durable.
 */
import { KIND_RULES } from '../alert-kinds.js';
import type { DepositScreening } from './sanctions.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import type { PriceSnapshot } from '../prices/types.js';
import type { Store, Tx } from '../store/index.js';
import { ingestEvent, type IngestResult } from './ingest.js';
import type { WebhookEvent } from './parse.js';

export interface WebhookIngestDeps {
  /** Deposits from sanctioned senders are flagged (sanctions.ts). */
  screening?: DepositScreening;
  store: Store;
  outbox: Pick<Outbox, 'enqueue' | 'kick' | 'reprioritize'>;
  policy: PolicySource;
  prices?: () => PriceSnapshot;
  logger: Logger;
  now?: () => number;
  /** See WebhookHandlerDeps.linkWithdrawal: synchronous, inside the event's commit; throwing fails the commit. */
  linkWithdrawal?: (tx: Tx, e: { alertId: string; merchantReference: string; event: WebhookEvent }) => void;
  /** After the event is durable (never blocks the caller). */
  onAccepted?: (r: Exclude<IngestResult, { outcome: 'duplicate' }>, e: WebhookEvent) => void;
}

export interface CheckedWebhook {
  event: WebhookEvent;
  raw: string;
}

/** Ingests checked webhooks in one commit; resolves once it is durable, with each one's outcome in order. */
export type WebhookIngest = (items: readonly CheckedWebhook[]) => Promise<IngestResult[]>;

export function createWebhookIngest(deps: WebhookIngestDeps): WebhookIngest {
  const log = deps.logger.child({ module: 'webhook' });
  const now = deps.now ?? Date.now;
  return async (items) => {
    if (items.length === 0) return [];
    const at = now();
    const results = await deps.store.commit((tx) => {
      const ctx = {
        outbox: deps.outbox,
        policy: deps.policy.current(),
        now: at,
        ...(deps.prices ? { prices: deps.prices() } : {}),
        ...(deps.screening ? { screening: deps.screening } : {}),
      };
      return items.map(({ event, raw }) => {
        const r = ingestEvent(tx, { event, source: 'webhook', raw }, ctx);
        if (
          r.outcome !== 'duplicate' &&
          KIND_RULES[event.kind].ours &&
          event.merchantReference &&
          deps.linkWithdrawal
        ) {
          deps.linkWithdrawal(tx, { alertId: r.alertId, merchantReference: event.merchantReference, event });
        }
        return r;
      });
    });
    const fresh = results.flatMap((r, i) => (r.outcome === 'duplicate' ? [] : [{ r, event: items[i]!.event }]));
    if (fresh.length > 0) {
      deps.outbox.kick();
      const onAccepted = deps.onAccepted;
      if (onAccepted) {
        setImmediate(() => {
          for (const { r, event } of fresh) {
            try {
              onAccepted(r, event);
            } catch (err) {
              log.error({ err, alertId: r.alertId }, 'webhook follow-up failed');
            }
          }
        });
      }
    }
    return results;
  };
}
