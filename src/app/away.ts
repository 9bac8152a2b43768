/** The away part (src/away): the service, its DMs through the outbox. */
import { createAwayService, type AwayService } from '../away/service.js';
import type { Outbox } from '../outbox/index.js';
import { awayNotices } from '../slack/away-notices.js';
import type { Store } from '../store/index.js';

export const buildAway = (o: { store: Store; outbox: Outbox; now: () => number }): AwayService =>
  createAwayService({ store: o.store, now: o.now, notify: awayNotices(o) });
