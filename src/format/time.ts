/**
 * The one way times are written for people: minutes in UTC ("2026-11-23 01:21 UTC"), or
 * Slack's date token, which each reader's client shows in their own time zone, with that
 * UTC text as the fallback for clients (and notifications) that cannot render it.
 */

function toDate(at: number | Date | string): Date {
  return at instanceof Date ? at : new Date(at);
}

/** "2026-11-23 01:21 UTC", or `fallback` when the time is missing or invalid. */
export function utcMinute(at: number | Date | string | undefined | null, fallback = 'unknown'): string {
  if (at === undefined || at === null) return fallback;
  const d = toDate(at);
  if (Number.isNaN(d.getTime())) return fallback;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "2026-11-23 01:21:05 UTC": to the second, where changes seconds apart must read apart (status lines). */
export function utcSecond(at: number | Date | string, fallback = 'unknown'): string {
  const d = toDate(at);
  if (Number.isNaN(d.getTime())) return fallback;
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** "01:21": the time of day in UTC, for what started within the last hour (the caller says "UTC"). */
export function utcClock(at: number | Date | string, fallback = 'unknown'): string {
  const d = toDate(at);
  if (Number.isNaN(d.getTime())) return fallback;
  return d.toISOString().slice(11, 16);
}

/** "2026-11-23" in UTC (file names, day filters). */
export function utcDay(at: number | Date | string): string {
  return toDate(at).toISOString().slice(0, 10);
}

/** Slack's `<!date^…>` token: shown in the reader's time zone, `utcMinute` where it cannot be. */
export function slackDate(at: number | Date | string, format = '{date_short_pretty} {time}'): string {
  const d = toDate(at);
  if (Number.isNaN(d.getTime())) return 'unknown';
  return `<!date^${Math.floor(d.getTime() / 1000)}^${format}|${utcMinute(d)}>`;
}
