/**
 * The decider's vocabulary: the commands it takes, the context the shell fills in, and the
 * decisions it returns. A leaf: the sub-deciders (./approval.ts, ./send.ts, …), the notice and
 * hold deciders import these types from here, and ./index.ts imports them, so no decider imports
 * the dispatcher back.
 */
import type { AuditAction } from '../../audit/actions.js';
import type { AwayRecord } from '../../away/state.js';
import type { Policy } from '../../policy/schema.js';
import type { PriceSnapshot, Valuation } from '../../prices/types.js';
import type { ScreeningFacts } from '../../screening/types.js';
import type { WithdrawalStatus } from '../../wallet/client/withdrawal-status.js';
import type { PaidSummary } from '../paid-summary.js';
import type { RecheckFacts } from '../recheck.js';
import type { AllowlistApprovals, CheckedInput, Refused } from '../rules.js';
import type { DecisionReason, WithdrawalEventType, WithdrawalRequest } from '../types.js';
import type { ListedTransaction, SendOutcome } from '../wallet-answer.js';

/** What the wallet service itself says of one reference, from its status operation or its transaction list. */
export interface ServiceWord {
  via: 'status' | 'list';
  status: 'completed' | 'failed' | 'pending' | 'not_found';
  transactionHash: string | null;
  /**
   * Where the answer does not match the request (another destination or amount): it settles and
   * shows nothing; the admins are told once (service-mismatch.ts).
   */
  mismatches?: readonly string[];
}

export interface SettleHoldCommand {
  type: 'settle-hold';
  admin: string;
  isAdmin: boolean;
  /** release: "Send anyway" (sent once its approvals are complete); reject: never sent. */
  action: 'release' | 'reject';
  reason: string;
}

