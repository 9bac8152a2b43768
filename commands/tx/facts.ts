/** What the app knows beside the wallet's list, for /tx and its exports (read at the moment of use). */
import type { App } from '@slack/bolt';
import { allowlistPayee } from '../../src/transactions/booking.js';
import { ALERT_COLLECTIONS } from '../../src/alerts/types.js';
import { clientBook } from '../../src/transactions/clients.js';
import { notificationFees } from '../../src/transactions/fee.js';
import type { ExportFacts } from '../../src/transactions/export.js';
import { slackNames } from '../../src/transactions/names.js';
import type { CommandDeps } from '../deps.js';
import { WITHDRAWALS, type WithdrawalRequest } from '../../src/withdrawals/index.js';

export function txFacts(
  deps: CommandDeps,
  client?: App['client'],
): ExportFacts & { book: ReturnType<typeof clientBook> } {
  const requests = deps.withdrawals.list();
  return {
    requests,
    book: clientBook(deps.store, requests),
    payeeOf: allowlistPayee(deps.policy.current().withdrawals.allowlist.addresses),
    ...(client ? { names: slackNames(client) } : {}),
    prices: deps.prices.snapshot(),
    notified: notificationFees(deps.store.all(ALERT_COLLECTIONS.alerts)),
    ...(deps.prices.days ? { days: deps.prices.days } : {}),
    closedRequests: (references) => closedRequests(deps, references),
  };
}

/** Our closed requests for these references, from the store's history (indexed, a query per 1,000). */
function closedRequests(deps: CommandDeps, references: string[]): Promise<WithdrawalRequest[]> {
  return deps.store.history.findAny(WITHDRAWALS, 'merchantReference', references);
}
