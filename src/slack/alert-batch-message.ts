/**
 * Several alerts as one message (a burst of deposits): a header with the count and the totals
 * (per currency, and in value where every counted line's value is known), then one compact
 * line per transaction. Split from alert-messages.ts (the one-alert message and the renderers'
 * registration stay there); pure functions of the alert records.
 */
import { Decimal } from 'decimal.js';
import { isClaim, standing, type Alert } from '../alerts/index.js';
import { failureIsNews } from '../alerts/posting.js';
import { isFailure } from '../alerts/status.js';
import { formatAmount } from '../format/amount.js';
import { outside, outsidePlain } from '../format/outside.js';
import { statusWord } from '../format/status.js';
import { slackDate } from '../format/time.js';
import { explorerTxUrl } from '../wallet/explorers.js';
import {
  amountText,
  valueBeside,
  valueTotal,
  type RenderedMessage,
  type RenderOptions,
  SANCTIONED_WORDS,
} from './alert-parts.js';
import { KIND_WORDS } from './alert-kind-words.js';
import { lineEmoji, lineStatus } from './alert-trust-messages.js';
import { context, header, LIMITS, link, section, shorten, truncate } from './blocks.js';

/**
 * Room a line keeps for growing later: a status word, a verified explorer link; much more
 * when the hash or client is still missing (a later notification may fill them in).
 */
const lineGrowth = (a: Alert) => (a.hash && a.clientEmail && a.amount ? 40 : 220);
const LINE_MAX = 600;
/** Sections of lines per message: 50 blocks, less the header and the closing context. */
const MAX_LINE_SECTIONS = LIMITS.blocks - 2;
/**
 * Slack documents 40,000 characters for a message's text, but refuses blocks adding up to
 * about 13,200 characters with an undocumented `msg_blocks_too_long` (slackapi/bolt-js#2509),
 * which the outbox could only park. The lines of one message stay under 12,000.
 */
const MAX_MESSAGE_CHARS = 12_000;
const SECTION_CHARS = LIMITS.sectionText - 100;

/** One compact line: status, amount and currency, network, client, status word, explorer link. */
export function batchLine(a: Alert, opts: RenderOptions = {}): string {
  const hashUrl = a.verification.hashUrl ?? explorerTxUrl(a.hash, a.currency, a.network, opts.explorer);
  const parts = [
    `${lineEmoji(a)} *${outside(amountText(a), 80)}*${valueBeside(a)}`,
    a.sanctioned ? SANCTIONED_WORDS : undefined,
    a.network ? outside(a.network, 30) : undefined,
    a.clientEmail ? outside(a.clientEmail, 80) : undefined,
    lineStatus(a),
    a.hash ? link(hashUrl, shorten(a.hash, 8, 6)) : undefined,
    a.source === 'reconciliation' ? "_found in the wallet's history, no notification received_" : undefined,
  ];
  return truncate(parts.filter((p) => p !== undefined).join(' · '), LINE_MAX);
}

/** Lines into sections (a line never split), at most `maxSections`, within the message budget; returns how many lines fit. */
function pack(lengths: number[], growth: (i: number) => number): number {
  let sections = 0;
  let current = -1;
  let total = 0;
  for (const [i, raw] of lengths.entries()) {
    const len = Math.min(raw + growth(i), LINE_MAX);
    if (total + len + 1 > MAX_MESSAGE_CHARS) return i;
    if (current < 0 || current + 1 + len > SECTION_CHARS) {
      if (sections === MAX_LINE_SECTIONS) return i;
      sections++;
      current = len;
    } else current += 1 + len;
    total += len + 1;
  }
  return lengths.length;
}

/** How many of these alerts (in order) one batch message can carry, leaving each line room to grow. */
export function batchCapacity(alerts: Alert[], opts: RenderOptions = {}): number {
  // A claim gathered into a flood summary is not drawn: it takes no room.
  return pack(
    alerts.map((a) => (a.gathered ? 0 : batchLine(a, opts).length)),
    (i) => (alerts[i]!.gathered ? 0 : lineGrowth(alerts[i]!)),
  );
}

