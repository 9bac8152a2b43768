/**
 * Helpers every part of the decider shares, and settle-by-status.ts too: kept apart from the
 * `decide` entry so that a module the entry routes to can use them without importing the entry
 * back (that import was a runtime cycle).
 */
import type { HistoryItem, WithdrawalRequest, WithdrawalState } from '../types.js';
import type { Decision } from './types.js';

export const iso = (ms: number) => new Date(ms).toISOString();
export const unchanged = (request: WithdrawalRequest | undefined): Decision<never> => ({ kind: 'unchanged', request });

/** The request moved to `state`, with a history line (`item`: more the line keeps, as data). */
export function transition(
  req: WithdrawalRequest,
  state: WithdrawalState,
  by: string,
  at: string,
  note?: string,
  patch: Partial<WithdrawalRequest> = {},
  item: Pick<HistoryItem, 'missing'> = {},
): WithdrawalRequest {
  return {
    ...req,
    ...patch,
    state,
    history: [...req.history, { at, state, by, ...(note ? { note } : {}), ...item }],
  };
}
