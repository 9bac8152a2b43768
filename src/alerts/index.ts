/**
 * The webhook alerts domain, wired: the receiver, background verification against the
 * transaction list and reconciliation (their schedules are in src/jobs/table.ts). What the alerts look like in
 * Slack lives on the Slack side (`src/slack/alert-messages.ts`, `registerAlertRenderers`).
 */
import type { Outbox } from '../outbox/index.js';
import type { Tx } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import type { WebhookEvent } from './parse.js';
import { reconcileDeposits, type ReconcileOptions, type ReconcileReport } from './reconcile.js';
import { type WebhookHandler, type WebhookHandlerDeps, webhookRoute } from './receiver.js';
import type { WebhookIngest } from './webhook-ingest.js';
import { describeUnknown, unknownSummary, type UnknownSummary } from './unknown.js';
import { createSweeper, type SweepOptions } from './sweep.js';
import { alertsToVerify, createVerifier, verifyAlert, type VerifyDeps } from './verify.js';
import { KIND_RULES } from '../alert-kinds.js';
import { ensureWatermark, type Watermark } from './watermark.js';
import { ALERT_COLLECTIONS, type Alert } from './types.js';

export {
  createWebhookHandler,
  webhookRoute,
  DEFAULT_MAX_BODY_BYTES,
  type WebhookHandler,
  type WebhookHandlerDeps,
} from './receiver.js';
export {
  ingestEvent,
  ALERT_RENDERER,
  ALERT_STATUS_RENDERER,
  ALERT_BATCH_RENDERER,
  ALERT_MENTION_RENDERER,
  alertMessageKey,
  statusChangeRef,
  readStatusChangeRef,
  type IngestResult,
} from './ingest.js';
export { checkWebhookBody, drainPriority, type BodyCheck } from './webhook-body.js';
export type { CheckedWebhook, WebhookIngest } from './webhook-ingest.js';
export { readWebhook, eventKey, transactionKey, type WebhookEvent, type AlertKind } from './parse.js';
export { routeAlert, shouldMention } from './routing.js';
export { reconcileDeposits, type ReconcileReport } from './reconcile.js';
export { verifyAlert } from './verify.js';
export { isClaim, mentionKey } from './posting.js';
export { standing, type OurWithdrawalView } from './claims.js';
export {
  TRUST_COLLECTIONS,
  TRUST_NOTICE_RENDERER,
  FLOOD_RENDERER,
  type TrustNotice,
  type TrustNoticeKind,
  type Flood,
} from './notices.js';
export type { SweepOptions } from './sweep.js';
export {
  UNKNOWN_RENDERER,
  UNKNOWN_COLLECTIONS,
  unknownSummary,
  describeUnknown,
  type UnknownWindow,
  type UnknownSummary,
} from './unknown.js';
export { HISTORY_RENDERER, HISTORY_MESSAGE_KEY, readWatermark, type Watermark } from './watermark.js';
export { signBody, verifySignature, secretMatches } from './signature.js';
export { ALERT_COLLECTIONS, type Alert, type AlertHistoryEntry, type StoredEvent } from './types.js';

export interface WithdrawalEventInfo {
  alertId: string;
  merchantReference: string;
  status?: string;
  event: WebhookEvent;
}

/** The receiver's parts, plus what verification and reconciliation need. */
export interface AlertsDeps
  extends Pick<
    WebhookHandlerDeps,
    'store' | 'policy' | 'logger' | 'secret' | 'signatureRequired' | 'maxBodyBytes' | 'now' | 'prices' | 'screening'
  > {
  outbox: Outbox;
  wallet: Pick<WalletClient, 'listTransactions'>;
  /** Inside the event's commit (durable with it): link a withdrawal event to its request. Synchronous. */
  linkWithdrawal?: (tx: Tx, e: WithdrawalEventInfo) => void;
  /**
   * After the event is durable and acknowledged: the withdrawal service's notification hook (it
   * asks the service about our request). The alert is checked once it has finished.
   */
  onWithdrawalEvent?: (e: WithdrawalEventInfo) => void | Promise<void>;
  /** The app's own withdrawal request under a reference: the alert of one follows its settled outcome. */
  ourWithdrawal?: VerifyDeps['ourWithdrawal'];
  /** Background verification retry delays for alerts checked by hash (tests shorten them). */
  verifyRetryDelaysMs?: readonly number[];
  /** The deposits' batched sweep of the transaction list (tests shorten its pace). */
  sweep?: SweepOptions;
  /** Bench only: deposits checked hash by hash, as before the sweep (its baseline). */
  verifyDepositsByHash?: boolean;
  reconcile?: ReconcileOptions;
}

