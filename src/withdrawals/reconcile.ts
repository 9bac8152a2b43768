/**
 * Reconciliation of withdrawals whose outcome is unknown, never by resending: first the
 * service's status for the merchantReference (the exact answer; settle-by-status.ts decides,
 * NotFound trusted only after the grace period and once the transaction list has no record of
 * it either), and only when that call fails, the
 * transaction list searched for the reference; a record with a readable final status settles
 * it, anything else leaves it unknown for the next run or an admin.
 */
import { serializeError, type Logger } from '../log.js';
import type { WalletClient } from '../wallet/client.js';
import { CURRENCIES, lookup } from '../wallet/enums.js';
import { incompleteNote, pageSizeOf, transactionPages, type PagedWallet } from '../wallet/pager.js';
import { WITHDRAWALS, type Shell } from './shell.js';
import type { ListedTransaction } from './wallet-answer.js';
import type { WithdrawalEvent, WithdrawalRequest } from './types.js';
import type { WithdrawalStatus } from '../wallet/client/withdrawal-status.js';
import { notFoundTrusted } from './settle-by-status.js';

export interface ReconcileReport {
  checked: number;
  resolved: WithdrawalRequest[];
  stillUnknown: string[];
  errors: Array<{ id: string; message: string }>;
}

export function createReconciler(
  shell: Shell,
  o: {
    wallet: PagedWallet & Partial<Pick<WalletClient, 'withdrawalStatus'>>;
    logger: Logger;
    maxPages: number;
    pageSize: number;
  },
): () => Promise<ReconcileReport> {
  const { wallet, logger, maxPages, pageSize } = o;

  async function findInTransactions(req: WithdrawalRequest): Promise<ListedTransaction | undefined> {
    // Paged by the service's own totals (src/wallet/pager.ts); the page size asked is never above
    // the one known to be accepted (the wallet's), and the service's own is followed.
    const size = Math.min(pageSize, pageSizeOf(wallet));
    const pages = transactionPages(wallet, { address: req.destination, type: 'withdrawal' }, { pageSize: size });
    let page = 0;
    for (;;) {
      const step = await pages.next();
      if (step.done) {
        // "Not in the list" is only believed of a list read to its end.
        const note = incompleteNote(step.value);
        if (note) throw new Error(`the transaction list could not be read to its end: ${note}`);
        return undefined;
      }
      const hit = step.value.records.find((rec) => rec.reference === req.merchantReference);
      if (hit) return hit;
      if (++page >= maxPages) break;
    }
    logger.warn(
      { id: req.id, maxPages, currency: lookup(CURRENCIES, req.currency)?.name },
      'reconciliation stopped after the page limit without finding the reference',
    );
    return undefined;
  }

  /** The status call's verdict: an event, undefined (still unknown), or 'status-failed' (fall back to the list). */
  async function settleByStatus(req: WithdrawalRequest): Promise<WithdrawalEvent | undefined | 'status-failed'> {
    if (!wallet.withdrawalStatus) return 'status-failed';
    let status: WithdrawalStatus;
    try {
      status = await wallet.withdrawalStatus(req.merchantReference);
    } catch (err) {
      logger.warn(
        { id: req.id, err: serializeError(err) },
        'the withdrawal status call failed; falling back to the transaction list',
      );
      return 'status-failed';
    }
    // Status first, list second: before a NotFound past the grace is believed, the reference is
    // looked up once in the transaction list; a record there settles it (or keeps it unknown).
    const ctx = shell.context();
    if (
      status.status === 'not_found' &&
      notFoundTrusted(req, { now: ctx.now, graceMs: ctx.policy.withdrawals.not_found_grace })
    ) {
      let listed: ListedTransaction | undefined;
      try {
        listed = await findInTransactions(req);
      } catch (err) {
        logger.warn(
          { id: req.id, err: serializeError(err) },
          'the wallet service has no record of this withdrawal, but the transaction list could not be read to confirm it; still unknown',
        );
        return undefined;
      }
      if (listed) return (await shell.commitOn(req.id, { type: 'reconcile', found: listed })).event;
    }
    const { event } = await shell.commitOn(req.id, { type: 'settle-by-status', status });
    if (!event && status.status === 'not_found')
      logger.info(
        { id: req.id },
        'the wallet service has no record of this withdrawal yet; still within the grace period',
      );
    return event;
  }

  return async function reconcileUnknown(): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, resolved: [], stillUnknown: [], errors: [] };
    for (const req of shell.store.find(WITHDRAWALS, (r) => r.state === 'unknown')) {
      report.checked++;
      const byStatus = await settleByStatus(req);
      if (byStatus !== 'status-failed') {
        if (byStatus) {
          report.resolved.push(byStatus.request);
          shell.emit([byStatus]);
        } else report.stillUnknown.push(req.id);
        continue;
      }
      let found: ListedTransaction | undefined;
      try {
        found = await findInTransactions(req);
      } catch (err) {
        report.errors.push({ id: req.id, message: err instanceof Error ? err.message : String(err) });
        report.stillUnknown.push(req.id);
        logger.warn({ id: req.id, err: serializeError(err) }, 'reconciliation could not read the transaction list');
        continue;
      }
      // Whether the record settles it (a readable final status) is the decider's; a commit that changes nothing writes nothing.
      const { event } = found ? await shell.commitOn(req.id, { type: 'reconcile', found }) : {};
      if (!event) {
        report.stillUnknown.push(req.id);
        continue;
      }
      report.resolved.push(event.request);
      shell.emit([event]);
    }
    if (report.checked)
      logger.info(
        { checked: report.checked, resolved: report.resolved.length, stillUnknown: report.stillUnknown.length },
        'reconciled unknown withdrawals',
      );
    return report;
  };
}
