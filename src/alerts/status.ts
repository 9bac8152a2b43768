/**
 * Alert statuses only move forward, by the one rank table of webhook statuses
 * (`WEBHOOK_STATUS_RANK`). Final statuses (CONFIRMED, FAILED, NOT_PROPAGATED) share the top
 * rank: once one is reached, nothing later changes the alert.
 */
import { WEBHOOK_STATUS_RANK, isFinalWebhookStatus } from '../wallet/enums.js';

/** Unknown statuses rank 0: recorded, but they never replace a known one. */
export function statusRank(status: string | undefined): number {
  return status ? (WEBHOOK_STATUS_RANK[status] ?? 0) : 0;
}

export function isTerminal(status: string | undefined): boolean {
  return isFinalWebhookStatus(status);
}

export function isFailure(status: string | undefined): boolean {
  return status === 'FAILED' || status === 'NOT_PROPAGATED';
}

/** Whether `next` may replace `current` as the alert's status. */
export function advances(current: string | undefined, next: string | undefined): boolean {
  if (isTerminal(current)) return false;
  return statusRank(next) > statusRank(current);
}
