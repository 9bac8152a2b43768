/**
 * The approval card of a withdrawal request, updated in place after every decision. It reads the
 * request's CURRENT state, so an outbox entry sent late shows what is true when it is sent.
 */
import type { KnownBlock } from '@slack/types';
import { Decimal } from 'decimal.js';
import { slackDate, utcMinute } from '../../format/time.js';
import type { Rendered } from '../../outbox/index.js';
import { explorerAddressUrl, explorerTxUrl, type ExplorerNet } from '../../wallet/explorers.js';
import type { DailyUsage, FeeEstimate, WithdrawalRequest } from '../../withdrawals/index.js';
import type { DailyValue } from '../../withdrawals/service/types.js';
import type { Valuation } from '../../prices/types.js';
import { formatFiat, formatPrice } from '../../format/fiat.js';
import { tierWords } from '../../format/tier.js';
import { judgedWords } from '../../format/judged.js';
import { marketUsd } from '../../prices/value.js';
import { formatAmount, unfilledPlaces } from '../../withdrawals/index.js';
import { statusDetail } from '../../format/status.js';
import { outside, outsideCode } from '../../format/outside.js';
import { mayRepeat } from '../../withdrawals/hold/decide.js';
import { reportedStatusWords } from '../../withdrawals/hold/words.js';
import { limitsLine, raisedWords } from './pattern-words.js';
import { actions, context, divider, fields, header, LIMITS, link, section, shorten } from '../blocks.js';
import {
  ACTIONS,
  amountText,
  earlierText,
  feeBeforeText,
  holdWhy,
  limitLiftWords,
  neverExecuted,
  neverExecutedContradicted,
  noticeText,
  onHold,
  rejecter,
  riskFlags,
  settlementText,
  shortRef,
  stateLabel,
  who,
} from './words.js';

/** Why a request is on hold, what that means, and what an admin may do: the card's words. */
function holdText(r: WithdrawalRequest, facts: CardFacts): string {
  const h = r.hold!;
  // A limit crossed at the send: status first ("Held: today's withdrawals would reach …"), then what may lift it.
  if (h.kind === 'limit')
    return `:double_vertical_bar: *Held:* ${holdWhy(h, facts.get)} Nothing is sent until ${limitLiftWords(h)} or an admin chooses *Send anyway* (or *Reject*).`;
  const wait =
    r.state === 'approved'
      ? 'Every approval is in, but nothing is sent'
      : 'Approvals can still be given, but nothing is sent';
  // Held only because an earlier request of these details is under way here: nothing to look up
  // in the wallet service, the question is whether this is the same payout.
  const check = h.earlierState ? 'checks whether it is a separate payout' : 'checks the wallet service';
  return (
    `:double_vertical_bar: *On hold:* ${holdWhy(h, facts.get)} ` +
    `Paying this one too may pay the client twice. ${wait} until an admin ${check} and chooses *Send anyway* or *Reject*.` +
    (h.kind === 'retyped' ? ' If this is a separate payout (a recurring one, say), an admin can send it anyway.' : '')
  );
}

/** Which earlier request of the same payout this one repeats, and how it was linked to it. */
function repeatLine(r: WithdrawalRequest, facts: CardFacts): string {
  const o = r.repeatOf ? facts.get?.(r.repeatOf) : undefined;
  const ref = o ? ` (ref \`${shortRef(o)}\`)` : '';
  return r.repeatLinked
    ? `:link: Same destination, amount and currency (${amountText(r)}), network and client wallet as an earlier request the wallet service never executed${ref}: it is treated as the same payout, and held if that one is reported after all. If it is a separate payout, an admin can choose *Send anyway* when it is held.`
    : `:link: Repeats an earlier request the wallet service never executed${ref}.`;
}

/** Already sent when its earlier request was reported after "never executed": both may have been paid. */
function doublePaymentText(r: WithdrawalRequest, facts: CardFacts): string {
  const d = r.doublePaymentRisk!;
  return `:rotating_light: *Both may have been paid:* the wallet service reported ${earlierText(d.original, facts.get, d.status)} after this one was sent. An admin must check the wallet service and recover the duplicate.`;
}

