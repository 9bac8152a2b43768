/**
 * The withdrawal request as stored, and the answers of the service. Everything is JSON
 * (the store keeps deep-frozen JSON copies): amounts are exact decimal strings, times ISO 8601.
 */

import type { Valuation } from '../prices/types.js';
import type { SanctionsStop, ScreeningInfo } from '../screening/types.js';
import type { Approval } from './approval-record.js';
export type { Approval, Delegated } from './approval-record.js';

/**
 * pending -> approved (same commit as the last approval) -> executing (durable before the
 * wallet call) -> completed | failed | unknown
 * pending -> rejected | expired; approved -> expired (found at startup past its expiry, never sent)
 * unknown -> completed | failed (reconciliation, the service asked after a webhook, or an admin)
 *
 * `approved` and `executing` are separate so that a restart can tell "never sent" (approved:
 * send it, once, with the same reference) from "maybe sent" (executing: unknown, reconcile).
 */
export type WithdrawalState =
  | 'pending'
  | 'approved'
  | 'executing'
  | 'completed'
  | 'failed'
  | 'unknown'
  | 'rejected'
  | 'expired';

/** The actor of everything the app does on its own (sending, expiry, reconciliation, notifications). */
export const SYSTEM = 'system';

export const FINAL_STATES: readonly WithdrawalState[] = ['completed', 'failed', 'rejected', 'expired'];
/** States whose amount does not count towards the daily limit: no money moved and none will. */
export const NOT_COUNTED_STATES: readonly WithdrawalState[] = ['rejected', 'expired', 'failed'];

/** One rolling limit of `withdrawals.limits` as it applies to a request (USD text, two decimals). */
export interface LimitUse {
  per: 'destination' | 'requester' | 'client' | 'all';
  window: '24h' | '7d' | '30d';
  action: 'escalate' | 'refuse';
  limit: string;
  /** The other requests in the window. */
  before: string;
  /** With this request. */
  used: string;
  over: boolean;
}

export interface AllowlistInfo {
  /** listed: on the allowlist; unlisted: not on it (mode warn); off: the allowlist is not used. */
  status: 'listed' | 'unlisted' | 'off';
  label?: string;
  /** Allowlisted but still cooling off (governed policy): usable from this time, so treated as not (yet) listed. */
  usableFrom?: string;
  /** No earlier completed withdrawal to this address on this network. */
  neverPaidBefore: boolean;
}

export interface WithdrawalResultRecord {
  /** wallet: the service's answer; reconcile: settled by reconciliation (`via` says how); webhook; admin. */
  source: 'wallet' | 'reconcile' | 'webhook' | 'admin';
  /** For `reconcile`: the service's status for the reference, or a transaction-list record (absent: the list). */
  via?: 'status' | 'list';
  serviceReference: string | null;
  /** Exact decimal text, when known: what left for the payee (the service's withdrawnAmount). */
  amount: string | null;
  /** What the service says was requested (withdrawnAmountRequested), when it says so. */
  amountRequested?: string | null;
  fee: string | null;
  feeCurrency: string | null;
  transactionHash: string | null;
  /** Where the service's answer differs from what was approved (reference, destination, amount): an admin must look. */
  mismatches?: string[];
}

export interface WithdrawalError {
  /**
   * rejected: the service refused it; not_sent: nothing left here; reported_failed: the service lists it as failed;
   * admin_not_sent; never_executed: the service has no record of its reference, past the grace period (settle-by-status.ts).
   */
  kind: 'rejected' | 'not_sent' | 'reported_failed' | 'admin_not_sent' | 'never_executed';
  message: string;
}

/**
 * What the wallet service ITSELF says of the transfer (its status for our reference, or its
 * transaction list), in the webhook vocabulary (PENDING, CONFIRMED, FAILED). Never written from
 * a webhook's word: webhooks carry no signature (invariant 14); see `Notice`.
 */
export interface Confirmation {
  /** PENDING, CONFIRMED or FAILED, from the service's own answer. */
  status: string;
  transactionHash: string | null;
  updatedAt: string;
}

