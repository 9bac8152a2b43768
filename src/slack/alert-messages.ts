/**
 * Alerts as Slack messages: plain `{ text, blocks }` objects, pure functions of the alert
 * record (the outbox calls them at send time, so an edit always shows the current state).
 * This is the Slack side of the alerts domain: `src/alerts` decides what to post and when,
 * and never knows about Block Kit.
 */
import { alertMetadata } from './message-metadata.js';
import {
  ALERT_BATCH_RENDERER,
  ALERT_COLLECTIONS,
  ALERT_MENTION_RENDERER,
  ALERT_RENDERER,
  ALERT_STATUS_RENDERER,
  HISTORY_RENDERER,
  isClaim,
  readStatusChangeRef,
  readWatermark,
  standing,
  UNKNOWN_COLLECTIONS,
  UNKNOWN_RENDERER,
  type Alert,
  type AlertHistoryEntry,
  type UnknownWindow,
} from '../alerts/index.js';
import { checkable, KIND_RULES } from '../alert-kinds.js';
import { isFailure } from '../alerts/status.js';
import { KIND_WORDS } from './alert-kind-words.js';
import {
  graceWords,
  registerTrustRenderers,
  renderMention,
  statusLabel,
  trustWarning,
} from './alert-trust-messages.js';

export { statusLabel } from './alert-trust-messages.js';
export { batchCapacity, batchLine, renderAlertBatch } from './alert-batch-message.js';
import { renderAlertBatch, batchCapacity } from './alert-batch-message.js';
import { amountText, valueBeside, type RenderedMessage, type RenderOptions } from './alert-parts.js';
export type { RenderedMessage, RenderOptions } from './alert-parts.js';
import { formatAmount } from '../format/amount.js';
import { outside, outsideCode, outsidePlain } from '../format/outside.js';
import { statusDetail } from '../format/status.js';
import { slackDate, utcDay } from '../format/time.js';
import type { Outbox } from '../outbox/index.js';
import type { Store } from '../store/index.js';
import { explorerTxUrl } from '../wallet/explorers.js';
import { context, fields, header, link, section, shorten, truncate } from './blocks.js';

/**
 * Where we learnt of it, for finance staff: the wallet's notification, its history, or both.
 * "Checked against the wallet's history" only once every field matched (src/alerts/claims.ts).
 */
export function sourceLabel(a: Alert): string {
  if (a.source === 'reconciliation') return "Found in the wallet's history, no notification received.";
  // A withdrawal of ours shows its request's outcome, whatever the notification said.
  const ours = a.verification.request?.settled
    ? " Its status is its withdrawal request's outcome, the wallet service's own answer."
    : '';
  const counts = KIND_WORDS[a.kind].countsAs;
  switch (a.verification.state) {
    case 'confirmed':
      return `Notified by the wallet service and checked against the wallet's history.${ours}`;
    case 'contradicted':
      return "A notification disagreed with the wallet service: it may be forged. Only the wallet's history counts.";
    case 'not_found':
      if (a.verification.flaggedAt !== undefined)
        return `Not in the wallet's history after ${graceWords(a.verification.graceMs ?? 0)}: this notification may be forged.`;
      return `Reported by the wallet service; not in the wallet's history yet (checking): not counted as ${counts} until it is.${ours}`;
    default:
      if (!checkable(a.kind))
        return 'Reported by the wallet service in a form we do not read: nothing is counted from it.';
      return `Reported by the wallet service · checking against the wallet's history before it counts as ${counts}.${ours}`;
  }
}

