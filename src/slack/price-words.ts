/**
 * The price source's state in words, for the admins (`/treasury status`): whether values are
 * known now, since when, and the last problem (a refused or failed refresh).
 */
import { utcMinute } from '../format/time.js';
import { outside } from '../format/outside.js';
import type { PriceSourceState } from '../prices/types.js';

export function priceStatusText(s: PriceSourceState, maxAgeMs: number): string {
  const minutes = Math.round(maxAgeMs / 60_000);
  const head = !s.stale.length
    ? `:large_green_circle: ${outside(s.source, 80)}: every price fresh (last ${utcMinute(s.lastOkAt)})`
    : s.fresh.length
      ? `:large_yellow_circle: ${outside(s.source, 80)}: no fresh price for ${s.stale.join(', ')}; their values count as unknown (the strictest tier)`
      : `:red_circle: ${outside(s.source, 80)}: no fresh price${s.lastOkAt ? ` since ${utcMinute(s.lastOkAt)}` : ' yet'}; every value counts as unknown (the strictest tier)`;
  const problem = s.lastProblem
    ? `\nLast problem ${utcMinute(s.lastProblem.at)}: ${outside(s.lastProblem.reason, 600)}`
    : '';
  return `${head}${problem}\nA price counts for ${minutes} min · ${s.calls} refresh${s.calls === 1 ? '' : 'es'} since start`;
}