/**
 * What the last withdrawal notification (webhook) for our reference CLAIMED. Anyone who learns
 * the webhook URL can post one, so it is only a prompt to ask the wallet service (notice.ts):
 * it never settles, marks or "reports" a request by itself.
 */
/** One claimed status and how many notifications made it since the service last answered. */
export interface ClaimCount {
  status: string;
  count: number;
}

export interface Notice {
  /** The status as claimed: a TransactionStatus name when known, else its text as sent (outside text: escape it). */
  status: string;
  transactionHash: string | null;
  at: string;
  /** Not yet answered by the wallet service (it could not be reached, or says Pending): the card says it waits. */
  waiting: boolean;
  /**
   * Every distinct claim made since the service last answered, this one included, with how often it
   * came: all are judged against its answer, so none is dropped unjudged. Bounded: the recognised
   * statuses (a handful) always have their entry; unrecognised texts only up to a few.
   */
  claims?: ClaimCount[];
  /** Claims with unrecognised text that no longer fitted in `claims`: judged as a disagreement of their own. */
  overflow?: number;
  /** Requests stored before `claims`: earlier claims still waiting (read, never written). */
  earlier?: string[];
  /** The service's answer contradicted a notification (the first time; the admins were told then, once). */
  disagreed?: { at: string; status: string; service: string };
}

/**
 * What a request sent back to waiting by the policy in force still needs (recheck.ts), kept as
 * data so each reader words it its own way (missingWords: plain ids, or Slack mentions).
 */
export interface MissingApprovals {
  /** Approvals still to give beyond those that count. */
  left: number;
  /** The tier's must_include entries (user or user group ids) no counted approval satisfies. */
  mustInclude: readonly string[];
  /**
   * Why approvals given before count no more: the destination left the allowlist, the policy now
   * asks for an authenticator code, the value rose into a higher tier or is unknown now.
   */
  because?: 'allowlist' | 'code' | 'passkey' | 'value-rose' | 'value-unknown';
  /** value-unknown: why there is no value. */
  valueReason?: string;
}

export interface HistoryItem {
  at: string;
  state: WithdrawalState;
  by: string;
  note?: string;
  /** Back to waiting under the policy in force: what it needs (absent on records made before it was kept). */
  missing?: MissingApprovals;
}

