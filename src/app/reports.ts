/**
 * The reporting parts the jobs run: retention (events and alerts kept for the policy's days),
 * the daily digest (its message registered from the Slack side, src/slack/digest-message.ts)
 * and the monthly export. Each reads the policy in force at the moment of use.
 */
import { moveCardRecords } from '../slack/withdrawal-history.js';
import type { WebClient } from '@slack/web-api';
import { createDigests } from '../digest/service.js';
import { Retention } from '../jobs/retention.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { GroupResolver } from '../policy/people.js';
import type { PolicySource } from '../policy/source.js';
import type { DayPrices } from '../prices/day-prices.js';
import type { PriceSnapshot } from '../prices/types.js';
import { registerDigestRenderer } from '../slack/digest-message.js';
import type { Store } from '../store/index.js';
import { createMonthlyExports } from '../transactions/monthly.js';
import type { WalletClient } from '../wallet/client.js';
import type { WithdrawalService } from '../withdrawals/index.js';

export function buildReports(o: {
  store: Store;
  wallet: WalletClient;
  withdrawals: WithdrawalService;
  outbox: Outbox;
  policy: PolicySource;
  groups: GroupResolver;
  slack: WebClient;
  logger: Logger;
  now: () => number;
  /** The price cache's snapshot: the digest's values in USD. */
  prices?: () => PriceSnapshot;
  /** Prices of past days: the monthly CSV's values at each movement's date. */
  days?: DayPrices;
}) {
  const { store, wallet, outbox, policy, logger, now } = o;
  const retention = new Retention({
    store,
    historyRows: [{ name: 'withdrawal cards', move: (s) => moveCardRecords(s) }],
    policy,
    logger: logger.child({ component: 'retention' }),
    now,
  });
  const digests = createDigests({
    store,
    wallet,
    withdrawals: o.withdrawals,
    policy,
    outbox,
    logger,
    now,
    slack: o.slack,
    balances: () => wallet.originBalances(),
    ...(o.prices ? { prices: o.prices } : {}),
  });
  registerDigestRenderer(outbox, store);
  const monthlyExports = createMonthlyExports({
    store,
    wallet,
    policy,
    groups: o.groups,
    slack: o.slack,
    logger,
    now,
    ...(o.prices ? { prices: o.prices } : {}),
    ...(o.days ? { days: o.days } : {}),
  });
  return { retention, digests, monthlyExports };
}
