/**
 * The card's words for the pattern rules (src/withdrawals/pattern-rules.ts): each rolling limit
 * that applies, as used / limit, and why a request asks for more approvals than its tier.
 */
import { formatFiat } from '../../format/fiat.js';
import type { LimitUse, WithdrawalRequest } from '../../withdrawals/types.js';

const PER: Record<LimitUse['per'], string> = {
  destination: 'this destination',
  requester: 'this requester',
  client: 'this client',
  all: 'all withdrawals',
};
const WINDOW: Record<LimitUse['window'], string> = { '24h': '24 h', '7d': '7 days', '30d': '30 days' };

/** "Limits: this destination, 24 h: $60,000.00 / $50,000.00 (over: top tier)", one per limit. */
export function limitsLine(r: WithdrawalRequest): string | undefined {
  if (!r.limits?.length) return undefined;
  const each = r.limits.map((l) => {
    const over = l.over ? (l.action === 'escalate' ? ' *over: top tier’s approvals*' : ' *over*') : '';
    return `${PER[l.per]}, ${WINDOW[l.window]}: ${formatFiat(l.used)} / ${formatFiat(l.limit)}${over}`;
  });
  return `:bar_chart: Limits (with this request): ${each.join(' · ')}`;
}

/** Why the tier asks for more than its own count: ", raised to the top tier by a limit", ", 1 more for a new destination". */
export function raisedWords(r: WithdrawalRequest): string {
  const why = [
    r.tier.escalated ? 'raised to the top tier by a limit' : '',
    r.tier.extra ? `${r.tier.extra} more for a destination never paid before` : '',
  ].filter(Boolean);
  return why.length ? `, ${why.join(', ')}` : '';
}
