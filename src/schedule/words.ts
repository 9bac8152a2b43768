/**
 * A job's schedule in words for people (issue 40): "every 30 seconds", "at 08:00 (UTC)", never
 * the cron expression (`*\/30 * * * * *`) a finance reader cannot read. cronstrue writes the
 * words; the time zone is named only when the words name a time or a day (an interval runs the
 * same in every zone). An expression it cannot read is shown as it is.
 */
import cronstrue from 'cronstrue';

export function scheduleWords(schedule: string, timezone: string): string {
  let words: string;
  try {
    words = cronstrue.toString(schedule, {
      use24HourTimeFormat: true,
      verbose: false,
      throwExceptionOnParseError: true,
    });
  } catch {
    return `${schedule} (${timezone})`;
  }
  const lower = words.charAt(0).toLowerCase() + words.slice(1);
  const timed =
    /\d\d:\d\d|day|month|January|February|March|April|May|June|July|August|September|October|November|December/.test(
      words,
    );
  return timed ? `${lower} (${timezone})` : lower;
}
