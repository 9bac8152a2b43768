/**
 * Withdrawal notifications (webhooks): a claim recorded in the receiver's commit, settling
 * nothing, then the service asked (reconcile.ts) for its own answer.
 */
import type { Tx } from '../../store/index.js';
import { holdFamily } from '../family-holds.js';
import { WITHDRAWALS } from '../shell.js';
import type { WithdrawalEvent, WithdrawalRequest } from '../types.js';
import type { ServiceDeps } from './deps.js';
import type { WithdrawalEventInput, WithdrawalEventResult } from './types.js';

export function noticeOps({ store, shell, reconciler, logger }: ServiceDeps) {
  /**
   * A withdrawal notification, applied inside the caller's commit (the webhook receiver's, so the
   * claim is as durable as the stored event): recorded, settling nothing. Returns the event, for a
   * caller with a listener to emit once that commit is durable.
   */
  function applyWithdrawalEvent(
    tx: Tx,
    e: WithdrawalEventInput,
  ): WithdrawalEventResult & { event?: WithdrawalEvent; repeats?: WithdrawalEvent[] } {
    const cur = tx.all(WITHDRAWALS).find((x) => x.merchantReference === e.merchantReference);
    if (!cur) return { matched: false, changed: false };
    const { event } = shell.apply(
      tx,
      { type: 'notice', status: e.status, transactionHash: e.transactionHash ?? null },
      cur,
    );
    if (!event) return { matched: true, changed: false, request: cur };
    // "Never executed", and now named by a notification: the rest of its payout waits, as a precaution, in this same commit.
    const repeats = holdFamily(shell, tx, cur, event.request, logger);
    return { matched: true, changed: true, request: event.request, event, ...(repeats.length ? { repeats } : {}) };
  }

  async function checkNotice(merchantReference: string): Promise<WithdrawalRequest | undefined> {
    const req = store.find(WITHDRAWALS, (x) => x.merchantReference === merchantReference)[0];
    return req ? reconciler.check(req.id) : undefined;
  }

  async function onWithdrawalEvent(e: WithdrawalEventInput): Promise<WithdrawalEventResult> {
    const r = await store.commit((tx) => applyWithdrawalEvent(tx, e));
    if (!r.matched) return { matched: false, changed: false };
    const after = await checkNotice(e.merchantReference);
    const request = after ?? r.request;
    return { matched: true, changed: r.changed, ...(request ? { request } : {}) };
  }

  return { applyWithdrawalEvent, checkNotice, onWithdrawalEvent };
}
