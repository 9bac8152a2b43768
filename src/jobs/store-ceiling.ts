/**
 * The embedded store's ceiling (issue 42): it keeps every record in memory and rewrites its
 * whole state file at each compaction, so start time, memory and commit latency grow with the
 * history a team keeps. `EMBEDDED_CEILING_RECORDS` is the size at which it stops being
 * acceptable on the reference machine (2 cores), measured by `npm run bench history`
 * (docs/guides/production.md states the criterion and the figures).
 *
 * The job `capacity.embedded-store` (src/jobs/table.ts) compares the store's records with it:
 * once they pass 80% it tells the admins, once, to move to PostgreSQL, and records that in the
 * audit log, in the same commit as the message's outbox entry and the mark that it was said
 * (neither lost nor repeated, across restarts too). The words are in src/slack/store-ceiling-words.ts. The mark is cleared once the records fall
 * back under 70% (pruning, a migration), so a later crossing is said again; between 70% and
 * 80% nothing changes, so a store hovering at 80% is not announced at every run.
 */
import { appendAudit } from '../audit/log.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import { adminsNotifier } from './notices.js';
import type { Policy } from '../policy/schema.js';
import type { PolicySource } from '../policy/source.js';
import { collection, type Store } from '../store/index.js';

/** Records (withdrawals, audit entries, outbox, alerts: every collection) the embedded store holds well. */
export const EMBEDDED_CEILING_RECORDS = 300_000;
/** The share of the ceiling at which the admins are told. */
export const WARN_SHARE = 0.8;
/** Under this share a warned store is no longer marked, so the next crossing is said again. */
export const REARM_SHARE = 0.7;

export const STORE_CEILING_RENDERER = 'store.ceiling';

/** What the message's ref carries: the figures when it was decided. */
export interface CeilingNotice {
  records: number;
  ceiling: number;
  /** Admins named only by user groups: mentioned in a post to the alerts channel. */
  mention?: string[];
}

interface CeilingMark {
  /** When the admins were told (ISO 8601). */
  warnedAt: string;
  records: number;
  ceiling: number;
}

/** What was said; the persisted name must never change. */
export const STORE_CEILING_STATE = collection<CeilingMark>('store_ceiling');
const MARK = 'embedded';

export interface StoreCeilingWatch {
  /** Reads the store's size; tells the admins when it crossed 80% of the ceiling. Returns what it did. */
  check(): Promise<'warned' | 'rearmed' | 'none'>;
}

export function createStoreCeilingWatch(o: {
  store: Store;
  outbox: Pick<Outbox, 'enqueue'>;
  policy: PolicySource<Pick<Policy, 'people' | 'channels'>>;
  logger: Logger;
  now: () => number;
  /** Default EMBEDDED_CEILING_RECORDS (tests lower it). */
  ceiling?: number;
}): StoreCeilingWatch {
  const ceiling = o.ceiling ?? EMBEDDED_CEILING_RECORDS;
  const tell = adminsNotifier(o.outbox, o.policy, STORE_CEILING_RENDERER);
  return {
    check: () =>
      o.store.commit((tx) => {
        // Decided inside the commit, on what is stored now: two checks at once cannot both tell.
        const records = o.store.stats().records;
        const mark = tx.get(STORE_CEILING_STATE, MARK);
        if (mark && records < ceiling * REARM_SHARE) {
          tx.delete(STORE_CEILING_STATE, MARK);
          return 'rearmed' as const;
        }
        if (mark || records < ceiling * WARN_SHARE) return 'none' as const;
        const at = new Date(o.now()).toISOString();
        tx.put(STORE_CEILING_STATE, MARK, { warnedAt: at, records, ceiling });
        appendAudit(tx, {
          actor: 'system',
          action: 'store_ceiling_warning',
          subject: 'store',
          details: { records, ceiling, share: records / ceiling },
          at,
        });
        tell(tx, { records, ceiling } satisfies CeilingNotice);
        o.logger.warn(
          { records, ceiling },
          'the embedded store passed 80% of its ceiling: admins told to move to PostgreSQL',
        );
        return 'warned' as const;
      }),
  };
}
