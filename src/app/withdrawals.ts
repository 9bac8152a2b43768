/**
 * The withdrawals part: the service and the notifier that turns its changes into Slack
 * messages. The notifier needs the service (to read requests), so it is built after it and
 * subscribes to its changes (each heard inside the change's commit), then the metrics and the
 * balance watch subscribe in their turn: the same order as before, with nothing filled in late.
 */
import type { NoticeThrottleOptions } from '../withdrawals/notice-throttle.js';
import type { GiveWay } from '../util/give-way.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/registry.js';
import { withdrawalRecorder } from '../metrics/sources.js';
import type { Outbox } from '../outbox/index.js';
import type { GroupResolver } from '../policy/people.js';
import type { PolicySource } from '../policy/source.js';
import type { AllowlistApprovals } from '../withdrawals/rules.js';
import { withdrawalNotifier, type PermalinkClient } from '../slack/withdrawal-notify.js';
import { reminderDmSender } from '../slack/withdrawal-reminder.js';
import { approverDmSync } from '../slack/withdrawal-approver-dms.js';
import { createApproverReminders, type ApproverReminders } from '../withdrawals/reminders.js';
import { createEscalations, type Escalations } from '../withdrawals/escalation.js';
import { escalationSender } from '../slack/escalation-words.js';
import type { AwayService } from '../away/service.js';
import { buildAway } from './away.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import type { ExplorerNet } from '../wallet/explorers.js';
import { createWithdrawalService, type WithdrawalEvent, type WithdrawalService } from '../withdrawals/index.js';
import type { BalancesPart } from '../deps.js';
import type { PriceSnapshot } from '../prices/types.js';
import type { CleanupStack } from './cleanup.js';
import type { ScreeningPart } from './screening.js';
import { countedBatchRows, createBatchService, type BatchService } from '../batches/index.js';
import { batchNotifier, type FileUploader } from '../slack/batch-notify.js';

export interface WithdrawalsPart {
  service: WithdrawalService;
  /** Batch payouts (src/batches/): their rows are requests of `service`, sent by the batches' paced runner. */
  batches: BatchService;
  /**
   * Resume or reconcile what was left mid-way (sent, outcome not saved: marked unknown and
   * reconciled, never resent), log what was recovered under `message`, then queue the cards
   * that were never queued. At start, and again whenever the store can write after refusing.
   */
  recover(message: string): Promise<void>;
  /** The card's permalink (asked of Slack once per card and kept in the store), undefined until it is posted. */
  cardPermalink(requestId: string): Promise<string | undefined>;
  /** One reminder DM to the approvers still needed past 75% of a request's time (a job runs it). */
  reminders: ApproverReminders;
  /** Requests still short of approvals: the DM at escalate_after, the post at twice it (a job runs it). */
  escalations: Escalations;
  /** The job table's parts this part runs (src/jobs/table.ts). */
  jobParts: {
    approvers: ApproverReminders;
    escalations: Escalations;
    batches: Pick<BatchService, 'expireDue' | 'resume'> & { uploadOwed: () => Promise<void> };
  };
  /** What the app's deps take from this part: the service, and who is away (`/treasury away`). */
  inDeps: { withdrawals: WithdrawalService; away: AwayService; batches: BatchService };
  /** Another listener of every change, inside its commit (the App Home's refresher: it only schedules). */
  subscribe(listener: (event: WithdrawalEvent) => void): void;
}