export type WithdrawalCommand =
  /** A new request that passed `admitRequest`; ids are drawn by the shell. */
  | {
      type: 'request';
      requester: string;
      checked: CheckedInput;
      idempotencyKey?: string;
      requestedFrom?: 'command' | 'form';
      id: string;
      merchantReference: string;
      existing: readonly WithdrawalRequest[];
      /**
       * The origin account's balance read by the shell just before: text, `null` when it could not
       * be read (allowed, and the card says so), absent when the app has no balance source.
       */
      balance?: string | null;
      /** "New request with the same details": the id it repeats, and that request as stored now (hold/). */
      repeatOf?: { id: string; original: WithdrawalRequest | undefined };
      /** The app has no record of the client (read by the shell in the commit: src/clients/known.ts). */
      newClient?: boolean;
      /** The price cache as read just before (values of earlier requests for the daily value limit). */
      prices?: PriceSnapshot;
    }
  /** `satisfies`: the tier's must_include entries this user matches (group membership resolved by the shell). */
  /**
   * `stepUp`: whether this approver typed a valid authenticator code for it (`verified`) or confirmed
   * it with a passkey bound to it (`passkey`), checked by the shell; a request above step_up_above is
   * refused without one of them, above passkey_above without `passkey`.
   */
  | {
      type: 'approve';
      user: string;
      isApprover: boolean;
      satisfies: readonly string[];
      stepUp?: 'verified' | 'passkey' | 'not-needed';
      /** The approvers away who named this user their delegate (src/away): the approval is given in their place too. */
      for?: readonly string[];
      /** Everyone away who named this user (approvers or not): a request any of them made is refused. */
      standsFor?: readonly string[];
      /** Whose approval is one vote with this user's (src/away `oneVoteWith`): any of theirs already counts for them. */
      oneVote?: readonly string[];
      /** Per person in `for`: the must_include entries their role matches (groups resolved by the shell). */
      satisfiesFor?: Readonly<Record<string, readonly string[]>>;
    }
  | { type: 'reject'; user: string; isApprover: boolean; reason: string }
  /**
   * approved -> executing, durable before the wallet call: whoever wins this compare-and-set sends.
   * `frozen`: the freeze in force (resolved by the shell inside the same commit); while frozen nothing is claimed.
   * With `recheck` (facts from the shell), then judged again under the policy in force (recheck.ts).
   * `balance`: read just before; a balance below the amount refuses the send (failed, nothing sent).
   * Unreadable (undefined): sent anyway, since the wallet service itself refuses an overdraft.
   */
  | {
      type: 'claim-for-sending';
      frozen?: { by: string; reason: string };
      recheck?: RecheckFacts;
      balance?: string;
      /** The value recomputed with a fresh price (absent: the app has no prices): the request is re-checked with it. */
      valuation?: Valuation;
    }
  /** A pending request judged again under the policy in force (after a policy change). */
  | { type: 'recheck'; facts: RecheckFacts; valuation?: Valuation }
  /** `requestId`: the claimed request, named in the audit even if it was settled meanwhile. */
  | { type: 'record-send-outcome'; requestId: string; outcome: SendOutcome }
  | { type: 'expire' }
  /** At startup: approved but never claimed, and past its expiry (the app was down). */
  | { type: 'expire-unsent' }
  | { type: 'remind' }
  /** At startup: executing and not in flight in this process, so possibly sent. */
  | { type: 'mark-unknown-at-startup' }
  | { type: 'reconcile'; found: ListedTransaction }
  /** The service's status for the reference (settle-by-status.ts); NotFound only after the policy's grace. */
  | { type: 'settle-by-status'; status: WithdrawalStatus }
  | { type: 'resolve-unknown'; admin: string; isAdmin: boolean; outcome: 'sent' | 'not_sent'; note: string }
  /** A withdrawal notification's claim: recorded, then the service is asked (notice.ts); it settles nothing. */
  | { type: 'notice'; status: unknown; transactionHash?: unknown }
  /** The service's own answer, asked after a notification: the transfer status shown (notice.ts). */
  | { type: 'service-word'; word: ServiceWord }
  /** The waiting notification judged against the service's answer (notice.ts). */
  | { type: 'notice-verdict'; word: ServiceWord }
  /**
   * A repeat of `original`, "never executed" until now: `service` (the service answered that it has
   * it) holds or marks it; `notice` (only a notification claims it) holds it as a precaution (hold/).
   */
  | { type: 'hold-repeat'; original: WithdrawalRequest; basis: 'notice' | 'service' }
  /** An admin releases ("Send anyway") or rejects a held repeat. */
  | SettleHoldCommand
  /**
   * An admin stopped the rest of a batch payout (src/batches/): a row still `approved` (never
   * claimed) becomes rejected and is never sent; a row already claimed is left to its send.
   */
  | { type: 'stop-batch-row'; admin: string };

export interface DecideContext {
  now: number;
  policy: Policy;
  /** When each allowlisted address was approved (governed policy: the cooling-off); absent: usable at once. */
  allowlistApprovals?: AllowlistApprovals | undefined;
  /**
   * The facts the rule table reads at this moment (rule-table.ts), filled in by the shell inside
   * the commit: the price cache (the value at the policy price now; absent: the app has no
   * prices) and every stored request (the limits' windows).
   */
  prices?: PriceSnapshot | undefined;
  requests?: (() => readonly WithdrawalRequest[]) | undefined;
  /** What the completed payments no longer in memory tell (paid-summary.ts); absent: nothing known paid (the strict reading). */
  paid?: PaidSummary | undefined;
  /** The sanctions list and the provider's cached answers now (src/screening); absent: nothing is screened. */
  screening?: ScreeningFacts | undefined;
  /** The away records as stored in this commit (src/away): who stands in for whom at this step. */
  away?: (() => readonly AwayRecord[]) | undefined;
}

export interface AuditRecord {
  at: string;
  actor: string;
  action: AuditAction;
  subject: string;
  details: Record<string, unknown>;
}

export type Decision<Reason extends string = DecisionReason> =
  | Refused<Reason>
  /** Nothing to write (a lost compare-and-set, a duplicate webhook, a repeated request). */
  | { kind: 'unchanged'; request: WithdrawalRequest | undefined }
  /** Only an audit entry (the wallet answered for a request that something else settled meanwhile). */
  | { kind: 'noted'; audit: AuditRecord }
  | { kind: 'changed'; next: WithdrawalRequest; audit: AuditRecord; event: WithdrawalEventType };
