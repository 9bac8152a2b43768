/**
 * The scheduler part: job runs persisted in the store, a failing job's warning to the admins
 * through the outbox (with its renderer). Jobs are scheduled later, once every part exists
 * (src/jobs/table.ts). Stopped on the cleanup stack.
 */
import { jobNoticeSender } from '../jobs/notices.js';
import { Scheduler } from '../jobs/scheduler.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import { registerJobNoticeRenderer } from '../slack/job-messages.js';
import type { Store } from '../store/index.js';
import type { CleanupStack } from './cleanup.js';

export function buildScheduler(
  o: { store: Store; now: () => number; outbox: Outbox; policy: PolicySource; logger: Logger },
  cleanup: CleanupStack,
): Scheduler {
  const scheduler = new Scheduler(o.logger.child({ component: 'jobs' }), {
    store: o.store,
    now: o.now,
    notify: jobNoticeSender(o.outbox, o.policy),
  });
  registerJobNoticeRenderer(o.outbox);
  cleanup.push(() => scheduler.stop());
  return scheduler;
}