function destinationText(r: WithdrawalRequest, net: ExplorerNet): string {
  const addr = link(explorerAddressUrl(r.destination, r.currency, r.network, net), r.destination);
  // Governed policy: a newly approved address is not usable before its cooling-off ends.
  if (r.allowlist.status === 'unlisted' && r.allowlist.usableFrom)
    return `${addr}\n:hourglass_flowing_sand: Allowlisted as ${outside(r.allowlist.label ?? '', 100)}; usable from ${utcMinute(r.allowlist.usableFrom)}`;
  return r.allowlist.status === 'listed'
    ? `${addr}\n:white_check_mark: allowlisted: ${outside(r.allowlist.label ?? '', 100)}`
    : addr;
}

function approvalsText(r: WithdrawalRequest): string {
  // A delegate's approval names both: "Carol (for Dave)".
  const done = r.approvals.map(
    (a) => `:white_check_mark: <@${a.user}>${a.for?.length ? ` (for ${who(a.for)})` : ''} ${slackDate(a.at)}`,
  );
  const missing = Math.max(0, r.tier.approvals - r.approvals.length);
  const mustStill = unfilledPlaces(r.tier.mustInclude, r.approvals);
  const need =
    r.state === 'pending'
      ? [
          missing > 0 ? `*${missing} more approval${missing > 1 ? 's' : ''} needed*` : '',
          mustStill.length ? `must include ${who(mustStill)}` : '',
        ].filter(Boolean)
      : [];
  return [...done, ...(need.length ? [need.join(', ')] : [])].join('\n') || '_none yet_';
}

/** What happened, in the state's words (the header already says which state). */
function outcomeText(r: WithdrawalRequest): string | undefined {
  switch (r.state) {
    case 'pending':
      return undefined;
    case 'approved':
    case 'executing':
      return 'Every approval is in: sending to the wallet service…';
    case 'completed': {
      const by =
        r.result?.source === 'reconcile'
          ? r.result.via === 'status'
            ? ' (confirmed by the wallet service)'
            : ' (confirmed from the transaction list)'
          : r.result?.source === 'admin'
            ? ' (marked as sent by an admin)'
            : '';
      const odd = r.result?.mismatches?.length
        ? `\n:rotating_light: *The service's answer differs from what was approved:* ${r.result.mismatches.map((m) => outside(m, 300)).join('; ')}. An admin must check it.`
        : '';
      return `*Sent*${by}: ${settlementText(r)}.${odd}`;
    }
    case 'failed':
      if (neverExecutedContradicted(r) && r.confirmation)
        return `*Reported by the wallet service (${reportedStatusWords(r.confirmation.status)})* after it had no record of it: it may have been paid. *Do not pay it again*; an admin must check it in the wallet service and the transaction list.`;
      if (neverExecutedContradicted(r))
        return '*Not sent*, says the wallet service (no record of its reference), but a notification names it since: *do not pay it again* until an admin has checked the wallet service.';
      if (r.error?.kind === 'never_executed')
        return '*Not sent:* the wallet service has no record of it (looked up by its reference after the grace period). Nothing left the treasury and it will never be resent; to pay it, make a new request.';
      return `*${r.resolution ? 'Not sent' : 'Failed'}:* ${outside(r.error?.message ?? 'no reason given', 500)}${r.error?.kind === 'rejected' ? ' Nothing was sent; it will not be retried.' : ''}`;
    case 'rejected':
      return `*Rejected* by ${rejecter(r)}: “${outside(r.rejection?.reason ?? '', 500)}”`;
    case 'expired':
      // Held, then released too late (repeat-hold.ts): its approvals were too old to send on.
      return r.hold
        ? `*Expired* at ${slackDate(r.expiresAt)} while on hold, before an admin released it. Nothing was sent; if the payout is still due, make a new request.`
        : `*Expired* at ${slackDate(r.expiresAt)} without enough approvals. Nothing was sent.`;
    case 'unknown':
      return (
        `*Outcome unknown*: ${outside(r.unknownReason ?? 'the wallet service did not confirm the result', 500)}. ` +
        'The money may have moved. The transaction list is being checked for its reference; *do not request it again*. An admin can resolve it here.'
      );
  }
}

