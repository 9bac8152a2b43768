/**
 * How a withdrawal request looks in Slack: the approval card (updated in place after every
 * decision), its thread lines, and the requester's DMs. Each renderer reads the request's
 * CURRENT state, so an outbox entry sent late shows what is true when it is sent.
 */
import type { KnownBlock } from '@slack/types';
import { Decimal } from 'decimal.js';
import { slackDate, utcMinute } from '../format/time.js';
import type { Rendered } from '../outbox/index.js';
import { explorerAddressUrl, explorerTxUrl, type ExplorerNet } from '../wallet/explorers.js';
import type { DailyUsage, FeeEstimate, WithdrawalRequest } from '../withdrawals/index.js';
import { expectedSettlement, formatAmount, recognisedClaim, settlementOf } from '../withdrawals/index.js';
import { statusDetail } from '../format/status.js';
import { outside, outsideCode } from '../format/outside.js';
import { CONTRADICTED_NEVER_EXECUTED } from './withdrawal-hold-words.js';
import { isNeverExecuted, isNeverExecutedContradicted } from '../withdrawals/hold/family.js';
import { mayRepeat } from '../withdrawals/hold/decide.js';
import { reportedStatusWords } from '../withdrawals/hold/words.js';
import { stateWords } from '../withdrawals/rules.js';
import { actions, context, divider, fields, header, LIMITS, link, mention, section, shorten } from './blocks.js';

export const CARD_RENDERER = 'withdrawal.card';
export const THREAD_RENDERER = 'withdrawal.thread';
export const DM_RENDERER = 'withdrawal.dm';
export const APPROVER_DM_RENDERER = 'withdrawal.approver-dm';
export const ACTIONS = {
  approve: 'wd_approve',
  reject: 'wd_reject',
  resolveSent: 'wd_resolve_sent',
  resolveNotSent: 'wd_resolve_not_sent',
  /** On a request the service never executed: opens the request form with the same details (a new request). */
  newRequest: 'wd_new_request',
  /** On a request on hold (its earlier request of the same payout reported after "never executed", or a retype): admins only. */
  holdRelease: 'wd_hold_release',
  holdReject: 'wd_hold_reject',
} as const;

/**
 * The service never executed it (settled by its status, past the grace): nothing left, a new
 * request may be made. Only while nothing of the service ever spoke of it since: a webhook (even
 * PENDING) or a result proves it has the withdrawal, and paying again could pay twice.
 */
export const neverExecuted = isNeverExecuted;

/** Found "never executed", and then the wallet service spoke of it after all: it may have been paid. */
export const neverExecutedContradicted = isNeverExecutedContradicted;

/** Why the card offers no new request for a "never executed" the service contradicted (the domain refuses with it too). */
export { CONTRADICTED_NEVER_EXECUTED };

/** On hold and still holdable (a rejected one keeps the record of its hold but is no longer held). */
export const onHold = (r: Pick<WithdrawalRequest, 'state' | 'hold'>) =>
  !!r.hold && (r.state === 'pending' || r.state === 'approved');

/**
 * "the earlier request of the same payout (ref 1a2b3c4d, Pending)": the short reference people
 * quote, when it can be read, and what the service reports of it now (its latest webhook, in the
 * app's status words; `reported` when the request itself cannot be read).
 */