export function buildWithdrawals(
  o: {
    store: Store;
    outbox: Outbox;
    wallet: WalletClient;
    /** The policy in force, read at use; never copied here. */
    policy: PolicySource;
    /** When each allowlisted address was approved (cooling-off); undefined: all usable at once. */
    allowlistApprovals?: () => AllowlistApprovals | undefined;
    /** Since when the policy in force applies (requests created after it are not judged again before sending). */
    policyInForceSince?: () => number;
    groups: GroupResolver;
    logger: Logger;
    now: () => number;
    explorerNet: ExplorerNet;
    /** For the cards' permalinks in DMs (chat.getPermalink). */
    slack: PermalinkClient;
    /** For a batch payout's result file in its card's thread. */
    files?: FileUploader;
    /** The balances part: facts for the `balance` rule, and a low-balance check after each outcome. */
    balances?: BalancesPart;
    metrics?: Metrics;
    /** The price cache's snapshot: values at request time and before the send. */
    prices?: () => PriceSnapshot;
    /** Sends go before the outbox's posts (src/util/give-way.ts). */
    sendsFirst?: GiveWay;
    noticeThrottle?: NoticeThrottleOptions;
    /** Sanctions screening: facts of every step, and the admins told of a request stopped for it. */
    screening?: Pick<ScreeningPart, 'withdrawals' | 'onWithdrawal'>;
  },
  cleanup: CleanupStack,
): WithdrawalsPart {
  const service = createWithdrawalService({
    store: o.store,
    wallet: o.wallet,
    policy: o.policy,
    ...(o.allowlistApprovals ? { allowlistApprovals: o.allowlistApprovals } : {}),
    ...(o.policyInForceSince ? { policyInForceSince: o.policyInForceSince } : {}),
    groups: o.groups,
    logger: o.logger.child({ component: 'withdrawals' }),
    now: o.now,
    ...(o.balances ? { balances: o.balances.book } : {}),
    ...(o.prices ? { prices: o.prices } : {}),
    ...(o.sendsFirst ? { goFirst: o.sendsFirst.hold } : {}),
    // A pending batch payout's rows count in the limits' windows, as a pending request does.
    counted: countedBatchRows,
    ...(o.noticeThrottle ? { noticeThrottle: o.noticeThrottle } : {}),
    ...(o.screening ? { screening: o.screening.withdrawals } : {}),
  });
  if (o.screening) service.subscribe(o.screening.onWithdrawal);
  cleanup.push(() => service.idle());
  const batches = createBatchService({
    store: o.store,
    withdrawals: service,
    policy: o.policy,
    groups: o.groups,
    prices: o.prices,
    allowlistApprovals: o.allowlistApprovals,
    screening: o.screening?.withdrawals,
    now: o.now,
    logger: o.logger.child({ component: 'batches' }),
  });
  const batchCards = batchNotifier({
    store: o.store,
    outbox: o.outbox,
    batches,
    withdrawals: service,
    policy: o.policy,
    logger: o.logger.child({ component: 'batch-cards' }),
    slack: o.files,
    now: o.now,
  });
  cleanup.push(async () => {
    batches.close();
    batchCards.close();
    await batches.idle();
  });
  const notifier = withdrawalNotifier({
    store: o.store,
    outbox: o.outbox,
    service,
    policy: o.policy,
    logger: o.logger,
    explorerNet: o.explorerNet,
    slack: o.slack,
    groups: o.groups,
    now: o.now,
  });
  service.subscribe(notifier.onChange);
  // The approvers' DMs already sent say where the request stands after every decision.
  service.subscribe(
    approverDmSync(o.outbox, { get: (id) => service.get(id), policy: o.policy, card: notifier.cardPointer }),
  );
  const reminders = createApproverReminders({
    store: o.store,
    policy: o.policy,
    groups: o.groups,
    now: o.now,
    logger: o.logger.child({ component: 'reminders' }),
    enqueue: reminderDmSender(o.outbox, {
      get: (id) => service.get(id),
      policy: o.policy,
      now: o.now,
      card: notifier.cardPointer,
    }),
  });
  const escalations = createEscalations({
    store: o.store,
    policy: o.policy,
    groups: o.groups,
    now: o.now,
    logger: o.logger.child({ component: 'escalation' }),
    enqueue: escalationSender(o.outbox, {
      store: o.store,
      get: (id) => service.get(id),
      policy: o.policy,
      now: o.now,
      card: notifier.cardPointer,
    }),
  });
  if (o.metrics) service.subscribe(withdrawalRecorder(o.metrics));
  // After money moved (or surely did not), the balance may have crossed a threshold: checked off the commit.
  if (o.balances) {
    const { watch } = o.balances;
    service.subscribe((event) => {
      if (event.type === 'completed' || event.type === 'failed' || event.type === 'resolved')
        setImmediate(() => void watch.check().catch(() => undefined));
    });
  }
  return {
    service,
    batches,
    cardPermalink: notifier.cardPermalink,
    reminders,
    escalations,
    jobParts: {
      approvers: reminders,
      escalations,
      batches: {
        expireDue: () => batches.expireDue(),
        resume: () => batches.resume(),
        uploadOwed: () => batchCards.uploadOwed(),
      },
    },
    // The away part lives beside the withdrawals it changes the asking of (src/away).
    inDeps: { withdrawals: service, away: buildAway({ store: o.store, outbox: o.outbox, now: o.now }), batches },
    subscribe: (listener) => void service.subscribe((event) => listener(event)),
    async recover(message) {
      const r = await service.recover();
      // After the rows found executing are unknown (never resent): every batch still sending carries on.
      batches.resume();
      if (r.markedUnknown.length || r.resumed.length) o.logger.warn({ ...r, reconcile: undefined }, message);
      await notifier.heal();
    },
  };
}