/** Totals per currency, exact decimals; lines without an amount or currency are only counted. */
function totals(alerts: Alert[]): string[] {
  const sums = new Map<string, Decimal>();
  for (const a of alerts) {
    if (!a.amount || !a.currency) continue;
    try {
      sums.set(a.currency, (sums.get(a.currency) ?? new Decimal(0)).plus(a.amount));
    } catch {
      /* an amount we cannot read is shown on its line, not summed */
    }
  }
  return [...sums].map(([cur, sum]) => formatAmount(sum, outsidePlain(cur, 30)));
}

/**
 * Several alerts as one message: a header with the count and the total per currency, then
 * one line per transaction. Drawn from the current state at every send, so an edit of any
 * line redraws them all. Never exceeds Slack's limits: lines that no longer fit (they grew
 * more than the room kept for them) are summed up in a last line.
 */
export function renderAlertBatch(alerts: Alert[], opts: RenderOptions = {}): RenderedMessage {
  const kinds = new Set(alerts.map((a) => a.kind));
  const noun = kinds.size === 1 ? KIND_WORDS[alerts[0]!.kind].plural : 'transactions';
  // Sums only what the wallet's history backs: a reported transaction is not counted.
  const claims = alerts.filter((a) => isClaim(a)).length;
  const counted = alerts.filter((a) => !isClaim(a));
  const sum = totals(counted);
  // Across currencies, only when every counted amount has a known value.
  const value = sum.length > 1 ? valueTotal(counted) : undefined;
  if (value) sum.push(`${value} in all`);
  const headline = `${alerts.length} ${noun}${sum.length ? `: ${sum.join(', ')}` : ''}${claims ? ` (${claims} reported, not counted until confirmed)` : ''}`;
  const lines = alerts.map((a) => batchLine(a, opts));
  const n = pack(
    lines.map((l) => l.length),
    () => 0,
  );
  const shown = n < lines.length ? lines.slice(0, Math.max(0, n - 1)) : lines;
  if (shown.length < lines.length) shown.push(`…and ${lines.length - shown.length} more: see \`/tx\``);
  const blocks: unknown[] = [header(headline)];
  let current = '';
  for (const line of shown) {
    if (current && current.length + 1 + line.length > SECTION_CHARS) {
      blocks.push(section(current));
      current = line;
    } else current = current ? `${current}\n${line}` : line;
  }
  if (current) blocks.push(section(current));
  // Confirmed means the wallet's history shows it: a transaction told only by a notification is "reported".
  const failed = (a: Alert) => isFailure(standing(a));
  const failures = alerts.filter(failed).length;
  const doubtful = alerts.filter(
    (a) =>
      !failed(a) && isClaim(a) && (a.verification.state === 'contradicted' || a.verification.flaggedAt !== undefined),
  ).length;
  const reported = alerts.filter((a) => !failed(a) && isClaim(a)).length - doubtful;
  const pending = alerts.filter(
    (a) => !isClaim(a) && (statusWord(standing(a)) === 'pending' || statusWord(standing(a)) === 'status unknown'),
  ).length;
  // A message of its own is posted for a failure a notification told (src/alerts/ingest.ts).
  const ownFailures = alerts.filter((a) => failed(a) && isFailure(a.status) && failureIsNews(a)).length;
  const notes = [
    `${alerts.length - pending - failures - reported - doubtful} confirmed`,
    reported ? `${reported} reported, checking against the wallet's history` : '',
    doubtful ? `${doubtful} not backed by the wallet's history: may be forged` : '',
    pending ? `${pending} pending` : '',
    failures
      ? `${failures} failed${ownFailures ? ` (${ownFailures === failures ? 'each' : `${ownFailures} of them`} also with a message of its own)` : ', no funds moved'}`
      : '',
  ].filter(Boolean);
  // When, once for the message (a time on each line would halve the lines a message holds).
  const times = alerts.map((a) => a.createdAt);
  const first = Math.min(...times);
  const last = Math.max(...times);
  const when =
    last - first < 60_000 ? `Notified ${slackDate(first)}` : `Notified ${slackDate(first)} to ${slackDate(last)}`;
  blocks.push(context(`${when} · ${notes.join(' · ')}. Each line is edited as its status changes.`));
  return { text: truncate(outside(headline, 3000), 3000), blocks };
}
