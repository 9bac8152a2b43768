/**
 * The parts the app is built from, handed to every command and receiver. Tests build the
 * same parts on test ports instead of importing singletons.
 */
import type { Alerts } from './alerts/index.js';
import type { Config } from './config.js';
import type { DigestService } from './digest/service.js';
import type { Scheduler } from './jobs/scheduler.js';
import type { Logger } from './log.js';
import type { Outbox } from './outbox/index.js';
import type { Policy } from './policy/schema.js';
import type { Store } from './store/index.js';
import type { WalletClient } from './wallet/client.js';
import type { WebhookRegistration } from './webhooks/registration.js';
import type { WithdrawalService } from './withdrawals/index.js';

export interface Deps {
  config: Config;
  logger: Logger;
  store: Store;
  wallet: WalletClient;
  policy: Policy;
  scheduler: Scheduler;
  outbox: Outbox;
  withdrawals: WithdrawalService;
  /** The alerts part (/treasury status shows what it has seen). */
  alerts: Alerts;
  /** The daily digest (/treasury digest, the `digest.daily` job). */
  digests: DigestService;
  /** A withdrawal card's permalink, undefined until the card is posted (one source for DMs and the Home). */
  cardPermalink(requestId: string): Promise<string | undefined>;
  /** Registers PUBLIC_URL/webhooks/wallet/<secret> with the wallet service. */
  registerWebhook(by: string): Promise<WebhookRegistration>;
  /** Where the wallet service is: the embedded sandbox or a configured base URL. */
  walletDescription: string;
  version: string;
  now: () => number;
}
