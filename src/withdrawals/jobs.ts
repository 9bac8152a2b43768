/**
 * The periodic work of the withdrawal domain, as plain functions the Scheduler can run.
 * Each is safe to run at any time and any number of times: the state lives in the store.
 */
import type { Scheduler } from '../jobs/scheduler.js';
import type { WithdrawalService } from './service.js';

/** Expiry first, so a request that has just expired is not also reminded. */
export async function runExpiryAndReminders(service: WithdrawalService): Promise<void> {
  await service.expireDue();
  await service.remindersDue();
}

export async function runReconciliation(service: WithdrawalService): Promise<void> {
  await service.reconcileUnknown();
}

export const WITHDRAWAL_JOB_NAMES = { expiry: 'withdrawals:expiry-and-reminders', reconcile: 'withdrawals:reconcile-unknown' } as const;

export function registerWithdrawalJobs(
  scheduler: Pick<Scheduler, 'add'>,
  service: WithdrawalService,
  o: { expirySchedule?: string; reconcileSchedule?: string } = {},
): void {
  scheduler.add({ name: WITHDRAWAL_JOB_NAMES.expiry, schedule: o.expirySchedule ?? '*/30 * * * * *', run: () => runExpiryAndReminders(service) });
  scheduler.add({ name: WITHDRAWAL_JOB_NAMES.reconcile, schedule: o.reconcileSchedule ?? '*/30 * * * * *', run: () => runReconciliation(service) });
}
