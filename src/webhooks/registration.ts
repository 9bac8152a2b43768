/**
 * Registering our webhook URL with the wallet service (the spec's PUT), and remembering the
 * outcome so /treasury status can show it. The stored URL hides the secret path segment; the
 * record keeps the SHA-256 of the secret it registered (never the value), so status can tell
 * when the registered URL is no longer the current one. The URL's secret path segment is
 * configured, or generated and kept in the store (secrets.ts). Registrations and rotations run
 * one at a time (wiring.ts).
 */
import type { Logger } from '../log.js';
import { secrets } from '../secrets.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import { secretDigest } from './secrets.js';
import { WalletError } from '../wallet/errors.js';
import { SETTINGS, type WebhookRegistration } from './settings.js';

const ID = 'webhookRegistration';

export type { WebhookRegistration } from './settings.js';

/**
 * The wallet service's own words may echo the URL we sent: every secret value is scrubbed, and
 * any `/webhooks/wallet/<segment>` (even a secret this process does not know, or a part of one)
 * is shown as `/webhooks/wallet/••••`. For anything upstream before it is stored or shown.
 */
export function maskWebhookPaths(text: string): string {
  return secrets.scrub(text).replace(/\/webhooks\/wallet\/[^/\s?#"'<>`]+/gi, '/webhooks/wallet/••••');
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
    record = { shownUrl, at, ok: true, by: o.by, secretDigest: secretDigest(o.secret) };
    o.logger.info({ url: shownUrl }, 'webhook URL registered with the wallet service');
  } catch (err) {
    // The service's own words may echo the URL we sent, secret path included: never stored, shown or logged.
    // An answer that could not be read is not a failure: the message says it may have succeeded and how to check.
    const maybe = err instanceof WalletError && err.mayHaveChanged;
    const error = maskWebhookPaths(String((err as Error)?.message ?? err));
    record = {
      shownUrl,
      at,
      ok: false,
      ...(maybe ? { uncertain: true } : {}),
      error,
      by: o.by,
      secretDigest: secretDigest(o.secret),
    };
    o.logger.warn(
      { reason: error, url: shownUrl },
      maybe
        ? 'webhook URL registration may have succeeded; its answer could not be read'
        : 'webhook URL registration failed',
    );
  }
  await o.store.commit((tx) => tx.put(SETTINGS, ID, record));
  return record;
}
