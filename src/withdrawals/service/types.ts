import type { PriceSnapshot, Valuation } from '../../prices/types.js';
/** What the withdrawal service is given and what it offers (service/index.ts builds it). */
import type { WithdrawalScreening } from '../../screening/types.js';
import type { Logger } from '../../log.js';
import type { GroupResolver } from '../../policy/people.js';
import type { PolicySource } from '../../policy/source.js';
import type { Reads, Store, Tx } from '../../store/index.js';
import type { InCommit } from '../shell.js';
import type { WalletClient } from '../../wallet/client.js';
import type { FeeEstimate } from '../fees.js';
import type { NoticeThrottleOptions } from '../notice-throttle.js';
import type { ReconcileReport } from '../reconcile.js';
import type { AllowlistApprovals, DailyUsage } from '../rules.js';
import type {
  BalanceSource,
  DecisionOutcome,
  RequestInput,
  RequestOutcome,
  WithdrawalEvent,
  WithdrawalHooks,
  WithdrawalRequest,
  WithdrawalState,
} from '../types.js';

export interface WithdrawalServiceOptions {
  store: Store;
  /** `withdrawalStatus` settles unknown outcomes exactly (the transaction list is the fallback). */
  wallet: Pick<WalletClient, 'withdraw' | 'listTransactions'> & Partial<Pick<WalletClient, 'withdrawalStatus'>>;
  /** The policy in force, read at each use (an approved change applies without rebuilding the service). */
  policy: PolicySource;
  /** When each allowlisted address was approved (governed policy: the cooling-off); absent: all usable at once. */
  allowlistApprovals?: () => AllowlistApprovals | undefined;
  /**
   * Since when the policy in force has been in force (governed policy). A request created after
   * that was checked under it already, so it is not judged again before sending (no group
   * look-ups that Slack being down would make fail closed). Absent: always judged again.
   */
  policyInForceSince?: () => number;
  groups?: GroupResolver;
  logger: Logger;
  now?: () => number;
  /**
   * Called inside the commit of every change, with its transaction: whatever it writes (the
   * Slack notifications, through the outbox) is durable together with the change, or not at all.
   * Synchronous; it must not throw (a throw is logged and its writes may be partial).
   * Parts built after the service (they need it) use `subscribe` instead.
   */
  onChange?: WithdrawalListener;
  hooks?: WithdrawalHooks;
  /**
   * The origin accounts' balances, for the `balance` rule: read at request time (unreadable: the
   * request is allowed and its card says so) and again just before sending (unreadable: sent, as
   * the wallet service itself refuses an overdraft). Absent: no balance rule.
   */
  balances?: BalanceSource;
  /** Holds other work back (the outbox's posts) from a send's start until its wallet call is on its way (src/util/give-way.ts). */
  goFirst?: () => () => void;
  /**
   * The price cache (src/prices), read as a snapshot (never a network call): the value recorded
   * at request time, and recomputed before the send. Absent: values unknown (strictest `value` rules).
   */
  prices?: () => PriceSnapshot;
  /** Sanctions screening (src/screening): the list and the provider, read at every step the rule table runs. */
  screening?: WithdrawalScreening;
  /** Transaction-list pages searched per unknown request during reconciliation (default 10, 100 records each). */
  reconcileMaxPages?: number;
  reconcilePageSize?: number;
  /** Requests the limits count that are not stored as requests: a pending batch payout's rows (src/batches/). */
  counted?: (read: Reads) => readonly WithdrawalRequest[];
  /** How often a notification may prompt a question to the service (notice-throttle.ts defaults: 5 s per request). */
  noticeThrottle?: NoticeThrottleOptions;
}

/** Hears every change inside its commit (see `onChange`). */
export type WithdrawalListener = (event: WithdrawalEvent, tx: Tx) => void;

export interface ListFilter {
  state?: WithdrawalState | readonly WithdrawalState[];
  requester?: string;
  currency?: string;
  /** Newest first, at most this many. */
  limit?: number;
}

export interface WithdrawalEventInput {
  merchantReference: string;
  /** Webhook TransactionStatus as claimed: name or code (PENDING, CONFIRMED, FAILED, ...), or anything at all. */
  status: unknown;
  transactionHash?: string | null;
}

export interface WithdrawalEventResult {
  matched: boolean;
  changed: boolean;
  request?: WithdrawalRequest;
}