/** "Balance: 12,500.00 USDT on BSC · after this withdrawal: 10,250.00", while it is not sent yet. */
export function balanceText(r: WithdrawalRequest, facts: CardFacts): string | undefined {
  if (!['pending', 'approved'].includes(r.state)) return undefined;
  const balance = facts.lastBalance?.(r.currency, r.network);
  if (balance === undefined) return undefined;
  if (balance === null) return `${r.currency} on ${r.network}: balance unavailable`;
  const afterAmount = new Decimal(balance).minus(r.amount).toFixed();
  const after = formatAmount(afterAmount, r.currency).replace(/ \S+$/, '');
  const afterValue = facts.valueNow?.(r.currency, afterAmount);
  return `Balance: ${formatAmount(balance, r.currency)} on ${r.network} · after this withdrawal: ${after}${afterValue?.kind === 'known' ? ` (${formatFiat(afterValue.usd, { approx: true })})` : ''}`;
}

/** The value under the amount: "≈ $1,234.50" (at request; the value at the send price once re-checked), or why it is unknown. */
function valueLine(r: WithdrawalRequest): string {
  const v = r.sendValuation ?? r.valuation;
  if (!v) return '';
  if (v.kind === 'unknown') return `\nValue unknown: ${v.reason}`;
  const judged = judgedWords(v, r.currency);
  // The current value first; when policy judged at a higher price, one more line says at what and why.
  return `\n${formatFiat(marketUsd(v), { approx: true })} _at ${formatPrice(v.market?.price ?? v.price)} (${outside(v.source, 40)}, ${utcMinute(v.at)})_${judged ? `\n_Policy: ${formatFiat(v.usd, { approx: true })}, ${judged}_` : ''}`;
}

/** "Daily value left: $12,000.00 of $250,000.00" (every currency, rolling 24 h), or why it cannot be known. */
function dailyValueText(facts: CardFacts): string {
  const d = facts.dailyValue?.();
  if (!d) return '';
  if (d.used.kind !== 'known') return `Daily value limit ${formatFiat(d.limit)}: used unknown (${d.used.reason})`;
  const left = Decimal.max(0, new Decimal(d.limit).minus(d.used.usd)).toFixed(2);
  return `Daily value used ${formatFiat(d.used.usd)}, left ${formatFiat(left)} of ${formatFiat(d.limit)}`;
}

/** The fee's value beside its estimate, when the price of its currency is known. */
function feeValue(r: WithdrawalRequest, facts: CardFacts): string {
  const fee = facts.feeEstimate?.(r.currency, r.network);
  const v = fee ? facts.valueNow?.(fee.feeCurrency, fee.fee) : undefined;
  return v?.kind === 'known' ? ` (${formatFiat(v.usd, { approx: true })})` : '';
}

/** Room left for the note in its section (3000 characters) after its label and a "shortened" remark. */
const NOTE_ROOM = LIMITS.sectionText - 200;

function noteText(r: WithdrawalRequest): string {
  if (!r.note) return '*Note*\n_none_';
  // One line, escaped, cut to NOTE_ROOM characters (outside adds the "…").
  const text = outside(r.note, NOTE_ROOM);
  if (Array.from(r.note).length <= NOTE_ROOM) return `*Note*\n${text}`;
  // Never cut silently: say so, and where the whole note is kept.
  return `*Note* (shortened: the full note is in the audit log, \`/treasury audit export\`)\n${text}`;
}

