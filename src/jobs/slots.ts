/**
 * A job's slots: the instants its cron expression names, in its time zone. node-cron decides
 * what matches (the same matcher that fires the production tick), so a slot computed here is
 * exactly a slot node-cron fires; nothing here parses cron.
 *
 * node-cron 4 gives "the next match after a date" to its own runner, and publicly only from
 * the real clock (`getNextRuns`). The scheduler needs it from any instant (a controllable clock,
 * the previous slot at start), so this module reads the matcher of an unstarted task, checks at
 * once that it has the expected shape (an upgrade that changes it fails at startup, loudly, not
 * at the first slot), and finds the previous slot by searching backwards with `next` alone.
 */
import cron from 'node-cron';

interface Matcher {
  getNextMatch(date: Date): Date;
}

export interface CronSlots {
  readonly schedule: string;
  readonly timezone: string;
  /** The first slot strictly after `at` (whole seconds; ms are ignored). */
  next(at: number): number;
  /** The latest slot at or before `at`; undefined if none within `horizonMs` (default 400 days). */
  previous(at: number, horizonMs?: number): number | undefined;
}

const cache = new Map<string, CronSlots>();
const DEFAULT_HORIZON_MS = 400 * 86_400_000;

/** The slots of a node-cron expression in an IANA time zone (cached: few distinct pairs exist). */
export function cronSlots(schedule: string, timezone: string): CronSlots {
  const key = `${timezone}\u0000${schedule}`;
  let s = cache.get(key);
  if (!s) {
    s = build(schedule, timezone);
    cache.set(key, s);
  }
  return s;
}

function build(schedule: string, timezone: string): CronSlots {
  if (!cron.validate(schedule)) throw new Error(`invalid schedule "${schedule}"`);
  // A task that is never started: only its matcher is used. It stays in node-cron's registry,
  // which is harmless (one per distinct schedule and zone, cached above).
  const task = cron.createTask(schedule, () => undefined, { timezone, name: `slots:${timezone}:${schedule}` });
  const matcher = (task as unknown as { timeMatcher?: Partial<Matcher> }).timeMatcher;
  if (!matcher || typeof matcher.getNextMatch !== 'function') {
    throw new Error(
      'node-cron no longer exposes its time matcher (src/jobs/slots.ts relies on it): pin node-cron 4.x or adapt slots.ts',
    );
  }
  const m = matcher as Matcher;
  const next = (at: number) => m.getNextMatch(new Date(at)).getTime();
  return {
    schedule,
    timezone,
    next,
    previous(at, horizonMs = DEFAULT_HORIZON_MS) {
      // Widen a window back from `at` until a slot falls in it, then walk forward to the last
      // one not after `at`. The window that found nothing is half the one that did, so the walk
      // covers at most about one window's worth of slots.
      for (let span = 60_000; span <= horizonMs * 2; span *= 2) {
        let slot = next(at - Math.min(span, horizonMs) - 1);
        if (slot > at) continue;
        for (let n = next(slot); n <= at; n = next(n)) slot = n;
        return slot;
      }
      return undefined;
    },
  };
}
