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

function build(schedule: string, timezone: string): CronSlots {
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
  return {
    schedule,
    timezone,
    next,
    previous(at, horizonMs = DEFAULT_HORIZON_MS) {
      const end = Math.floor(at / 1000) * 1000;
      const p = before(end + 1);
      if (p === undefined || end - p > horizonMs) return undefined;
      let slot = before(p) ?? p;
      for (let n = next(slot); n <= end; n = next(n)) slot = n;
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
