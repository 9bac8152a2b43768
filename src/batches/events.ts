/**
 * The batch service's words with its callers: its events, what a submission takes and answers,
 * and what the service is built from. A leaf beside types.ts (the runner and the Slack side read it).
 */
import type { Logger } from '../log.js';
import type { PriceSnapshot } from '../money/value.js';
import type { GroupResolver } from '../policy/people.js';
import type { PolicySource } from '../policy/source.js';
import type { WithdrawalScreening } from '../screening/types.js';
import type { Store, Tx } from '../store/index.js';
import type { AllowlistApprovals } from '../withdrawals/rules.js';
import type { WithdrawalService } from '../withdrawals/service/types.js';
import type { Batch, BatchError } from './types.js';

export type BatchEventType =
  | 'requested'
  | 'approval-recorded'
  | 'approved'
  | 'rejected'
  | 'expired'
  | 'stopped'
  | 'progress'
  | 'done';
export interface BatchEvent {
  type: BatchEventType;
  batch: Batch;
}
/** Heard inside the change's commit (a row's progress: inside the row's commit). */
export type BatchListener = (event: BatchEvent, tx: Tx) => void;

export interface SubmitInput {
  text: string;
  fileName: string;
  /** The requester confirmed that a file sent within 30 days is meant to be paid again. */
  confirmRepeat?: boolean;
}

export type SubmitOutcome =
  | { ok: true; batch: Batch }
  /** errors: the file's problems, every one (row, column, reason). */
  | { ok: false; kind: 'errors'; errors: BatchError[] }
  /** The same file was submitted within 30 days: submit again with confirmRepeat. */
  | { ok: false; kind: 'repeat'; repeatOf: { id: string; at: string; state: Batch['state'] }; message: string }
  | { ok: false; kind: 'refused'; message: string };

export interface BatchServiceOptions {
  store: Store;
  withdrawals: WithdrawalService;
  policy: PolicySource;
  groups?: GroupResolver | undefined;
  prices?: (() => PriceSnapshot) | undefined;
  allowlistApprovals?: (() => AllowlistApprovals | undefined) | undefined;
  /** Sanctions screening (src/screening): every row judged as a request is; the admins told of a sanctioned one. */
  screening?: WithdrawalScreening | undefined;
  now?: () => number;
  logger: Logger;
}
