/**
 * The parts the app is built from, handed to every command and receiver. Tests build the
 * same parts on test ports instead of importing singletons.
 */
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Policy } from './policy/schema.js';
import type { Store } from './store/index.js';
import type { WalletClient } from './wallet/client.js';
import type { Scheduler } from './jobs/scheduler.js';

export interface Deps {
  config: Config;
  logger: Logger;
  store: Store;
  wallet: WalletClient;
  policy: Policy;
  scheduler: Scheduler;
  /** Where the wallet service is: the embedded sandbox or a configured base URL. */
  walletDescription: string;
  version: string;
  now: () => number;
}
