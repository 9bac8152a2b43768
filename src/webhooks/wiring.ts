/**
 * The webhook part as the app builds it: registering the current URL with the wallet service
 * (`/treasury webhook register`, the startup registration, and the one after a rotation) and
 * rotating the secret, all through one queue. A registration reads the secret only once it has
 * its turn, so one that started before a rotation cannot answer after it and leave the service
 * with the replaced URL (refused once the overlap ends) while status says "registered".
 */
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import { registerWebhook, type WebhookRegistration } from './registration.js';
import { serial, webhookRotation, type WebhookRotationPart } from './rotation.js';
import type { WebhookSecrets } from './secrets.js';
import type { PolicySource } from '../policy/source.js';

/** How many times a registration is sent when the secret keeps changing under it (then status says it is stale). */
const MAX_ATTEMPTS = 3;

export interface WebhookParts {
  /** Registers PUBLIC_URL/webhooks/wallet/<current secret> with the wallet service, in turn. */
  register(by: string): Promise<WebhookRegistration>;
  rotation: WebhookRotationPart;
  /** At startup, when there is a URL to register: in the background, a failure logged. */
  registerAtStartup(): void;
}

export function webhookParts(o: {
  secrets: WebhookSecrets;
  wallet: Pick<WalletClient, 'setWebhookUrl'>;
  store: Store;
  logger: Logger;
  /** PUBLIC_URL, or the app's loopback URL with the embedded sandbox; read at each registration. */
  publicUrl: () => string | undefined;
  outbox: Pick<Outbox, 'enqueue'>;
  policy: PolicySource<Pick<Policy, 'people' | 'channels'>>;
  now: () => number;
}): WebhookParts {
  const queue = serial();
  // Inside the queue only.
  const registerNow = async (by: string): Promise<WebhookRegistration> => {
    for (let attempt = 1; ; attempt++) {
      const secret = o.secrets.current();
      const r = await registerWebhook({
        wallet: o.wallet,
        store: o.store,
        logger: o.logger,
        publicUrl: o.publicUrl(),
        secret,
        by,
        now: o.now,
      });
      // Every rotation of this process waits its turn, so this is a backstop: the URL just sent
      // is no longer the current one. Send the current one; the record's digest tells status if
      // it still is not.
      if (o.secrets.current() === secret || attempt >= MAX_ATTEMPTS) return r;
      o.logger.warn('the webhook secret changed while its URL was being registered: registering the current URL');
    }
  };
  const register = (by: string) => queue(() => registerNow(by));
  return {
    register,
    rotation: webhookRotation({ secrets: o.secrets, outbox: o.outbox, policy: o.policy, register: registerNow, queue }),
    registerAtStartup: () => {
      if (!o.publicUrl()) return;
      register('startup').catch((err: unknown) => o.logger.error({ err }, 'webhook registration at startup failed'));
    },
  };
}
