/**
 * The sanctions screening's state in words for `/treasury status`: the list's source, date, count
 * and age (stale or not), the last failed refresh, and the provider.
 */
import { formatFiat } from '../format/fiat.js';
import { outside } from '../format/outside.js';
import { utcDay, utcMinute } from '../format/time.js';
import type { ScreeningStatus } from '../screening/service.js';
import { ageWords } from '../screening/words.js';

export function screeningStatusText(s: ScreeningStatus | undefined, staleBlockAbove: string): string {
  if (!s) return ':white_circle: not configured';
  const refreshed = s.unsourced ? '(set SANCTIONS_LIST_URL to refresh the list)' : 'until it is refreshed';
  const head = !s.enabled
    ? ':white_circle: provider and look-alike checks off (`screening.enabled: false` in the policy): destinations are still checked against the sanctions list'
    : s.stale
      ? `:red_circle: the list is ${ageWords(s.ageMs)} old: requests above ${formatFiat(staleBlockAbove)} are refused ${refreshed}`
      : `:large_green_circle: the list was read ${ageWords(s.ageMs)} ago`;
  const list = `OFAC sanctions list of ${utcDay(s.list.date)} · ${s.list.count} addresses · from ${outside(s.list.source, 200)}${s.bundled ? '' : ` (read ${utcMinute(s.list.fetchedAt)})`}`;
  const sha = `sha256 \`${s.list.sha256.slice(0, 16)}…\``;
  const failing = s.failing ? `\nLast refresh failed ${utcMinute(s.failing.at)}: ${outside(s.failing.error, 400)}` : '';
  const provider = s.provider
    ? `\nProvider: ${outside(s.provider, 100)}, asked in addition to the list (answers kept a day)`
    : '\nNo provider: the list alone decides';
  return `${head}\n${list} · ${sha}${failing}${provider}`;
}

/** For someone who is not an admin: the stale list as a problem, or nothing. */
export function screeningProblem(s: ScreeningStatus | undefined, staleBlockAbove: string): string | undefined {
  if (!s?.enabled || !s.stale) return undefined;
  return `the sanctions list is ${ageWords(s.ageMs)} old, so withdrawals above ${formatFiat(staleBlockAbove)} cannot be requested ${s.unsourced ? 'until an admin sets SANCTIONS_LIST_URL to refresh it' : 'until it is refreshed'}`;
}