function earlierText(
  id: string,
  get: ((id: string) => WithdrawalRequest | undefined) | undefined,
  reported?: string,
): string {
  const o = get?.(id);
  const status = o?.confirmation?.status ?? reported;
  const parts = [o ? `ref \`${shortRef(o)}\`` : '', status !== undefined ? reportedStatusWords(status) : ''].filter(
    Boolean,
  );
  return `the earlier request of the same payout${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** Why a request is on hold, what that means, and what an admin may do: the card's words. */
function holdText(r: WithdrawalRequest, facts: CardFacts): string {
  const h = r.hold!;
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

/** Why it is held, in plain words (the card, its thread line, the requester's DM). */
function holdWhy(
  h: NonNullable<WithdrawalRequest['hold']>,
  get: ((id: string) => WithdrawalRequest | undefined) | undefined,
): string {
  const anyReport = 'any report means the wallet service has that request, so it may be paid.';
  // A notification alone: its claim is outside text (escaped), and it is never called the service's.
  if (h.kind === 'notified')
    return `a notification (not confirmed by the wallet service; it may be forged) says ${earlierText(h.original, get)} is “${outside(h.status || '(no status)', 60)}”: until the wallet service answers, this one is held as a precaution.`;
  if (h.kind !== 'retyped')
    return `the wallet service now reports ${earlierText(h.original, get, h.status)}, after it had no record of it: ${anyReport}`;
  const o = get?.(h.original);
  const earlier = `an earlier request${o ? ` (ref \`${shortRef(o)}\`)` : ''}`;
  const same = 'it has the same destination, amount, currency, network and client wallet as';
  return h.earlierState
    ? `${same} ${earlier} that is ${stateWords(o?.state ?? h.earlierState)}.`
    : o?.confirmation || h.status
      ? `${same} ${earlier} the wallet service reported (${reportedStatusWords(o?.confirmation?.status ?? h.status)}) after it had no record of it: ${anyReport}`
      : `${same} ${earlier} that a notification named after the wallet service had no record of it (not confirmed by the service; it may be forged, but it may have been paid).`;
}

/**
 * What the requester reads when the request is made (the command's answer, the form's DM): the
 * approvals it waits for, or, made on hold (retyped while its payout is under way or reported),
 * that and why, and that an admin decides.
 */
export function requestedWords(
  r: WithdrawalRequest,
  what: string,
  get?: (id: string) => WithdrawalRequest | undefined,
): string {
  if (onHold(r) && r.hold)
    return `⏸️ Requested, on hold · ${what}: ${holdWhy(r.hold, get)} Nothing is sent until an admin chooses *Send anyway* or *Reject*; approvals can still be given.`;
  return `⏳ Requested · ${what} is waiting for ${r.tier.approvals} approval${r.tier.approvals > 1 ? 's' : ''}.`;
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

export const cardKey = (id: string) => `withdrawal:${id}`;
/** The request a card's key names; undefined for any other key (its thread's, its DMs'). */
export const cardRequestId = (key: string): string | undefined => {
  const id = key.startsWith('withdrawal:') ? key.slice('withdrawal:'.length) : '';
  return id && !id.includes(':') ? id : undefined;
};

/** Who rejected: a mention, never `<@undefined>` for a record written without one. */
const rejecter = (r: Pick<WithdrawalRequest, 'rejection'>) =>
  r.rejection?.user === 'system' ? 'the treasury policy' : r.rejection?.user ? `<@${r.rejection.user}>` : 'an approver';

const who = (ids: readonly string[]) => ids.map((id) => mention(id, 'anyone')).join(', ');

export function amountText(r: Pick<WithdrawalRequest, 'amount' | 'currency'>): string {
  return formatAmount(r.amount, r.currency);
}

/**
 * The one vocabulary for a withdrawal's state, used by the card's header, its fallback text,
 * the DMs, the thread and the audit view. Unicode emoji, so the same words read well in a
 * plain-text header and in a notification.
 */
export function stateLabel(
  r: Pick<WithdrawalRequest, 'state' | 'approvals' | 'tier' | 'resolution'> &
    Partial<Pick<WithdrawalRequest, 'error' | 'hold'>>,
): string {
  // Held as a possible second payment: not "Sending", whatever its approvals (Home, /treasury withdrawal, DMs).
  if (onHold({ state: r.state, hold: r.hold })) return '⏸️ On hold';
  switch (r.state) {
    case 'pending':
      return `⏳ ${Math.min(r.approvals.length, r.tier.approvals)} of ${r.tier.approvals} approval${r.tier.approvals > 1 ? 's' : ''}`;
    case 'approved':
    case 'executing':
      return '🔄 Sending';
    case 'completed':
      return '✅ Sent';
    case 'failed':
      return r.resolution || r.error?.kind === 'never_executed' ? '❌ Not sent' : '❌ Failed';
    case 'rejected':
      return '⛔ Rejected';
    case 'expired':
      return '⌛ Expired';
    case 'unknown':
      return '⚠️ Outcome unknown';
  }
}

/** "1a2b3c4d": the short reference people quote; the full ids are in the card's Details line. */
export const shortRef = (r: Pick<WithdrawalRequest, 'merchantReference'>) => r.merchantReference.slice(0, 8);

/** Risk flags the approver must see first; empty when there are none. */
export function riskFlags(r: Pick<WithdrawalRequest, 'allowlist'>): string[] {
  const out: string[] = [];
  if (r.allowlist.status === 'unlisted')
    out.push(r.allowlist.usableFrom ? 'allowlisted address still cooling off' : 'not on the allowlist');
  if (r.allowlist.neverPaidBefore) out.push('never paid before');
  return out;
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

/** "Debited 250 USDT · delivered 249 USDT · fee 1 USDT", from the service's own numbers. */
export function settlementText(r: WithdrawalRequest): string {
  const s = settlementOf(r);
  if (!s) return `Delivered ${amountText(r)}`;
  const fee = s.fee ? `fee ${formatAmount(s.fee, s.feeCurrency ?? r.currency)}` : 'fee not reported';
  return [
    s.debited ? `Debited ${formatAmount(s.debited, r.currency)}` : '',
    `${s.debited ? 'delivered' : 'Delivered'} ${formatAmount(s.delivered, r.currency)}`,
    fee,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Before approval: the expected fee and what the payee receives, marked as an estimate, or "unknown yet". */
export function feeBeforeText(r: WithdrawalRequest, estimate: FeeEstimate | undefined): string {
  if (!estimate) return `_unknown yet_ (no ${r.currency} withdrawal on ${r.network} has been sent with this app)`;
  const e = expectedSettlement(r.amount, estimate);
  const debit = estimate.mode === 'on_top' ? ` · debited ≈ ${formatAmount(e.debited, r.currency)}` : '';
  return `≈ ${formatAmount(e.fee, e.feeCurrency)} · payee receives ≈ ${formatAmount(e.delivered, r.currency)}${debit}\n_estimate: the last fee charged on ${r.network}, ${slackDate(estimate.chargedAt)}_`;
}

function approvalsText(r: WithdrawalRequest): string {
  const done = r.approvals.map((a) => `:white_check_mark: <@${a.user}> ${slackDate(a.at)}`);
  const missing = Math.max(0, r.tier.approvals - r.approvals.length);
  const satisfied = new Set(r.approvals.flatMap((a) => a.satisfies));
  const mustStill = r.tier.mustInclude.filter((m) => !satisfied.has(m));
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

/**
 * A notification's claim is outside text (whoever learns the webhook URL can post anything): shown
 * only through `outside()`, and only as a claim: waiting for the service, or contradicted by it.
 */
export function noticeText(r: Pick<WithdrawalRequest, 'notice'>): string | undefined {
  const n = r.notice;
  if (!n) return undefined;
  const said = !n.status ? '(no status)' : recognisedClaim(n.status) ? outside(n.status, 60) : 'an unrecognised status';
  if (n.waiting)
    return `:hourglass_flowing_sand: A notification says ${said}; waiting for the wallet service to confirm.`;
  if (n.disagreed)
    return `:rotating_light: A notification said ${outside(n.disagreed.status || '(no status)', 60)} but the wallet service says ${outside(n.disagreed.service, 40)}: a notification disagreed with the wallet service: it may be forged.`;
  return undefined;
}

/** "Balance: 12,500.00 USDT on BSC · after this withdrawal: 10,250.00", while it is not sent yet. */
export function balanceText(r: WithdrawalRequest, facts: CardFacts): string | undefined {
  if (!['pending', 'approved'].includes(r.state)) return undefined;
  const balance = facts.lastBalance?.(r.currency, r.network);
  if (balance === undefined) return undefined;
  if (balance === null) return `${r.currency} on ${r.network}: balance unavailable`;
  const after = formatAmount(new Decimal(balance).minus(r.amount).toFixed(), r.currency).replace(/ \S+$/, '');
  return `Balance: ${formatAmount(balance, r.currency)} on ${r.network} · after this withdrawal: ${after}`;
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
  // Approved but held by a freeze is not "Sending": say what it is.
  const held = frozen && r.state === 'approved';
  // Status first: a "never executed" the service contradicts may have been paid.
  const label = !neverExecutedContradicted(r)
    ? stateLabel(r)
    : r.confirmation
      ? `🚨 Reported by the wallet service (${reportedStatusWords(r.confirmation.status)}), do not pay again`
      : '⚠️ Not sent, but a notification names it: do not pay again yet';
  const title = `${held && !onHold(r) ? '⏸️ Approved, held' : label} · ${amountText(r)} on ${r.network}`;
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
      : [['Fee (estimate)', feeBeforeText(r, service.feeEstimate?.(r.currency, r.network))]];
  blocks.push(
    fields([
      ['Amount', `*${amountText(r)}*`],
      ...money,
      ['To', destinationText(r, net)],
      ['Network', r.network],
      ['From client wallet', outside(r.clientEmail)],
      ['Requested by', `<@${r.requester}>`],
    ]),
    section(noteText(r)),
    section(
      `*Approvals* (tier ${r.tier.max ? `up to ${formatAmount(r.tier.max, r.currency)}` : 'above every limit'}: ${r.tier.approvals} needed${r.tier.mustInclude.length ? `, including ${who(r.tier.mustInclude)}` : ''})\n${approvalsText(r)}`,
    ),
  );
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

/** A webhook status name in words: "CONFIRMED" -> "confirmed", "NOT_PROPAGATED" -> "not propagated". */
/** An empty status (a webhook without one) reads "status unknown", never blank. */
/** A status in words; it may be a notification's claim (outside text), so always escaped. */
export const transferWord = (status: string) =>
  outside(status.toLowerCase().replace(/_/g, ' '), 60) || 'status unknown';

/**
 * Thread lines under the card: `${id}|${kind}|${detail}`. Plain sentences (no *bold*): the
 * text is also what a notification shows, where mrkdwn would appear raw.
 */
/** A mention our own code appends to a thread ref: a user, a user group, or @here; nothing else. */
const MENTION_TOKEN = /^<(@[UW][A-Z0-9]+|!subteam\^S[A-Z0-9]+|!here)>$/;

/**
 * A thread ref's "<status> <mentions…>": the status as withdrawal-notify wrote it (URI-encoded,
 * so a status holding spaces cannot pose as mentions; older refs hold it raw), and only the
 * mentions in our own forms.
 */
function statusAndCall(detail: string): { status: string; call: string } {
  const [raw = '', ...rest] = detail.split(' ');
  let status = raw;
  try {
    status = decodeURIComponent(raw);
  } catch {
    /* an older ref's raw status */
  }
  const mentions = rest.filter((m) => MENTION_TOKEN.test(m));
  return { status, call: mentions.length ? ` ${mentions.join(' ')}` : '' };
}

export function renderThread(
  ref: string,
  get: (id: string) => WithdrawalRequest | undefined,
  net: ExplorerNet,
): Rendered | null {
  const [id = '', kind, detail = ''] = ref.split('|');
  const r = get(id);
  if (!r) return null;
  switch (kind) {
    case 'reminder': {
      if (r.state !== 'pending') return null;
      const left = Math.max(0, r.tier.approvals - r.approvals.length);
      return {
        text: `⏰ Reminder: this request expires ${slackDate(r.expiresAt)} and still needs ${left} approval${left === 1 ? '' : 's'}. ${detail}`,
      };
    }
    case 'policy': {
      // Governed policy: the policy in force asks for more than this request had; the approvers are asked again.
      if (r.state !== 'pending') return null;
      const why = r.history.at(-1)?.note ?? 'the policy in force asks for more approvals';
      return { text: `🔁 Back to waiting: ${why}. ${detail}`.trim() };
    }
    case 'held':
      return {
        text: `⏸️ On hold: ${r.hold ? holdWhy(r.hold, get) : ''} Paying this one too may pay the client twice: an admin must check the wallet service, then send it anyway or reject it.${r.hold?.kind === 'retyped' ? ' If this is a separate payout (a recurring one, say), an admin can send it anyway.' : ''} ${detail}`.trim(),
      };
    case 'released':
      return {
        text: `▶️ Hold released by <@${r.holdReleased?.by ?? ''}>: “${outside(r.holdReleased?.reason ?? '', 500)}”. It is sent once its approvals are complete.`,
      };
    case 'double-payment':
    case 'double-payment-original': {
      const { status, call } = statusAndCall(detail);
      const reported = `by the wallet service (${reportedStatusWords(status === '-' ? '' : status || r.doublePaymentRisk?.status)})`;
      return {
        text:
          kind === 'double-payment'
            ? `🚨 Both may have been paid: this request was already ${stateWords(r.state)} when the earlier request of the same payout was reported ${reported} by the wallet service. Check the wallet service and recover the duplicate.${call}`
            : `🚨 Both may have been paid: this payout was requested again (ref \`${shortRef(r)}\`, ${amountText(r)}), which was already sent when the wallet service reported this one ${reported}. Check the wallet service and recover the duplicate.${call}`,
      };
    }
    case 'approved': {
      const n = r.approvals.findIndex((a) => a.user === detail) + 1;
      return { text: `<@${detail}> approved${n > 0 ? ` (${n} of ${r.tier.approvals})` : ''}.` };
    }
    case 'notice-disagreed': {
      // The admins, once per request (notice.ts); the claim is outside text, escaped.
      const d = r.notice?.disagreed;
      if (!d) return null;
      return {
        text: `🚨 A notification disagreed with the wallet service: it may be forged. It said ${transferWord(d.status)}, the wallet service says ${outside(d.service, 40)}; this request is ${stateLabel(r)}, as the wallet service says. Nothing was changed on the notification's word; check who can post to the webhook URL (\`/treasury webhook rotate\`). ${detail}`.trim(),
      };
    }
    case 'confirmation':
    case 'contradiction': {
      const { status, call } = statusAndCall(detail);
      const url = explorerTxUrl(r.confirmation?.transactionHash ?? undefined, r.currency, r.network, net);
      const tx = r.confirmation?.transactionHash ? ` · ${link(url, 'transaction')}` : '';
      if (kind === 'contradiction') {
        return {
          text: `🚨 The wallet service reports this transfer as ${transferWord(status)}, but here it is ${stateLabel(r)}. Check the wallet service and the transaction list.${tx}${call}`,
        };
      }
      const warn = status === 'FAILED' || status === 'NOT_PROPAGATED' ? '🚨 ' : '';
      return {
        text: `${warn}Transfer status from the wallet service: ${transferWord(status)}${tx}${warn ? call : ''}`,
      };
    }
    default:
      return { text: `${kind}: ${detail}` };
  }
}