export interface WithdrawalRequest {
  id: string;
  /** Fixed at creation, sent with the one and only withdrawal POST. */
  merchantReference: string;
  requester: string;
  /** Exact decimal text, as approved and as sent. */
  amount: string;
  /** Canonical currency name (e.g. USDT). */
  currency: string;
  /** Canonical network name (e.g. BSC). */
  network: string;
  destination: string;
  clientEmail: string;
  note: string;
  state: WithdrawalState;
  idempotencyKey?: string;
  /** command: the requester was answered where they typed it (no confirmation DM); form (or absent): by DM. */
  requestedFrom?: 'command' | 'form';
  /** `basis: 'value'`: chosen by the USD value (`max` is then in USD), from the policy's `value` tiers. */
  /** `above`: the tier below's max, the limit this tier starts above (absent for the first tier, and on requests stored before). */
  tier: {
    index: number;
    max: string | null;
    above?: string;
    approvals: number;
    mustInclude: string[];
    basis?: 'value';
    /** Raised to the top tier by a rolling limit with `action: escalate` (pattern-rules.ts). */
    escalated?: true;
    /** Approvals beyond the tier's, included in `approvals`: a new destination, a look-alike. */
    extra?: number;
    /** The part of `extra` a first payment to a new destination asked (never lowered after the request). */
    newDestinationExtra?: number;
  };
  /** The rolling limits that apply, as the last step judged them (used / limit, shown on the card). */
  limits?: LimitUse[];
  approvals: Approval[];
  /** The value when it was requested: the price, its source and time, or why it was unknown (src/prices). */
  valuation?: Valuation;
  /** The value recomputed with a fresh price just before the send was claimed (re-checked against the policy). */
  sendValuation?: Valuation;
  rejection?: { user: string; at: string; reason: string };
  createdAt: string;
  expiresAt: string;
  reminderSentAt?: string;
  allowlist: AllowlistInfo;
  /** Screening at the last step judged (list, provider, look-alike); `sanctioned`: stopped later for a listed destination. */
  screening?: ScreeningInfo;
  sanctioned?: SanctionsStop;
  /**
   * The app had no record of the client when it was requested (no address generated through it,
   * no confirmed deposit, no completed withdrawal: src/clients/known.ts). The service has no call
   * to check a client, and refuses at the send one it has no wallet for: flagged for the approvers.
   */
  newClient?: true;
  /** When the state became executing (the send was about to happen, or happened). */
  sendStartedAt?: string;
  result?: WithdrawalResultRecord;
  error?: WithdrawalError;
  /** Why the outcome is unknown (timeout, connection lost, restart...). */
  unknownReason?: string;
  resolution?: { by: string; at: string; outcome: 'sent' | 'not_sent'; note: string };
  confirmation?: Confirmation;
  /** The last withdrawal notification's claim, until (and after) the wallet service answered it. */
  notice?: Notice;
  /**
   * The wallet service's status for our reference named another destination or amount
   * (service-mismatch.ts): nothing was settled on it. `at`: when the admins were told (once).
   */
  serviceMismatch?: { at: string; service: string; mismatches: string[]; lastAt: string };
  /** The origin account's balance read when it was requested (`null`: it could not be read, and the request was allowed). */
  balanceAtRequest?: { balance: string | null; at: string };
  /** Made with "New request with the same details" on this earlier request, which the service never executed (hold/). */
  repeatOf?: string;
  /** Typed by hand with the details of the request it repeats (not from its card): linked to it by those details. */
  repeatLinked?: 'same-details';
  /**
   * Not sent while present: the earlier request it repeats was reported after all, so paying
   * this one too may pay twice. Approvals may still be given; the send claim refuses it until an
   * admin releases it (`holdReleased`) or rejects it. Set in the commit of that report.
   */
  hold?: RepeatHold;
  /** An admin released the hold: who, when and why (it is then sent once its approvals are complete). */
  holdReleased?: { by: string; at: string; reason: string; original: string; kind?: RepeatHold['kind'] };
  /**
   * Already sent (or being sent) when the earlier request it repeats was reported after "never executed": both may
   * have been paid. Recorded once, in the commit of that report; the admins were told.
   */
  doublePaymentRisk?: { original: string; at: string; status: string };
  /** A batch payout's row (src/batches/): written approved at the batch's last approval, sent by its paced runner. */
  batch?: {
    id: string;
    row: number;
    /**
     * The whole batch's amounts per currency: a stale sanctions list is judged at the send and the
     * verification on the larger of the row and its batch (100 rows of $600 are a $60,000 payout).
     * Absent on rows stored before it: the row alone.
     */
    total?: Record<string, string>;
    /** The batch's rows to this row's destination (sameDestination), per currency: what 'new destination' weighs. */
    toDestination?: Record<string, string>;
  };
  history: HistoryItem[];
}

/** Why a repeat is on hold: the request it repeats (`original`) was reported `status` by the wallet service. */
export interface RepeatHold {
  /**
   * original_reported_sent: `original` (of the same payout) was reported `status` after "never
   * executed". retyped: made by hand with the details of a payout whose request `original` was
   * reported (`status`) or is under way (`earlierState`), held from its creation (hold/).
   * notified: a notification (unverified, maybe forged) claims `original` (`status`, outside
   * text); held as a precaution until the wallet service answers or an admin releases it.
   * limit: at the send, a limit of the policy in force would be crossed now (`status`: the words,
   * "today's withdrawals would reach $263,000.00 of $250,000.00"; `original`: the request itself);
   * never sent until an admin releases it or the window makes room (rule-table.ts).
   */
  kind: 'original_reported_sent' | 'retyped' | 'notified' | 'limit';
  /** `limit`: the rules that hold it (rule-table.ts names); `stale_list` alone lifts when the list is read again. */
  rules?: string[];
  original: string;
  status: string;
  at: string;
  earlierState?: WithdrawalState;
}

export type { BalanceSource } from './balance-source.js';

