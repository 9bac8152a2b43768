/**
 * Registering our webhook URL with the wallet service (the spec's PUT), and remembering the
 * outcome so /treasury status can show it. The stored URL hides the secret path segment.
 * The URL's secret path segment is configured, or generated once and kept in the store.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import { secrets } from '../secrets.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import { WalletError } from '../wallet/errors.js';
import { SETTINGS } from './settings.js';

const ID = 'webhookRegistration';

export interface WebhookRegistration {
  /** PUBLIC_URL/webhooks/wallet/•••• (never the secret). */
  shownUrl: string;
  at: string;
  ok: boolean;
  /** The answer could not be read: the registration may have succeeded (`error` says how to check). */
  uncertain?: boolean;
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
    // An answer that could not be read is not a failure: the message says it may have succeeded and how to check.
    const maybe = err instanceof WalletError && err.mayHaveChanged;
    record = {
      shownUrl,
      at,
      ok: false,
      ...(maybe ? { uncertain: true } : {}),
      error: secrets.scrub((err as Error).message),
      by: o.by,
    };
    o.logger.warn(
      { err, url: shownUrl },
      maybe
        ? 'webhook URL registration may have succeeded; its answer could not be read'
        : 'webhook URL registration failed',
    );
  }
  await o.store.commit((tx) => tx.put(SETTINGS, ID, record));
  return record;
}

/** The webhook URL's secret path segment: configured, or generated once and kept in the store. */
export async function webhookSecret(configured: string | undefined, store: Store): Promise<string> {
  if (configured) return configured;
  return store.commit((tx) => {
    const existing = tx.get(SETTINGS, 'webhookSecret');
    if (existing) return existing.value;
    const value = randomBytes(24).toString('base64url');
    tx.put(SETTINGS, 'webhookSecret', { value });
    return value;
  });
}
