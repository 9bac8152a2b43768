/** Which channel an alert goes to, and whether it is large enough to mention @here. */
import { Decimal } from 'decimal.js';
import type { Policy } from '../policy/schema.js';
import { type AlertKind, KIND_RULES } from '../alert-kinds.js';
import { NO_PRICES, valueAt, type PriceSnapshot } from '../prices/index.js';
import { entryFor } from '../policy/entries.js';

export interface RouteInput {
  kind: AlertKind;
  currency?: string;
  network?: string;
  amount?: string;
}

/** First route whose kind, currency and network all match (absent fields match anything); else channels.alerts. */
export function routeAlert(policy: Policy, a: RouteInput): string {
  for (const r of policy.channels.routes) {
    if (r.kind !== 'any' && r.kind !== KIND_RULES[a.kind].routeKey) continue;
    if (r.currency !== undefined && r.currency !== a.currency) continue;
    if (r.network !== undefined && r.network !== a.network) continue;
    return r.channel;
  }
  return policy.channels.alerts;
}

/**
 * Strictly above the currency's threshold (native, amounts compared as decimals), else above the
 * `value` threshold in USD at the cached price; an unknown value is the strictest case: mentioned.
 */
export function shouldMention(policy: Policy, a: RouteInput, prices: PriceSnapshot = NO_PRICES): boolean {
  if (!a.currency || !a.amount) return false;
  const chosen = entryFor(policy.alerts.mention_above, a.currency);
  if (!chosen) return false;
  try {
    if (chosen.basis === 'native') return new Decimal(a.amount).gt(chosen.entry);
    new Decimal(a.amount);
    const v = valueAt(prices, a.currency, a.amount);
    return v.kind !== 'known' || new Decimal(v.usd).gt(chosen.entry);
  } catch {
    return false;
  }
}