export interface Alerts {
  handler: WebhookHandler;
  /** The route's ingestion without HTTP, for bodies already checked: the leader's inbox drain (src/replica/inbox.ts). */
  ingest: WebhookIngest;
  reconcile(o?: ReconcileOptions): Promise<ReconcileReport>;
  /** Checks every recent unconfirmed alert against the transaction list once (deposits: one sweep). */
  verifyPending(): Promise<void>;
  /** Transaction-list calls the deposits' sweep has made (bench). */
  sweepCalls(): number;
  /** Notifications of unknown shape: how many, and the latest (for /treasury status). */
  unknownSummary(): UnknownSummary & { text: string };
  /** The watermark, recorded on the first run against this data directory. */
  watermark(): Promise<Watermark>;
  /** Resolves once background verifications in progress have finished (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createAlerts(deps: AlertsDeps): Alerts {
  const log = deps.logger.child({ module: 'alerts' });
  const now = deps.now ?? Date.now;
  const verifyDeps: VerifyDeps = {
    store: deps.store,
    outbox: deps.outbox,
    wallet: deps.wallet,
    policy: deps.policy,
    logger: deps.logger,
    now,
    ...(deps.ourWithdrawal ? { ourWithdrawal: deps.ourWithdrawal } : {}),
    ...(deps.screening ? { screening: deps.screening } : {}),
  };
  const verifier = createVerifier(verifyDeps, deps.verifyRetryDelaysMs);
  const sweeper = createSweeper(verifyDeps, deps.sweep);
  /** Deposits at volume: many hashes per list call (sweep.ts); the other kinds by their hash (verify.ts). */
  const check = (a: Alert) => {
    const by = KIND_RULES[a.kind].checkedBy;
    if (!a.hash || a.verification.state === 'confirmed' || by === 'none') return;
    if (by === 'sweep' && !deps.verifyDepositsByHash) sweeper.request(a.id);
    else verifier.request(a.id);
  };
  /** Withdrawal hooks in progress (idle() waits for them and the checks they lead to). */
  const hooks = new Set<Promise<unknown>>();
  // Recorded as the alerts start, before any reconciliation: what happened earlier is history.
  let wm: Promise<Watermark> | undefined;
  const watermark = () => {
    wm ??= ensureWatermark(deps.store, now()).catch((err: unknown) => {
      wm = undefined;
      throw err;
    });
    return wm;
  };
  watermark().catch((err: unknown) =>
    log.error({ err }, 'could not record the alerts watermark; the next reconciliation tries again'),
  );

  const { handler, ingest } = webhookRoute({
    store: deps.store,
    outbox: deps.outbox,
    policy: deps.policy,
    ...(deps.prices ? { prices: deps.prices } : {}),
    ...(deps.screening ? { screening: deps.screening } : {}),
    logger: deps.logger,
    secret: deps.secret,
    ...(deps.signatureRequired !== undefined ? { signatureRequired: deps.signatureRequired } : {}),
    ...(deps.maxBodyBytes !== undefined ? { maxBodyBytes: deps.maxBodyBytes } : {}),
    now,
    ...(deps.linkWithdrawal
      ? {
          linkWithdrawal: (tx, e) =>
            deps.linkWithdrawal!(tx, { ...e, ...(e.event.statusName ? { status: e.event.statusName } : {}) }),
        }
      : {}),
    onAccepted: (r, event) => {
      if (!(KIND_RULES[event.kind].ours && event.merchantReference && deps.onWithdrawalEvent)) return check(r.alert);
      const info: WithdrawalEventInfo = {
        alertId: r.alertId,
        merchantReference: event.merchantReference,
        event,
        ...(event.statusName ? { status: event.statusName } : {}),
      };
      // Checked after the hook: if the request is ours, the service has been asked about it by then,
      // and the alert shows the request's outcome from its first check.
      const p = Promise.resolve()
        .then(() => deps.onWithdrawalEvent!(info))
        .catch((err: unknown) => log.error({ err, alertId: r.alertId }, 'onWithdrawalEvent hook failed'))
        .then(() => {
          const a = deps.store.get(ALERT_COLLECTIONS.alerts, r.alertId);
          if (a) check(a);
        })
        .finally(() => hooks.delete(p));
      hooks.add(p);
    },
  });

  return {
    handler,
    ingest,
    reconcile: (o) =>
      reconcileDeposits(
        { ...verifyDeps, ...(deps.prices ? { prices: deps.prices } : {}), watermark },
        { ...deps.reconcile, ...o },
      ),
    unknownSummary() {
      const s = unknownSummary(deps.store, now());
      return { ...s, text: describeUnknown(s) };
    },
    watermark,
    async verifyPending() {
      await sweeper.sweep();
      for (const id of alertsToVerify(deps.store, now(), deps.policy.current().alerts.verify_grace)) {
        // Deposits: the sweep above.
        if (KIND_RULES[deps.store.get(ALERT_COLLECTIONS.alerts, id)?.kind ?? 'unknown'].checkedBy !== 'hash') continue;
        try {
          await verifyAlert(verifyDeps, id);
        } catch (err) {
          log.warn({ err, alertId: id }, 'verification failed; the next run retries');
        }
      }
    },
    sweepCalls: () => sweeper.calls(),
    async idle() {
      // The receiver hands an accepted event on after its answer (setImmediate): let that run first.
      await new Promise((r) => setImmediate(r));
      while (hooks.size) await Promise.allSettled([...hooks]);
      await Promise.all([verifier.idle(), sweeper.idle()]);
    },
    async stop() {
      await Promise.all([verifier.stop(), sweeper.stop()]);
    },
  };
}
