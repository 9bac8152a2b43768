/**
 * The balances part: the book of the origin accounts' balances (read from the wallet service)
 * and the low-balance watch that posts to the alerts channel.
 */
import { createBalanceBook } from '../balances/book.js';
import { createLowBalanceWatch } from '../balances/watch.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import type { PriceSnapshot } from '../prices/types.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import type { BalancesPart } from '../deps.js';

export function buildBalances(o: {
  store: Store;
  outbox: Outbox;
  wallet: Pick<WalletClient, 'originBalances'>;
  policy: PolicySource;
  logger: Logger;
  now: () => number;
  /** The price cache: low-balance thresholds by value. */
  prices?: () => PriceSnapshot;
}): BalancesPart {
  const logger = o.logger.child({ component: 'balances' });
  const book = createBalanceBook({ wallet: o.wallet, logger, now: o.now });
  const watch = createLowBalanceWatch({
    store: o.store,
    outbox: o.outbox,
    book,
    policy: o.policy,
    ...(o.prices ? { prices: o.prices } : {}),
    logger,
    now: o.now,
  });
  return { book, watch };
}
