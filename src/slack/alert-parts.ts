/**
 * What the alert messages share (alert-messages.ts, alert-batch-message.ts): the rendered
 * shape, the options, an alert's amount in words and its value beside it.
 *
 * The value is the one recorded on the alert when it was ingested (src/alerts/ingest.ts), at
 * the price that decided its `@here`: a message redrawn an hour later for a status change
 * shows the value the deposit had when it came, and the renderers stay pure functions of the
 * record (no price cache read at send time).
 */
import { Decimal } from 'decimal.js';
import type { Alert } from '../alerts/index.js';
import { formatAmount } from '../format/amount.js';
import { formatFiat } from '../format/fiat.js';
import type { PolicySource } from '../policy/source.js';
import type { ExplorerNet } from '../wallet/explorers.js';

export interface RenderedMessage {
  text: string;
  blocks: unknown[];
}

export interface RenderOptions {
  explorer?: ExplorerNet;
  /** The policy in force (who the admins are, for the trust notices). */
  policy?: PolicySource;
}

/** A deposit whose sender is sanctioned, as its alert says it (src/alerts/sanctions.ts). */
export const SANCTIONED_WORDS = ':no_entry: *from an address on the OFAC sanctions list*';

export function amountText(a: Alert): string {
  return a.amount ? formatAmount(a.amount, a.currency) : 'amount not given';
}

/** " ≈ $1,500.00" beside an amount, " (value unknown)" without a fresh price then, "" when none was recorded. */
export function valueBeside(a: Alert): string {
  if (!a.amount || !a.value) return '';
  return a.value.kind === 'known' ? ` ${formatFiat(a.value.usd, { approx: true })}` : ' (value unknown)';
}

/** The total value of these alerts, or undefined when one with an amount has no known value (a partial total would mislead). */
export function valueTotal(alerts: readonly Alert[]): string | undefined {
  let total = new Decimal(0);
  let any = false;
  for (const a of alerts) {
    if (!a.amount) continue;
    if (a.value?.kind !== 'known') return undefined;
    total = total.plus(a.value.usd);
    any = true;
  }
  return any ? formatFiat(total.toFixed(2), { approx: true }) : undefined;
}
