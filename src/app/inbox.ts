/**
 * With PostgreSQL, the leader's side of the webhook inbox: what a standby took drains straight
 * into the alerts' ingestion (src/replica/inbox.ts), no HTTP hop, counted in the metrics as
 * received, as it was when the drain went through the route. SECRETS_KEY keys the inbox's
 * secret hashes: resolved again here (the step-up part made it if it had to; this only reads).
 */
import type { Alerts } from '../alerts/index.js';
import type { Config } from '../config.js';
import { label, type Metrics, WEBHOOK_KINDS, WEBHOOK_OUTCOMES } from '../metrics/registry.js';
import { inboxHashKey } from '../replica/inbox-secret.js';
import { resolveSecretsKey } from '../stepup/index.js';
import type { Store } from '../store/index.js';
import type { WebhookSecrets } from '../webhooks/secrets.js';
import type { StorePart } from './store.js';

export async function startInboxDrain(o: {
  drainInbox: NonNullable<StorePart['drainInbox']>;
  alerts: Pick<Alerts, 'ingest'>;
  config: Config;
  store: Store;
  metrics: Pick<Metrics, 'webhooksReceived'>;
  secrets: Pick<WebhookSecrets, 'accepted'>;
}): Promise<void> {
  const hashKey = inboxHashKey(await resolveSecretsKey(o.config, o.store));
  const ingest: Alerts['ingest'] = async (items) => {
    const results = await o.alerts.ingest(items);
    for (const [i, r] of results.entries()) {
      o.metrics.webhooksReceived.inc({
        kind: label(items[i]!.event.kind, WEBHOOK_KINDS),
        outcome: label(r.outcome, WEBHOOK_OUTCOMES),
      });
    }
    return results;
  };
  o.drainInbox({ ingest, hashKey, accepted: () => o.secrets.accepted() });
}
