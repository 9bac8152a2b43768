/**
 * The alerts part: the webhook receiver with verification and reconciliation, and the Slack
 * rendering of alerts. A withdrawal's webhook is linked to its request inside the webhook's
 * own commit: its claim (and the card's "waiting for the wallet service") is as durable as the
 * event. It settles nothing: once acknowledged, the wallet service is asked, and its answer does;
 * the withdrawal's alert then follows the request's settled outcome.
 */
import type { DepositScreening } from '../alerts/sanctions.js';
import { createAlerts, type Alerts } from '../alerts/index.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import type { PriceSnapshot } from '../prices/types.js';
import { registerAlertRenderers } from '../slack/alert-messages.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import type { ExplorerNet } from '../wallet/explorers.js';
import { WITHDRAWALS, type WithdrawalService } from '../withdrawals/index.js';
import type { CleanupStack } from './cleanup.js';

export function buildAlerts(
  o: {
    config: Config;
    store: Store;
    outbox: Outbox;
    wallet: WalletClient;
    policy: PolicySource;
    logger: Logger;
    /** The accepted webhook secrets, read at each request (a rotation applies at once). */
    secret: () => readonly string[];
    now: () => number;
    withdrawals: Pick<WithdrawalService, 'applyWithdrawalEvent' | 'checkNotice'>;
    explorerNet: ExplorerNet;
    /** The price cache: `@here` by value. */
    prices?: () => PriceSnapshot;
    /** Deposits from sanctioned senders flagged, the admins told. */
    screening?: DepositScreening;
  },
  cleanup: CleanupStack,
): Alerts {
  const alerts = createAlerts({
    store: o.store,
    outbox: o.outbox,
    wallet: o.wallet,
    policy: o.policy,
    ...(o.prices ? { prices: o.prices } : {}),
    ...(o.screening ? { screening: o.screening } : {}),
    logger: o.logger,
    secret: o.secret,
    signatureRequired: o.config.webhookSignatureRequired,
    now: o.now,
    linkWithdrawal: (tx, e) => {
      o.withdrawals.applyWithdrawalEvent(tx, {
        merchantReference: e.merchantReference,
        status: e.status ?? '',
        transactionHash: e.event.hash ?? null,
      });
    },
    // Off the webhook's request path: the service is asked, and only its answer settles. Unreachable,
    // nothing changes and the reconcile job asks again.
    onWithdrawalEvent: async (e) => {
      await o.withdrawals.checkNotice(e.merchantReference);
    },
    ourWithdrawal: (reads, merchantReference) =>
      reads.all(WITHDRAWALS).find((r) => r.merchantReference === merchantReference),
  });
  cleanup.push(() => alerts.stop());
  registerAlertRenderers(o.outbox, o.store, { explorer: o.explorerNet, policy: o.policy });
  return alerts;
}