export interface RequestInput {
  /**
   * The same key from the same requester gives back the request it created, instead of a
   * second one: a form submitted twice (Slack timed out the first answer) asks for one payout.
   */
  idempotencyKey?: string;
  amount: string;
  /** Name (any case), alias or code. */
  currency: string;
  network: string;
  destination: string;
  clientEmail: string;
  note?: string;
  /** Where it was asked for: a one-line command is answered in place, a form by DM. */
  requestedFrom?: 'command' | 'form';
  /** The request this one repeats ("New request with the same details"): it must still be one the service never executed. */
  repeatOf?: string;
}

export type RequestRule =
  | 'not_requester'
  | 'currency'
  | 'network'
  | 'amount'
  | 'decimals'
  | 'client_email'
  | 'destination'
  | 'allowlist'
  | 'daily_limit'
  /** A rolling limit of `withdrawals.limits` with `action: refuse` would be crossed. */
  | 'rolling_limit'
  | 'tier'
  | 'note'
  | 'balance'
  | 'sanctions' // screening: a listed destination; a stale list above stale_block_above
  | 'stale_list'
  /** A repeat of a request that is no longer "never executed" (the service reported it after all). */
  | 'repeat';

export type DecisionReason =
  | 'not_found'
  | 'not_pending'
  | 'expired'
  | 'own_request'
  | 'not_approver'
  | 'already_approved'
  | 'must_include_required'
  | 'reason_required'
  | 'not_admin'
  | 'not_unknown'
  | 'note_required'
  /** The request is above the policy's step_up_above and no valid authenticator code came with the approval. */
  | 'step_up_required'
  /** Release or reject of a hold on a request that is not on hold (any more). */
  | 'not_held';

export type RequestOutcome =
  | { ok: true; request: WithdrawalRequest }
  /** `problems`: every problem of the input when it had several (one per field); `rule` and `message` are the first. */
  | { ok: false; rule: RequestRule; message: string; problems?: readonly { rule: RequestRule; message: string }[] };

export type DecisionOutcome =
  | {
      ok: true;
      request: WithdrawalRequest;
      /** Present when this decision completed the approvals: resolves with the request once the send's result is recorded. Never rejects. */
      execution?: Promise<WithdrawalRequest>;
    }
  | { ok: false; reason: DecisionReason; message: string };

/** Named after the state they announce, except `approval-recorded` (an approval that did not complete the quorum). */
export type WithdrawalEventType =
  | 'requested'
  | 'approval-recorded'
  /** The last approval: the state is now `approved`. */
  | 'approved'
  | 'rejected'
  | 'expired'
  | 'reminder'
  | 'executing'
  | 'completed'
  | 'failed'
  | 'unknown'
  | 'resolved'
  /** The wallet service's own status for the transfer was recorded (asked after a notification). */
  | 'confirmation'
  /** A notification's claim was recorded; the wallet service is being asked (it settles nothing). */
  | 'notice'
  /** The wallet service's answer contradicts a notification: it may be forged (admins told once). */
  | 'notice-disagreed'
  /** The wallet service's status for our reference names another destination or amount: nothing settled (admins told once). */
  | 'service-mismatch'
  /** Back to waiting: the policy in force now asks for more than it was approved with (re-check before sending, or a policy change). */
  | 'reopened'
  /** The wallet service's final answer contradicts our state (completed but it says Failed, refused but it says Completed). */
  | 'contradiction'
  /** A repeat put on hold: the request it repeats was reported after all (hold/). */
  | 'held'
  /** An admin released a repeat's hold ("Send anyway"). */
  | 'released'
  /** A repeat already sent when the request it repeats was reported after "never executed": both may have been paid. */
  | 'double-payment-risk';

export interface WithdrawalEvent {
  type: WithdrawalEventType;
  request: WithdrawalRequest;
}

/** Test-only seams to crash the process at precise points. Awaited when present. */
export interface WithdrawalHooks {
  afterApprovalDurable?: (request: WithdrawalRequest) => void | Promise<void>;
  afterExecutingDurable?: (request: WithdrawalRequest) => void | Promise<void>;
  afterWalletAnswered?: (request: WithdrawalRequest, outcome: 'success' | 'error') => void | Promise<void>;
}