const code = (v: string) => outsideCode(v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const shortRef = (ref: string) => (UUID.test(ref) ? ref.slice(0, 8) : truncate(ref, 60));

/**
 * What a failure means for the money depends on its direction (ALERT_KINDS' `outgoing`, KIND_WORDS): a failed deposit
 * credited nothing, while a failed payment out must be checked before anyone sends it again.
 */
function failureWarning(a: Alert, title: string): string {
  const what = standing(a) === 'NOT_PROPAGATED' ? 'was not propagated to the network' : 'failed';
  // Money going out that a notification alone calls failed is a claim (anyone holding the webhook URL
  // can make it): stated as fact, it would lead someone to pay again. Only the wallet's history
  // listing it as failed, or the service's own answer for a withdrawal of ours, makes it one.
  const serviceSays =
    (a.verification.state === 'confirmed' && a.verification.listStatus === 'failed') ||
    a.verification.request?.settled === 'FAILED';
  if (KIND_RULES[a.kind].outgoing && !serviceSays)
    return `:warning: *A notification says this ${title.toLowerCase()} ${what}.* The wallet service has not confirmed it: do not send it again until it does (a withdrawal's card shows the service's own answer).`;
  const words = KIND_WORDS[a.kind];
  return `:warning: *${words.failureSubject} ${what}.* ${words.failure}`;
}

export function renderAlert(a: Alert, opts: RenderOptions = {}): RenderedMessage {
  const title = KIND_WORDS[a.kind].title;
  const hashUrl = a.verification.hashUrl ?? explorerTxUrl(a.hash, a.currency, a.network, opts.explorer);
  const failed = isFailure(standing(a));
  const warning = trustWarning(a);
  // Outside text (type, amount's currency, network) escaped once for mrkdwn, once for the plain_text header.
  const headlineOf = (x: (t: unknown, max?: number) => string) =>
    !KIND_RULES[a.kind].readable
      ? `${title}${a.typeName ? ` (${x(a.typeName, 80)})` : ''}`
      : `${title} of ${x(amountText(a), 120)}${a.network ? ` on ${x(a.network, 40)}` : ''}`;
  // No @here in an alert: a large deposit's mention is a post of its own once the history confirms it.
  const label = statusLabel(a).replace(/^:[a-z_]+: /, '');
  const flagged = failed || warning || a.sanctioned;
  const text = `${flagged ? 'Warning: ' : ''}${headlineOf(outside)}${a.sanctioned ? ` ${a.sanctioned.reported ? 'reported from' : 'from'} an address on the OFAC sanctions list` : ''}: ${label}`;

  const blocks: unknown[] = [header(`${a.sanctioned ? '⛔ ' : flagged ? '⚠️ ' : ''}${headlineOf(outsidePlain)}`)];
  // A sanctioned sender first: the admins were told in private; nothing here calls the channel.
  if (a.sanctioned)
    blocks.push(
      section(
        `:no_entry: *${a.sanctioned.reported ? 'Reported from' : 'From'} an address on the OFAC sanctions list* (${a.sanctioned.by === 'list' ? `the list of ${utcDay(a.sanctioned.list.date)}` : 'identified by the sanctions screening service'}): ${code(a.sanctioned.address)}. ${a.sanctioned.reported ? 'Being checked with the wallet service: it has not confirmed this deposit yet.' : 'The admins have been told; decide with compliance before these funds are used.'}`,
      ),
    );
  if (warning) blocks.push(section(warning));
  if (a.mention && a.verification.state === 'confirmed')
    blocks.push(section(`Large ${title.toLowerCase()}: *${outside(amountText(a), 120)}*${valueBeside(a)}`));
  if (failed) blocks.push(section(failureWarning(a, title)));

  const pairs: Array<[string, string]> = [
    ['Status', statusLabel(a)],
    [a.source === 'reconciliation' ? 'Found' : 'Notified', slackDate(a.createdAt)],
  ];
  if (KIND_RULES[a.kind].readable || a.amount) pairs.push(['Amount', `${outside(amountText(a))}${valueBeside(a)}`]);
  if (a.network) pairs.push(['Network', outside(a.network)]);
  if (a.clientEmail) pairs.push(['Client', outside(a.clientEmail)]);
  for (const [label, address] of KIND_WORDS[a.kind].parties(a)) if (address) pairs.push([label, code(address)]);
  if (a.charge) pairs.push(['Fee', outside(formatAmount(a.charge, a.currency))]);
  // One short reference to quote: a withdrawal's own (its card shows the same short form),
  // else the service's. A UUID is cut to its first 8 characters: the rest is noise to a reader.
  const ref = a.merchantReference ?? a.reference;
  if (ref) pairs.push(['Reference', code(shortRef(ref))]);
  if (a.hash) pairs.push(['Transaction', link(hashUrl, shorten(a.hash, 10, 8))]);
  blocks.push(fields(pairs));

  if (!KIND_RULES[a.kind].readable && a.extra && Object.keys(a.extra).length)
    blocks.push(section(`Fields we do not recognise (kept as received):\n${unknownFields(a)}`));
  blocks.push(context(sourceLabel(a)));
  return { text: truncate(text, 3000), blocks };
}

function unknownFields(a: Alert): string {
  return Object.entries(a.extra ?? {})
    .slice(0, 12)
    .map(([k, v]) => `• *${outside(k, 100)}*: ${outside(typeof v === 'string' ? v : JSON.stringify(v), 200)}`)
    .join('\n');
}

// ------------------------------------------------------------------ unknown shapes, history

export function renderUnknownWindow(w: UnknownWindow, latest: Alert | undefined): RenderedMessage {
  const text = `${w.count} notification${w.count === 1 ? '' : 's'} from the wallet service in a form we do not recognise since ${slackDate(w.since, '{time}')}; \`/treasury status\` lists the latest`;
  const blocks: unknown[] = [section(`:grey_question: ${text}.`)];
  if (latest?.extra && Object.keys(latest.extra).length) {
    blocks.push(
      section(
        `Latest${latest.typeName ? ` (${outside(latest.typeName, 80)})` : ''}, fields we do not recognise (kept as received):\n${unknownFields(latest)}`,
      ),
    );
  }
  blocks.push(
    context(
      'Kept and counted, not posted one by one: this message is updated as more arrive, and a new one starts each hour.',
    ),
  );
  return { text, blocks };
}

export function renderHistoryLine(count: number, windowMs: number): RenderedMessage {
  const hours = Math.round(windowMs / 3_600_000);
  const span = hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
  const text = `${count} deposit${count === 1 ? '' : 's'} in the ${span} before the app was connected: see \`/tx type=deposit\``;
  return { text, blocks: [context(`:information_source: ${text}. They were not alerted one by one.`)] };
}

/** The thread line added when the alert's status changes. */
export function renderStatusChange(a: Alert, h: AlertHistoryEntry): RenderedMessage {
  const via = h.source === 'reconciliation' ? " (found in the wallet's history, no notification received)" : '';
  const warn = isFailure(h.status) ? ':warning: ' : '';
  // A claim's new status is only what a notification says until the wallet's history shows it;
  // a withdrawal of ours stands where its request settled, so a notification only ever reports.
  const claim = h.source === 'webhook' && (isClaim(a) || a.verification.request?.settled !== undefined);
  const what = outside(statusDetail(h.status), 60);
  const text = `${warn}${claim ? `Reported ${what} by the wallet service` : `Now ${what}`}, ${slackDate(h.at)}${via}.`;
  return { text, blocks: [section(text)] };
}

/**
 * Call before `outbox.start()`: an alert entry the outbox reaches with no renderer is parked
 * as failed, and entries left pending by a previous process are sent right at start.
 */
export function registerAlertRenderers(
  outbox: Pick<Outbox, 'registerRenderer' | 'registerBatchRenderer'>,
  store: Pick<Store, 'get'>,
  opts: RenderOptions = {},
): void {
  const alert = (id: string) => store.get(ALERT_COLLECTIONS.alerts, id);
  // A claim gathered into its channel's flood summary is not drawn on its own.
  const alertsOf = (refs: string[]) => refs.map(alert).filter((a): a is Alert => !!a && !a.gathered);
  const allOf = (refs: string[]) => refs.map(alert).filter((a): a is Alert => !!a);
  outbox.registerBatchRenderer(ALERT_BATCH_RENDERER, {
    render: (refs) => {
      const as = alertsOf(refs);
      return as.length ? renderAlertBatch(as, opts) : null;
    },
    fits: (refs) => batchCapacity(allOf(refs), opts),
  });
  outbox.registerRenderer(UNKNOWN_RENDERER, (ref) => {
    const w = store.get(UNKNOWN_COLLECTIONS.windows, ref);
    return w ? renderUnknownWindow(w, alert(w.latestAlertId)) : null;
  });
  outbox.registerRenderer(HISTORY_RENDERER, () => {
    const wm = readWatermark(store);
    return wm?.historyCount ? renderHistoryLine(wm.historyCount, wm.historyWindowMs ?? 24 * 3_600_000) : null;
  });
  outbox.registerRenderer(ALERT_RENDERER, (ref) => {
    const a = alert(ref);
    // With its facts as message metadata, for the team's own workflows (issue 40).
    return a && !a.gathered ? { ...renderAlert(a, opts), metadata: alertMetadata(a) } : null;
  });
  outbox.registerRenderer(ALERT_MENTION_RENDERER, (ref) => {
    const a = alert(ref);
    return a?.verification.state === 'confirmed' ? renderMention(a) : null;
  });
  registerTrustRenderers(outbox, store, opts);
  outbox.registerRenderer(ALERT_STATUS_RENDERER, (ref) => {
    const r = readStatusChangeRef(ref);
    const a = r && alert(r.alertId);
    const h = r && a?.history[r.historyIndex];
    return a && h ? renderStatusChange(a, h) : null;
  });
}
