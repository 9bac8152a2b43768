/**
 * Alerts as Slack messages: plain `{ text, blocks }` objects, pure functions of the alert
 * record (the outbox calls them at send time, so an edit always shows the current state).
 * This is the Slack side of the alerts domain: `src/alerts` decides what to post and when,
 * and never knows about Block Kit.
 */
import { ALERT_COLLECTIONS, ALERT_RENDERER, ALERT_STATUS_RENDERER, readStatusChangeRef, type Alert, type AlertHistoryEntry } from '../alerts/index.js';
import { isFailure } from '../alerts/status.js';
import type { Outbox } from '../outbox/index.js';
import type { Store } from '../store/index.js';
import { explorerTxUrl, type ExplorerNet } from '../wallet/explorers.js';
import { context, esc, fields, header, link, section, shorten, truncate } from './blocks.js';

export interface RenderedMessage {
  text: string;
  blocks: unknown[];
}

export interface RenderOptions {
  explorer?: ExplorerNet;
}

const KIND_TITLE: Record<Alert['kind'], string> = {
  deposit: 'Deposit',
  withdrawal: 'Withdrawal',
  remittance: 'Remittance',
  transfer: 'Transfer',
  unknown: 'Wallet notification',
};

const STATUS_EMOJI: Record<string, string> = {
  ABOUT_TO_INITIATE: ':hourglass_flowing_sand:',
  PENDING: ':hourglass_flowing_sand:',
  CONFIRMED: ':white_check_mark:',
  FAILED: ':x:',
  NOT_PROPAGATED: ':x:',
};

function statusLabel(status: string | undefined): string {
  if (!status) return 'status unknown';
  return `${STATUS_EMOJI[status] ?? ':grey_question:'} ${status.replace(/_/g, ' ').toLowerCase()}`;
}

export function sourceLabel(a: Alert): string {
  if (a.source === 'reconciliation') return 'Found by reconciliation against the transaction list (no webhook was received)';
  switch (a.verification.state) {
    case 'confirmed':
      return 'Reported by webhook, verified against the transaction list';
    case 'not_found':
      return 'Reported by webhook only (not yet in the transaction list)';
    default:
      return 'Reported by webhook only';
  }
}

const code = (v: string) => `\`${esc(v)}\``;

/**
 * What a failure means for the money depends on its direction: a failed deposit credited
 * nothing, while a failed payment out must be checked before anyone sends it again (a
 * resend on a false "failed" would pay twice).
 */
const FAILURE_CONSEQUENCE: Record<Alert['kind'], string> = {
  deposit: 'No funds were credited by it.',
  withdrawal: 'The funds did not leave the wallet: check the wallet service before sending it again.',
  remittance: 'The funds did not leave the wallet: check the wallet service before sending it again.',
  transfer: 'Check the wallet service for where the funds are.',
  unknown: 'Check the wallet service for what happened.',
};

function failureWarning(a: Alert, title: string): string {
  const what = a.status === 'NOT_PROPAGATED' ? 'was not propagated to the network' : 'failed';
  const subject = a.kind === 'unknown' ? 'This notification reports a transaction that' : `This ${title.toLowerCase()}`;
  return `:warning: *${subject} ${what}.* ${FAILURE_CONSEQUENCE[a.kind]}`;
}

function amountText(a: Alert): string {
  return a.amount ? `${a.amount} ${a.currency ?? ''}`.trim() : 'amount not given';
}

export function renderAlert(a: Alert, opts: RenderOptions = {}): RenderedMessage {
  const title = KIND_TITLE[a.kind];
  const hashUrl = a.verification.hashUrl ?? explorerTxUrl(a.hash, a.currency, a.network, opts.explorer);
  const failed = isFailure(a.status);
  const here = a.mention ? '<!here> ' : '';
  const headline =
    a.kind === 'unknown'
      ? `${title}${a.typeName ? ` (${a.typeName})` : ''}`
      : `${title} of ${amountText(a)}${a.network ? ` on ${a.network}` : ''}`;
  const text = `${here}${failed ? 'Warning: ' : ''}${headline}: ${(a.status ?? 'status unknown').toLowerCase()}`;

  const blocks: unknown[] = [header(`${failed ? '⚠️ ' : ''}${headline}`)];
  if (a.mention) blocks.push(section(`<!here> Large ${title.toLowerCase()}: *${esc(amountText(a))}*`));
  if (failed) blocks.push(section(failureWarning(a, title)));

  const pairs: Array<[string, string]> = [['Status', statusLabel(a.status)]];
  if (a.kind !== 'unknown' || a.amount) pairs.push(['Amount', esc(amountText(a))]);
  if (a.network) pairs.push(['Network', esc(a.network)]);
  if (a.clientEmail) pairs.push(['Client', esc(a.clientEmail)]);
  if (a.kind === 'deposit') {
    if (a.receiveAddress) pairs.push(['Deposit address', code(a.receiveAddress)]);
    if (a.depositAddress) pairs.push(['From', code(a.depositAddress)]);
  } else {
    if (a.senderAddress) pairs.push(['From', code(a.senderAddress)]);
    if (a.receiverAddress) pairs.push(['To', code(a.receiverAddress)]);
  }
  if (a.charge) pairs.push(['Fee', esc(`${a.charge} ${a.currency ?? ''}`.trim())]);
  if (a.merchantReference) pairs.push(['Reference', code(a.merchantReference)]);
  else if (a.reference) pairs.push(['Reference', code(a.reference)]);
  if (a.hash) pairs.push(['Transaction', link(hashUrl, shorten(a.hash, 10, 8))]);
  blocks.push(fields(pairs));

  if (a.kind === 'unknown' && a.extra && Object.keys(a.extra).length) {
    const lines = Object.entries(a.extra)
      .slice(0, 12)
      .map(([k, v]) => `• *${esc(k)}*: ${esc(truncate(typeof v === 'string' ? v : JSON.stringify(v), 200))}`);
    blocks.push(section(`Fields we do not recognise (kept as received):\n${lines.join('\n')}`));
  }
  blocks.push(context(sourceLabel(a)));
  return { text: truncate(text, 3000), blocks };
}

/** The thread line added when the alert's status changes. */
export function renderStatusChange(a: Alert, h: AlertHistoryEntry): RenderedMessage {
  const when = new Date(h.at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const via = h.source === 'reconciliation' ? 'the transaction list' : 'webhook';
  const warn = isFailure(h.status) ? ':warning: ' : '';
  const text = `${warn}Status changed to *${(h.status ?? 'unknown').replace(/_/g, ' ').toLowerCase()}* at ${when} (via ${via}).`;
  return { text, blocks: [section(text)] };
}

/**
 * Call before `outbox.start()`: an alert entry the outbox reaches with no renderer is parked
 * as failed, and entries left pending by a previous process are sent right at start.
 */
export function registerAlertRenderers(outbox: Pick<Outbox, 'registerRenderer'>, store: Pick<Store, 'get'>, opts: RenderOptions = {}): void {
  const alert = (id: string) => store.get<Alert>(ALERT_COLLECTIONS.alerts, id);
  outbox.registerRenderer(ALERT_RENDERER, (ref) => {
    const a = alert(ref);
    return a ? renderAlert(a, opts) : null;
  });
  outbox.registerRenderer(ALERT_STATUS_RENDERER, (ref) => {
    const r = readStatusChangeRef(ref);
    const a = r && alert(r.alertId);
    const h = r && a?.history[r.historyIndex];
    return a && h ? renderStatusChange(a, h) : null;
  });
}