/** Where a DM points: the card's permalink, else the approvals channel. */
export interface CardPointer {
  permalink?: string;
  channel: string;
}

const cardLink = (p: CardPointer) =>
  p.permalink ? link(p.permalink, 'Open the card') : `The card is in <#${p.channel}>.`;

/**
 * DMs to the requester: `${id}|${event}`, one per event: the state's words first, then what
 * the person needs, then the card.
 */
export function renderDm(
  ref: string,
  get: (id: string) => WithdrawalRequest | undefined,
  card: (id: string) => CardPointer,
): Rendered | null {
  const [id = '', event] = ref.split('|');
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
  const text = lines[event ?? ''];
  return text ? { text: `${text}\n${cardLink(card(r.id))}` } : null;
}

/** The DM asking an approver to decide: `${id}|${approver}`. Nothing once it is no longer waiting for them. */
export function renderApproverDm(
  ref: string,
  get: (id: string) => WithdrawalRequest | undefined,
  card: (id: string) => CardPointer,
): Rendered | null {
  const [id = '', user = ''] = ref.split('|');
  const r = get(id);
  if (r?.state !== 'pending' || r.approvals.some((a) => a.user === user)) return null;
  const flags = riskFlags(r);
  return {
    text:
      `⏳ Your approval is asked · ${amountText(r)} on ${r.network} to ${outsideCode(shorten(r.destination))}, requested by <@${r.requester}>. ` +
      `Expires ${slackDate(r.expiresAt)}.${flags.length ? ` ⚠️ ${flags.join(', ')}.` : ''}\n${cardLink(card(r.id))}`,
  };
}

