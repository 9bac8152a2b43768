/**
 * A job's slots: the instants its cron expression names, in its time zone, from any instant
 * (a controllable clock, the previous slot at start). cron-parser computes them; node-cron is
 * only the production trigger (scheduler.ts), so nothing here reads node-cron's internals.
 *
 * The slots are the chain `next()` walks. cron-parser's `prev()` can disagree with it around a
 * DST change (on the night clocks go back it names both 02:30s of a daily 02:30 job while
 * `next()` names only the first; on the night they go forward it skips the shifted 03:30 that
 * `next()` names), so `previous` only uses `prev()` to find a starting point two slots back
 * and walks forward with `next()`: a daily job has one slot a day, whatever the clocks do.
 */
import { CronExpressionParser } from 'cron-parser';

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

/** The slots of a cron expression (five fields, or six with seconds first) in an IANA time zone (cached). */
export function cronSlots(schedule: string, timezone: string): CronSlots {
  const key = `${timezone}\u0000${schedule}`;
  let s = cache.get(key);
  if (!s) {
    s = build(schedule, timezone);
    cache.set(key, s);
  }
  return s;
}

/** A new, unshared instance (cronSlots shares one per schedule and zone); for comparisons in tests. */
export function build(schedule: string, timezone: string): CronSlots {
  const parse = (at: number) => {
    try {
      return CronExpressionParser.parse(schedule, { currentDate: new Date(at), tz: timezone });
    } catch (err) {
      throw new Error(`invalid schedule "${schedule}" in ${timezone}: ${err instanceof Error ? err.message : err}`);
    }
  };
  parse(0); // fail at once, not at the first slot
  // Strictly after the whole second of `at`.
  const next = (at: number) =>
    parse(Math.floor(at / 1000) * 1000)
      .next()
      .getTime();
  /** The slot strictly before `at`, or undefined when cron-parser finds none. */
  const before = (at: number): number | undefined => {
    try {
      return parse(at).prev().getTime();
    } catch {
      return undefined;
    }
  };
  // The last slot found and the one after it: until then, the latest slot is the same. Every tick
  // asks every job for its latest slot, and cron-parser with a time zone costs milliseconds a
  // call (measured: ~27 ms of main-thread work per tick of the job table, enough to show in the
  // ack latency of a burst of clicks that met a tick); this answers most of them from memory.
  let known: { slot: number; until: number } | undefined;
  return {
    schedule,
    timezone,
    next,
    previous(at, horizonMs = DEFAULT_HORIZON_MS) {
      const end = Math.floor(at / 1000) * 1000;
      if (known && end >= known.slot && end < known.until) return end - known.slot > horizonMs ? undefined : known.slot;
      const p = before(end + 1);
      if (p === undefined || end - p > horizonMs) return undefined;
      let slot = before(p) ?? p;
      let n = next(slot);
      for (; n <= end; n = next(n)) slot = n;
      known = { slot, until: n };
      return end - slot > horizonMs ? undefined : slot;
    },
  };
}

/** The calendar day of an instant in an IANA time zone, "YYYY-MM-DD" (a slot's day where it fires). */
export function dayIn(at: number, timezone: string): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(at));
}

/** A slot job's run, as its domain needs it: the slot and the zone its schedule is read in. */
export interface SlotTime {
  slot: number;
  timezone: string;
}
