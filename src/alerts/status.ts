/**
 * Alert statuses only move forward. Terminal statuses (CONFIRMED, FAILED, NOT_PROPAGATED)
 * share the top rank: once one is reached, nothing later changes the alert.
 */
const RANK: Readonly<Record<string, number>> = {
  ABOUT_TO_INITIATE: 1,
  PENDING: 2,
  CONFIRMED: 3,
  FAILED: 3,
  NOT_PROPAGATED: 3,
};

/** Unknown statuses rank 0: recorded, but they never replace a known one. */
export function statusRank(status: string | undefined): number {
  return status ? (RANK[status] ?? 0) : 0;
}

export function isTerminal(status: string | undefined): boolean {
  return statusRank(status) === 3;
}

export function isFailure(status: string | undefined): boolean {
  return status === 'FAILED' || status === 'NOT_PROPAGATED';
}

/** Whether `next` may replace `current` as the alert's status. */
export function advances(current: string | undefined, next: string | undefined): boolean {
  if (isTerminal(current)) return false;
  return statusRank(next) > statusRank(current);
}
