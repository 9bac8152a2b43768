/**
 * The outbox part: the Web API client every message goes out through (counted, paced, under
 * the lease), the work order that puts acks and wallet calls before posts, and the outbox
 * itself with the burst summary's renderer. Stopped on the cleanup stack.
 */
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/registry.js';
import { alertDelayRecorder } from '../metrics/sources.js';
import { createOutbox, type Outbox } from '../outbox/index.js';
import { registerBurstSummaryRenderer } from '../slack/burst-summary.js';
import type { Store } from '../store/index.js';
import type { CleanupStack } from './cleanup.js';
import { outboxSlackClient, type SlackTarget } from './slack.js';
import type { StartOptions } from './types.js';
import { type WorkOrder, workOrder } from './work-order.js';

export function buildOutbox(
  o: {
    target: SlackTarget;
    localMode: boolean;
    store: Store;
    logger: Logger;
    now: () => number;
    metrics: Metrics;
    lease: (() => void) | undefined;
    tuning: StartOptions['outbox'];
  },
  cleanup: CleanupStack,
): { outbox: Outbox; slackClient: ReturnType<typeof outboxSlackClient>; order: WorkOrder } {
  const slackClient = outboxSlackClient({
    slackConfig: o.target.slackConfig,
    localMode: o.localMode,
    logger: o.logger,
    now: o.now,
    metrics: o.metrics,
    lease: o.lease,
  });
  // Acks, then a withdrawal's wallet call, go before the Slack posts (work-order.ts).
  const order = workOrder();
  const outbox = createOutbox({
    store: o.store,
    client: slackClient.client,
    giveWay: order.outboxWaits,
    logger: o.logger.child({ component: 'outbox' }),
    now: o.now,
    onSent: alertDelayRecorder(o.metrics, o.store, o.now),
    ...o.tuning,
  });
  cleanup.push(() => outbox.stop());
  registerBurstSummaryRenderer(outbox);
  return { outbox, slackClient, order };
}
