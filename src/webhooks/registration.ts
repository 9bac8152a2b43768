/**
 * Registering our webhook URL with the wallet service (the spec's PUT), and remembering the
 * outcome so /treasury status can show it. The stored URL hides the secret path segment.
 * The URL's secret path segment is configured, or generated and kept in the store (secrets.ts).
 */
import type { Logger } from '../log.js';
import { secrets } from '../secrets.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import { SETTINGS } from './settings.js';

const ID = 'webhookRegistration';

export interface WebhookRegistration {
  /** PUBLIC_URL/webhooks/wallet/•••• (never the secret). */
  shownUrl: string;
  at: string;
  ok: boolean;
  error?: string;
  by: string;
}

function webhookUrl(publicUrl: string, secret: string): string {
  return `${publicUrl}/webhooks/wallet/${encodeURIComponent(secret)}`;
}

export function registrationStatus(store: Store): WebhookRegistration | undefined {
  return store.get(SETTINGS, ID);
}

export async function registerWebhook(o: {
  wallet: Pick<WalletClient, 'setWebhookUrl'>;
  store: Store;
  logger: Logger;
  publicUrl: string | undefined;
  secret: string;
  by: string;
  now?: () => number;
}): Promise<WebhookRegistration> {
  const at = new Date((o.now ?? Date.now)()).toISOString();
  if (!o.publicUrl) {
    return {
      shownUrl: '',
      at,
      ok: false,
      error: 'PUBLIC_URL is not set, so there is no URL the wallet service could call.',
      by: o.by,
    };
  }
  const shownUrl = `${o.publicUrl}/webhooks/wallet/••••`;
  let record: WebhookRegistration;
  try {
    await o.wallet.setWebhookUrl(webhookUrl(o.publicUrl, o.secret));
    record = { shownUrl, at, ok: true, by: o.by };
    o.logger.info({ url: shownUrl }, 'webhook URL registered with the wallet service');
  } catch (err) {
    // The service's own words may echo the URL we sent, secret path included: never stored or shown.
    record = { shownUrl, at, ok: false, error: secrets.scrub((err as Error).message), by: o.by };
    o.logger.warn({ err, url: shownUrl }, 'webhook URL registration failed');
  }
  await o.store.commit((tx) => tx.put(SETTINGS, ID, record));
  return record;
}
