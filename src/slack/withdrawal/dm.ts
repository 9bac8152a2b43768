/** The DMs of a withdrawal: the requester's, one per event, and the approvers' asks. */
import { slackDate } from '../../format/time.js';
import type { Rendered } from '../../outbox/index.js';
import type { WithdrawalRequest } from '../../withdrawals/index.js';
import { outside, outsideCode } from '../../format/outside.js';
import { link, shorten } from '../blocks.js';
import { decodeApproverDmRef, decodeDmRef } from './thread-ref.js';
import { amountText, holdWhy, neverExecuted, rejecter, requestedWords, riskFlags, settlementText } from './words.js';

/** Where a DM points: the card's permalink, else the approvals channel. */
export interface CardPointer {
  permalink?: string;
  channel: string;
}

const cardLink = (p: CardPointer) =>
  p.permalink ? link(p.permalink, 'Open the card') : `The card is in <#${p.channel}>.`;

/**
 * DMs to the requester (a `DmRef`), one per event: the state's words first, then what
 * the person needs, then the card.
 */
export function renderDm(
  ref: string,
  get: (id: string) => WithdrawalRequest | undefined,
  card: (id: string) => CardPointer,
): Rendered | null {
  const { id, event } = decodeDmRef(ref);
  const r = get(id);
  if (!r) return null;
  const what = `your withdrawal of ${amountText(r)} on ${r.network} to ${outsideCode(shorten(r.destination))}`;
  const lines: Record<string, string> = {
    requested: `${requestedWords(r, what, get)} I will tell you when it is decided.`,
    completed: `✅ Sent · ${what}: ${settlementText(r)}.`,
    failed: neverExecuted(r)
      ? `❌ Not sent · ${what}: the wallet service has no record of it. Nothing left the treasury; to pay it, use “New request with the same details” on the card.`
      : `❌ Failed · ${what}: ${outside(r.error?.message ?? 'no reason given', 500)}${r.error?.kind === 'rejected' ? ' Nothing was sent.' : ''}`,
    rejected: `⛔ Rejected · ${what} was rejected by ${rejecter(r)}: “${outside(r.rejection?.reason ?? '', 500)}”`,
    expired: r.hold
      ? `⌛ Expired · ${what} expired while on hold, before an admin released it. Nothing was sent; if the payout is still due, make a new request.`
      : `⌛ Expired · ${what} expired before it had enough approvals. Nothing was sent.`,
    released: `▶️ Hold released · ${what}: an admin (<@${r.holdReleased?.by ?? ''}>) checked the wallet service and chose to send it: “${outside(r.holdReleased?.reason ?? '', 500)}”. It is sent once its approvals are complete.`,
    unknown: `⚠️ Outcome unknown · ${what}: the wallet service did not confirm the result. It is being checked; do not request it again.`,
    resolved: `${r.resolution?.outcome === 'sent' ? '✅ Sent' : '❌ Not sent'} · an admin resolved ${what}: “${outside(r.resolution?.note ?? '', 500)}”`,
    held: `⏸️ On hold · ${what}: ${r.hold ? holdWhy(r.hold, get) : ''} Nothing is sent until an admin checks it and sends or rejects it.`,
  };
  const text = lines[event];
  return text ? { text: `${text}\n${cardLink(card(r.id))}` } : null;
}

/** The DM asking an approver to decide (an `ApproverDmRef`). Nothing once it is no longer waiting for them. */
export function renderApproverDm(
  ref: string,
  get: (id: string) => WithdrawalRequest | undefined,
  card: (id: string) => CardPointer,
): Rendered | null {
  const { id, approver } = decodeApproverDmRef(ref);
  const r = get(id);
  if (r?.state !== 'pending' || r.approvals.some((a) => a.user === approver)) return null;
  const flags = riskFlags(r);
  return {
    text:
      `⏳ Your approval is asked · ${amountText(r)} on ${r.network} to ${outsideCode(shorten(r.destination))}, requested by <@${r.requester}>. ` +
      `Expires ${slackDate(r.expiresAt)}.${flags.length ? ` ⚠️ ${flags.join(', ')}.` : ''}\n${cardLink(card(r.id))}`,
  };
}