/** An audit entry as `/treasury audit` shows it; only the fields a row needs. */
export interface AuditRowInput {
  actor: string;
  action: string;
  subject: string;
  details: Record<string, unknown>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/**
 * One audit row that reads on its own: who, what happened in the card's words, the amount,
 * the payee, the short reference and the reason. Entries written before their details
 * carried the amount and payee are completed from the stored request.
 */
export function auditRowText(e: AuditRowInput, get: (id: string) => WithdrawalRequest | undefined): string {
  const d = e.details;
  const r = get(e.subject);
  const amount = str(d.amount) ?? r?.amount;
  const currency = str(d.currency) ?? r?.currency;
  const destination = str(d.destination) ?? r?.destination;
  const network = str(d.network) ?? r?.network;
  const reference = str(d.merchantReference) ?? r?.merchantReference;
  const delivered = str(d.delivered);
  const parts = [
    auditWhat(e) ?? e.action,
    amount && currency
      ? `${outside(formatAmount(amount, currency))}${network ? ` on ${outside(network, 30)}` : ''}${destination ? ` to ${outsideCode(shorten(destination))}` : ''}`
      : outsideCode(shorten(e.subject, 8, 4)),
    delivered && currency && amount !== delivered ? `delivered ${outside(formatAmount(delivered, currency))}` : '',
    str(d.fee) ? `fee ${outside(formatAmount(str(d.fee)!, str(d.feeCurrency) ?? currency))}` : '',
    reference ? `ref ${outsideCode(shortRef({ merchantReference: reference }))}` : '',
    // A verification's reason is a code; its words are in `why` (a step-up's `why` is a code: its words are above).
    str(d.why ?? d.reason) && !e.action.startsWith('stepup_') ? `“${outside(str(d.why ?? d.reason), 200)}”` : '',
    str(d.note) && e.action !== 'request' ? `“${outside(str(d.note), 200)}”` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

/**
 * What an audit entry records, in the card's words ("⏸️ held, not sent: sends are frozen"): the
 * one vocabulary of `/treasury audit` and `/treasury withdrawal`'s story. Undefined for an
 * action it has no words for.
 */
export function auditWhat(e: Pick<AuditRowInput, 'action' | 'details'>): string | undefined {
  const d = e.details;
  const outcome = str(d.outcome);
  const status = str(d.status);
  const what: Record<string, string> = {
    request: 'requested',
    refuse: '🚫 not requested',
    approve:
      typeof d.approvals === 'number' && typeof d.required === 'number'
        ? `approved (${d.approvals} of ${d.required})`
        : 'approved',
    reject: '⛔ rejected',
    send: '🔄 sending',
    result: d.ignored
      ? 'late answer from the wallet service (already settled)'
      : outcome === 'completed'
        ? '✅ sent'
        : outcome === 'failed'
          ? '❌ failed'
          : 'result',
    expire: '⌛ expired',
    remind: 'approvers reminded',
    unknown: '⚠️ outcome unknown',
    reconcile:
      outcome === 'never_executed'
        ? '❌ not sent (the wallet service has no record of it)'
        : d.via === 'status'
          ? outcome === 'completed'
            ? '✅ sent (confirmed by the wallet service)'
            : '❌ failed (reported by the wallet service)'
          : outcome === 'completed'
            ? '✅ sent (found in the transaction list)'
            : '❌ failed (found in the transaction list)',
    resolve: outcome === 'sent' ? '✅ resolved as sent' : '❌ resolved as not sent',
    webhook: d.claim
      ? `a notification says ${transferWord(status ?? '')} (not confirmed yet: the wallet service is asked)`
      : `transfer ${transferWord(status ?? 'update')}`,
    webhook_contradiction: `🚨 the wallet service reports it ${transferWord(status ?? '')}, contradicting the card`,
    webhook_checked: `a notification (${transferWord(status ?? '')}) checked with the wallet service (${transferWord(str(d.service) ?? '')}): it agrees`,
    service_status: `the wallet service reports it ${transferWord(status ?? '')}`,
    service_contradiction: `🚨 the wallet service reports it ${transferWord(status ?? '')}, contradicting the card`,
    notice_contradiction: `🚨 a notification disagreed with the wallet service: it may be forged (it said ${transferWord(status ?? '')}, the service says ${transferWord(str(d.service) ?? '')})`,
    // Governed policy (src/policy/governance) and its re-check of requests.
    policy_accept_first: 'treasury policy accepted (the first one loaded)',
    policy_propose: 'policy change proposed',
    policy_approve:
      typeof d.approvals === 'number' && typeof d.required === 'number'
        ? `policy change approved (${d.approvals} of ${d.required})`
        : 'policy change approved',
    policy_approve_refused: 'policy change approval refused (not an admin)',
    policy_reject_refused: 'policy change rejection refused (not an admin)',
    policy_reject: '⛔ policy change rejected',
    policy_apply: '✅ policy change applied',
    policy_supersede: 'policy change replaced (the file changed again)',
    policy_invalid: '⚠️ policy file unusable, nothing changed',
    policy_recheck_waits: '🔁 back to waiting: the policy in force asks for more',
    policy_recheck_refused: '⛔ refused by the policy in force',
    policy_recheck_approved: 'approved under the policy in force',
    // The gates (src/verification, src/freeze).
    verification:
      d.verdict === 'verified'
        ? '🔐 the wallet service asked to verify it: confirmed'
        : '🚨 the wallet service asked to verify it: refused',
    send_held: '⏸️ held, not sent: sends are frozen',
    // A repeat of a "never executed" request whose original was reported after all (repeat-hold.ts).
    hold: d.precaution
      ? '⏸️ on hold as a precaution: a notification (not confirmed by the wallet service) names the earlier request of the same payout'
      : '⏸️ on hold: the wallet service now reports the earlier request of the same payout',
    send_held_repeat: '⏸️ not sent: on hold (the wallet service now reports the earlier request of the same payout)',
    hold_release: '▶️ hold released (send anyway)',
    double_payment_risk:
      '🚨 both may have been paid (the wallet service reported the earlier request of the same payout after it had no record of it)',
    freeze: '🛑 froze all sends',
    freeze_refused: 'freeze refused',
    unfreeze_request: 'asked to unfreeze (a second admin must confirm)',
    unfreeze_refused: 'unfreeze refused',
    unfreeze: '▶️ confirmed the unfreeze: sends resumed',
    // Step-up (src/stepup): an authenticator code asked before approving a large request.
    stepup_enrol_start: 'started setting up authenticator codes',
    stepup_enrolled: '🔐 set up authenticator codes',
    stepup_enrol_abandoned: 'authenticator set-up abandoned',
    stepup_verified: '🔐 authenticator code confirmed',
    stepup_wrong_code:
      d.why === 'replayed' ? '🚫 authenticator code refused (already used)' : '🚫 authenticator code refused',
    stepup_refused_locked: '🔒 authenticator code refused: codes are locked after repeated wrong ones',
    stepup_locked: '🔒 authenticator codes locked after repeated wrong ones',
    stepup_unreadable: '⚠️ authenticator set-up unreadable (the app’s key changed): set it up again',
  };
  return what[e.action];
}
