/**
 * Batch payouts: a CSV of many withdrawals, validated whole (validate.ts), approved once on its
 * total by the one rule table (judge.ts, decide.ts), each row sent exactly once through the same
 * claim as a single withdrawal (runner.ts), and a result file (results.ts).
 */
export { createBatchService, type BatchService } from './runner.js';
export {
  BATCHES,
  countedBatchRows,
  REPEAT_WINDOW_MS,
  type BatchEvent,
  type BatchListener,
  type SubmitOutcome,
} from './service.js';
export { errorLines, validatePayoutFile } from './validate.js';
export { progressWords, type Progress } from './decide.js';
export { MAX_BYTES, MAX_ROWS, OPTIONAL_COLUMNS, REQUIRED_COLUMNS } from './csv.js';
export { DEFAULT_PACE, type Pace } from './pace.js';
export { batchRef, rowReference, rowRequestId, fileSha256 } from './reference.js';
export { resultCsv, RESULT_COLUMNS, rowStatus, rowsCsv, ROWS_COLUMNS } from './results.js';
export type { Batch, BatchError, BatchRow, BatchScreening, BatchState } from './types.js';
