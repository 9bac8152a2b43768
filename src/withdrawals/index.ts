export * from './types.js';
export { createWithdrawalService, needsAdminAttention, WITHDRAWALS } from './service/index.js';
export type {
  WithdrawalService,
  WithdrawalServiceOptions,
  ListFilter,
  ReconcileReport,
  WithdrawalEventInput,
  WithdrawalEventResult,
} from './service/index.js';
export { runExpiryAndReminders, runReconciliation } from './jobs.js';
export { formatAmount } from '../format/amount.js';
export { parseAmount, sumAmounts } from '../money/decimal.js';
export {
  expectedSettlement,
  feeEstimate,
  settlementOf,
  type Expected,
  type FeeEstimate,
  type FeeMode,
  type Settlement,
} from './fees.js';
export { noteThresholds, type Problem } from './input.js';
export {
  checkInput,
  selectTier,
  checkAllowlist,
  dailyUsage,
  countedRequests,
  admitRequest,
  decisionRefusal,
  reservedFor,
  unfilledPlaces,
  type DailyUsage,
  type Refusal,
  type Refused,
} from './rules.js';
export { decide, type DecideContext, type Decision, type WithdrawalCommand } from './decide/index.js';
export { recognisedClaim } from './notice.js';
