/** Which channel an alert goes to, and whether it is large enough to mention @here. */
import { Decimal } from 'decimal.js';
import type { Policy } from '../policy/schema.js';
import type { AlertKind } from './parse.js';

export interface RouteInput {
  kind: AlertKind;
  currency?: string;
  network?: string;
  amount?: string;
}

/** First route whose kind, currency and network all match (absent fields match anything); else channels.alerts. */
export function routeAlert(policy: Policy, a: RouteInput): string {
  for (const r of policy.channels.routes) {
    if (r.kind !== 'any' && r.kind !== a.kind) continue;
    if (r.currency !== undefined && r.currency !== a.currency) continue;
    if (r.network !== undefined && r.network !== a.network) continue;
    return r.channel;
  }
  return policy.channels.alerts;
}

/** Strictly above the currency's threshold; amounts compared as decimals. */
export function shouldMention(policy: Policy, a: RouteInput): boolean {
  if (!a.currency || !a.amount) return false;
  const threshold = policy.alerts.mention_above[a.currency];
  if (threshold === undefined) return false;
  try {
    return new Decimal(a.amount).gt(threshold);
  } catch {
    return false;
  }
}