export interface CardFacts {
  dailyUsage(currency: string): DailyUsage;
  /** The last balance read: text, null when unavailable, undefined when the app reads no balances. */
  lastBalance?(currency: string, network: string): string | null | undefined;
  feeEstimate?(currency: string, network: string): FeeEstimate | undefined;
  /** Another request (the earlier one a repeat names), for its short reference. */
  get?(id: string): WithdrawalRequest | undefined;
  /** Every stored request: whether a new request of the same payout may be made (repeat-hold.ts decides). */
  list?(): readonly WithdrawalRequest[];
  /** The value of an amount at the cached price (src/prices), undefined when the app has no prices. */
  valueNow?(currency: string, amount: string): Valuation | undefined;
  /** The daily value limit and its use, undefined when the policy sets none. */
  dailyValue?(): DailyValue | undefined;
}

export function renderCard(
  r: WithdrawalRequest,
  service: CardFacts,
  net: ExplorerNet,
  frozen?: { by: string; reason: string },
): Rendered {
  const usage = service.dailyUsage(r.currency);
  const flags = riskFlags(r);
  if (r.balanceAtRequest?.balance === null && r.state === 'pending')
    flags.push('the balance could not be read when it was requested');
  // No fresh price for a request judged by value: the strictest case (top tier), said where approvers
  // look first. A request under native tiers only is not judged by its value: its value line says it.
  const value = r.sendValuation ?? r.valuation;
  if (value?.kind === 'unknown' && r.tier.basis === 'value' && (r.state === 'pending' || r.state === 'approved'))
    flags.push(`Value unknown: ${value.reason}`);
  // Approved but held by a freeze is not "Sending": say what it is.
  const held = frozen && r.state === 'approved';
  // Status first: a "never executed" the service contradicts may have been paid.
  const label = !neverExecutedContradicted(r)
    ? stateLabel(r)
    : r.confirmation
      ? `🚨 Reported by the wallet service (${reportedStatusWords(r.confirmation.status)}), do not pay again`
      : '⚠️ Not sent, but a notification names it: do not pay again yet';
  // Frozen and waiting for approvals: the freeze is what the reader must know first, not the count.
  const frozenLabel = held ? '⏸️ Approved, held' : '⏸️ Frozen';
  const title = `${frozen && (r.state === 'pending' || r.state === 'approved') && !onHold(r) ? frozenLabel : label} · ${amountText(r)} on ${r.network}`;
  const blocks: KnownBlock[] = [header(title)];
  // A repeat on hold, or one that may have paid twice: why, right under the status.
  if (onHold(r)) blocks.push(section(holdText(r, service)));
  if (r.doublePaymentRisk) blocks.push(section(doublePaymentText(r, service)));
  if (frozen && (r.state === 'pending' || r.state === 'approved')) blocks.push(frozenLine(frozen, r.state));
  if (flags.length)
    blocks.push(
      section(
        `:warning: *${r.state === 'pending' ? 'Check before approving' : 'Flagged when requested'}:* ${flags.join(' · ')}`,
      ),
    );
  const money: Array<[string, string]> =
    r.state === 'completed'
      ? [['Settled', settlementText(r)]]
      : [
          [
            'Fee (estimate)',
            `${feeBeforeText(r, service.feeEstimate?.(r.currency, r.network))}${feeValue(r, service)}`,
          ],
        ];
  blocks.push(
    fields([
      ['Amount', `*${amountText(r)}*${valueLine(r)}`],
      ...money,
      ['To', destinationText(r, net)],
      ['Network', r.network],
      ['From client wallet', outside(r.clientEmail)],
      ['Requested by', `<@${r.requester}>`],
    ]),
    section(noteText(r)),
    section(
      `*Approvals* (${tierWords(r.tier, r.currency)}${raisedWords(r)}${r.tier.mustInclude.length ? `, including ${who(r.tier.mustInclude)}` : ''})\n${approvalsText(r)}`,
    ),
  );
  const limits = limitsLine(r);
  if (limits && (r.state === 'pending' || r.state === 'approved')) blocks.push(context(limits));
  const balance = balanceText(r, service);
  if (balance) blocks.push(context(balance));
  if (r.repeatOf) blocks.push(context(repeatLine(r, service)));
  // On hold, it is not "sending": its words are under the status instead.
  const outcome = onHold(r) ? undefined : outcomeText(r);
  if (outcome) blocks.push(section(outcome));
  if (r.holdReleased && (r.state === 'pending' || r.state === 'approved'))
    blocks.push(
      context(
        `:arrow_forward: Hold released by <@${r.holdReleased.by}> ${slackDate(r.holdReleased.at)}: “${outside(r.holdReleased.reason, 500)}”`,
      ),
    );
  if (r.confirmation) {
    // The wallet service's own word (notice.ts), never a webhook's.
    const url = explorerTxUrl(r.confirmation.transactionHash ?? undefined, r.currency, r.network, net);
    blocks.push(
      context(
        `Transfer status: *${outside(statusDetail(r.confirmation.status), 60)}*${r.confirmation.transactionHash ? ` · ${link(url, shorten(r.confirmation.transactionHash, 10, 6))}` : ''}`,
      ),
    );
  }
  const claim = noticeText(r);
  if (claim) blocks.push(context(claim));
  if (r.state === 'pending' && !onHold(r)) {
    blocks.push(
      actions(`wd:${r.id}`, [
        { text: 'Approve', actionId: ACTIONS.approve, value: r.id, style: 'primary' },
        { text: 'Reject…', actionId: ACTIONS.reject, value: r.id, style: 'danger' },
      ]),
    );
  }
  if (onHold(r)) {
    // Approvals may still be given; rejecting or sending it anyway is an admin's decision.
    blocks.push(
      actions(`wd:${r.id}:hold`, [
        ...(r.state === 'pending'
          ? [{ text: 'Approve', actionId: ACTIONS.approve, value: r.id, style: 'primary' as const }]
          : []),
        { text: 'Admin: reject…', actionId: ACTIONS.holdReject, value: r.id, style: 'danger' },
        { text: 'Admin: send anyway…', actionId: ACTIONS.holdRelease, value: r.id },
      ]),
    );
  }
  // Offered only when the domain would accept it: one payout, one request under way (repeat-hold.ts).
  if (neverExecuted(r) && mayRepeat(r, service.list?.() ?? [r])) {
    blocks.push(
      actions(`wd:${r.id}:again`, [
        { text: 'New request with the same details', actionId: ACTIONS.newRequest, value: r.id },
      ]),
    );
  }
  if (r.state === 'unknown') {
    blocks.push(
      actions(`wd:${r.id}:resolve`, [
        { text: 'Admin: it was sent…', actionId: ACTIONS.resolveSent, value: r.id },
        { text: 'Admin: it was not sent…', actionId: ACTIONS.resolveNotSent, value: r.id },
      ]),
    );
  }
  blocks.push(divider());
  blocks.push(
    context(
      [
        r.state === 'pending' ? `Expires ${slackDate(r.expiresAt)}` : `Requested ${slackDate(r.createdAt)}`,
        usage.remaining !== null
          ? `${r.currency} daily limit left: ${formatAmount(usage.remaining, r.currency)} of ${formatAmount(usage.limit ?? '0', r.currency)}`
          : '',
        r.state === 'pending' ? dailyValueText(service) : '',
        `Ref \`${shortRef(r)}\``,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    context(
      [
        'Details',
        `merchant reference \`${r.merchantReference}\``,
        `request \`${r.id}\``,
        r.result?.serviceReference ? `service reference ${outsideCode(r.result.serviceReference, 80)}` : '',
      ]
        .filter(Boolean)
        .join(' · '),
    ),
  );
  return { text: `${title} to ${outside(shorten(r.destination))} (ref ${shortRef(r)})`, blocks };
}

/** "Frozen by @x: reason", and what the freeze means for this request. */
export function frozenLine(f: { by: string; reason: string }, state: 'pending' | 'approved'): KnownBlock {
  const meaning =
    state === 'approved'
      ? 'Approved; it is sent once two admins unfreeze.'
      : 'It can still be approved; nothing is sent until two admins unfreeze.';
  return context(`:octagonal_sign: Frozen by <@${f.by}>: ${outside(f.reason, 500)} · ${meaning}`);
}
