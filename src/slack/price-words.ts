/**
 * The price source's state in words, for the admins (`/treasury status`): whether values are
 * known now, since when, and the last problem (a refused or failed refresh).
 */
import { utcMinute } from '../format/time.js';
import { outside } from '../format/outside.js';
import { formatPrice } from '../format/fiat.js';
import { basisWords } from '../format/judged.js';
import type { AssetPrice, PriceSourceState } from '../prices/types.js';

/** "3 min ago", "2 h ago", "just now". */
function age(now: number, at: string): string {
  const ms = Math.max(0, now - Date.parse(at));
  if (ms < 60_000) return 'just now';
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ago`;
  return `${Math.floor(ms / 86_400_000)} d ago`;
}

/** One asset: "USDT $0.9984 (2 min ago) · limits judge at $1.00, the peg of USDT". */
function assetLine(a: AssetPrice, now: number): string {
  const current = a.current ? `${formatPrice(a.current.price)} (${age(now, a.current.at)})` : 'no price';
  const policy = a.policy
    ? ` · limits judge at ${formatPrice(a.policy.price)}, ${basisWords(a.policy.judged, a.currency)}${a.policy.judged.basis === 'high' ? ` (seen ${age(now, a.policy.judged.seenAt)})` : ''}`
    : '';
  return `${a.currency} ${current}${policy}`;
}

/** Each asset's current price and policy price with their ages; assets never priced in one line. */
export function assetPriceLines(assets: readonly AssetPrice[], now: number): string {
  const priced = assets.filter((a) => a.current || a.policy);
  const none = assets.filter((a) => !a.current && !a.policy).map((a) => a.currency);
  return [...priced.map((a) => assetLine(a, now)), ...(none.length ? [`No price yet: ${none.join(', ')}`] : [])].join(
    '\n',
  );
}

export function priceStatusText(s: PriceSourceState, maxAgeMs: number, now?: number): string {
  const minutes = Math.round(maxAgeMs / 60_000);
  const head = !s.stale.length
    ? `:large_green_circle: ${outside(s.source, 80)}: every price fresh (last ${utcMinute(s.lastOkAt)})`
    : s.fresh.length
      ? `:large_yellow_circle: ${outside(s.source, 80)}: no fresh price for ${s.stale.join(', ')}; their values count as unknown (the strictest tier)`
      : `:red_circle: ${outside(s.source, 80)}: no fresh price${s.lastOkAt ? ` since ${utcMinute(s.lastOkAt)}` : ' yet'}; every value counts as unknown (the strictest tier)`;
  const problem = s.lastProblem
    ? `\nLast problem ${utcMinute(s.lastProblem.at)}: ${outside(s.lastProblem.reason, 600)}`
    : '';
  const assets = now !== undefined && s.assets.length ? `\n${assetPriceLines(s.assets, now)}` : '';
  return `${head}${problem}\nA price counts for ${minutes} min · ${s.calls} refresh${s.calls === 1 ? '' : 'es'} since start${assets}`;
}