export interface WithdrawalService {
  request(input: RequestInput, requesterId: string): Promise<RequestOutcome>;
  /**
   * `facts.stepUp`: 'verified' once the approver's authenticator code was checked (src/stepup/).
   * `facts.inCommit`: written in the approval's own commit (a passkey's challenge spent with it).
   */
  approve(
    id: string,
    userId: string,
    facts?: { stepUp?: 'verified' | 'passkey' | 'not-needed'; inCommit?: InCommit },
  ): Promise<DecisionOutcome>;
  reject(id: string, userId: string, reason: string): Promise<DecisionOutcome>;
  /** Pending requests past their expiry become expired; returns them. */
  expireDue(): Promise<WithdrawalRequest[]>;
  /** Pending requests within remind_before of expiry and not yet reminded: recorded as reminded (once) and returned. */
  remindersDue(): Promise<WithdrawalRequest[]>;
  /** Unknown outcomes and waiting notifications, each asked of the wallet service once (never resent). */
  reconcileUnknown(): Promise<ReconcileReport>;
  /**
   * After a notification for this reference is durable: the wallet service is asked now and its
   * answer settles (or, unreachable, nothing changes and the reconcile job asks again). The
   * request after the answer; undefined for a reference that is not ours.
   */
  checkNotice(merchantReference: string): Promise<WithdrawalRequest | undefined>;
  resolveUnknown(id: string, adminId: string, outcome: 'sent' | 'not_sent', note: string): Promise<DecisionOutcome>;
  /**
   * An admin's decision on a repeat on hold (hold/): `release` ("Send anyway") clears the
   * hold, and an approved request is then sent once (`execution`, as for the last approval);
   * `reject` rejects it. Audited with who and why.
   */
  settleHold(id: string, adminId: string, action: 'release' | 'reject', reason: string): Promise<DecisionOutcome>;
  /** At startup: executing -> unknown (possibly sent, never resent); approved -> sent once (see idle()); then reconciliation and expiry. */
  recover(): Promise<{ markedUnknown: string[]; resumed: string[]; reconcile: ReconcileReport; expired: string[] }>;
  /** A notification: its claim recorded (applyWithdrawalEvent), then the service asked (checkNotice) before it resolves. */
  onWithdrawalEvent(e: WithdrawalEventInput): Promise<WithdrawalEventResult>;
  /**
   * After sends are unfrozen: each approved request not being sent is sent once (the usual
   * claim), or, past its expiry (a long freeze), expires unsent as at a restart.
   */
  sendApproved(): Promise<{ sent: string[]; expired: string[] }>;
  /** A request's value as the rule table judges it now (at the policy price; as recorded without prices). */
  valueForRules(r: WithdrawalRequest): Valuation | undefined;
  /** The rule table judged at the verification callback: why the request may not go now, or undefined. */
  judgedAtCallback(req: WithdrawalRequest): string | undefined;
  /** Sends held by a limit tried again (sent once the window makes room); their ids. */
  retryHeld(): Promise<string[]>;
  /**
   * The claim alone, inside a caller's commit (the webhook receiver's): recorded as the request's
   * `notice` (and a precaution hold on the rest of a never-executed payout), never settling
   * anything. The caller asks the service once it is durable (`checkNotice`). Its notifications go
   * through `onChange` in that commit; the returned event is what changed (the app's receiver
   * ignores it: its notifications were written by `onChange`).
   */
  applyWithdrawalEvent(
    tx: Tx,
    e: WithdrawalEventInput,
  ): WithdrawalEventResult & { event?: WithdrawalEvent; repeats?: WithdrawalEvent[] };
  /** Whether userId may approve (or reject) the request now: the refusal to show, or undefined. */
  checkDecision(id: string, userId: string, kind: 'approve' | 'reject'): Promise<DecisionOutcome | undefined>;
  awaitingDecisionBy(userId: string): Promise<WithdrawalRequest[]>;
  reminderTargets(r: WithdrawalRequest): string[];
  get(id: string): WithdrawalRequest | undefined;
  list(filter?: ListFilter): WithdrawalRequest[];
  pendingCount(): number;
  dailyUsage(currency: string): DailyUsage;
  /** The last fee the service charged for this currency on this network (an estimate for the next one), or undefined. */
  feeEstimate(currency: string, network: string): FeeEstimate | undefined;
  /** After a policy change: pending requests judged again under the policy in force (audited); returns those that changed. */
  recheckPending(): Promise<WithdrawalRequest[]>;
  /**
   * One approved batch row sent (src/batches/runner.ts paces them): the same claim as any request
   * (approved -> executing, durable before the one wallet call). Resolves (never rejects) with the
   * request once its outcome is recorded, or at once with it as stored when it is not approved.
   */
  sendRow(id: string): Promise<WithdrawalRequest | undefined>;
  /** Inside the caller's commit: every row of the batch never claimed is rejected (never sent); the events. */
  stopBatchRows(tx: Tx, batchId: string, adminId: string): WithdrawalEvent[];
  /** Whether this process is sending the request now (claimed, or about to be). */
  sending(id: string): boolean;
  /** Waits for sends started by this process to record their results (for shutdown and tests). */
  idle(): Promise<void>;
  /**
   * Adds a listener of every change, called inside the change's commit after `onChange` and the
   * listeners before it (the first to throw ends the round: logged, its writes may be partial).
   * For parts that need the service to be built (the Slack notifier). Returns the unsubscribe.
   */
  subscribe(fn: WithdrawalListener): () => void;
  /** The last balance read for this currency and network: text, null when unavailable, undefined without a balance source. */
  lastBalance(currency: string, network: string): string | null | undefined;
  /** The value of an amount at the cached price now (unknown without a fresh one); undefined when the app has no prices. */
  valueNow(currency: string, amount: string): Valuation | undefined;
  /** The daily value limit (withdrawals.daily_limit.value) and what is used of it, or undefined when the policy sets none. */
  dailyValue(): DailyValue | undefined;
}

export interface DailyValue {
  limit: string;
  used: { kind: 'known'; usd: string } | { kind: 'unknown'; reason: string };
}
