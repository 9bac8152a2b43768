/**
 * The periodic work of the withdrawal domain, as plain functions. They are declared as
 * scheduled jobs (name, schedule) in the one job table, `src/jobs/table.ts`.
 * Each is safe to run at any time and any number of times: the state lives in the store.
 */
import type { WithdrawalService } from './service/index.js';

/** Expiry first, so a request that has just expired is not also reminded. */
export async function runExpiryAndReminders(
  service: Pick<WithdrawalService, 'expireDue' | 'remindersDue' | 'retryHeld'>,
): Promise<void> {
  await service.expireDue();
  await service.remindersDue();
  // Sends held by a limit are judged again: sent once the window has made room (the claim decides).
  await service.retryHeld();
}

export async function runReconciliation(service: Pick<WithdrawalService, 'reconcileUnknown'>): Promise<void> {
  await service.reconcileUnknown();
}
