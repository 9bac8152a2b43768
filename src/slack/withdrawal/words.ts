/**
 * The one vocabulary of a withdrawal in Slack: its state's label, amounts and references, why it
 * is held, and the names the card's buttons and renderers go by. Shared by the card, its thread,
 * the DMs, the App Home and the commands.
 */
import type { ScreeningInfo } from '../../screening/types.js';
import { shortAddress } from '../../screening/lookalike.js';
import { ageWords, listName } from '../../screening/words.js';
import type { FeeEstimate, WithdrawalRequest } from '../../withdrawals/index.js';
import type { RepeatHold } from '../../withdrawals/types.js';
import { expectedSettlement, formatAmount, recognisedClaim, settlementOf } from '../../withdrawals/index.js';
import { slackDate } from '../../format/time.js';
import { outside } from '../../format/outside.js';
import { isNeverExecuted, isNeverExecutedContradicted } from '../../withdrawals/hold/family.js';
import { reportedStatusWords } from '../../withdrawals/hold/words.js';
import { stateWords } from '../../withdrawals/rules.js';
import { mention } from '../blocks.js';
import { CONTRADICTED_NEVER_EXECUTED } from './hold-words.js';

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
export function earlierText(
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

/** Why it is held, in plain words (the card, its thread line, the requester's DM). */
export function holdWhy(
  h: NonNullable<WithdrawalRequest['hold']>,
  get: ((id: string) => WithdrawalRequest | undefined) | undefined,
): string {
  const anyReport = 'any report means the wallet service has that request, so it may be paid.';
  if (h.kind === 'limit') return `${outside(h.status, 300)}.`;
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

/** What lifts a limit hold, in words: the window's room, or (a stale sanctions list alone) the list read again. */
export function limitLiftWords(h: Pick<RepeatHold, 'rules'>): string {
  return h.rules?.length && h.rules.every((r) => r === 'stale_list')
    ? 'the sanctions list is read again'
    : 'the window makes room';
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
    return `⏸️ Requested, on hold · ${what}: ${holdWhy(r.hold, get)} Nothing is sent until an admin chooses *Send anyway* or *Reject*; approvals can still be given.${requesterFlags(r)}`;
  return `⏳ Requested · ${what} is waiting for ${r.tier.approvals} approval${r.tier.approvals > 1 ? 's' : ''}.${requesterFlags(r)}`;
}

/** What the requester must check, under their answer: the screening's warnings (a look-alike first), then a new client. */
export function requesterFlags(r: Pick<WithdrawalRequest, 'newClient' | 'clientEmail' | 'screening'>): string {
  const s = screeningFlags(r.screening);
  return `${s.length ? `\n⚠️ Check the destination: ${s.join(' · ')}.` : ''}${newClientWords(r)}`;
}

/** The flag on a request whose client the app had never seen, for the requester's answer; '' otherwise. */
export function newClientWords(r: Pick<WithdrawalRequest, 'newClient' | 'clientEmail'>): string {
  return r.newClient
    ? `\n⚠️ New client: no address or transaction on record for ${outside(r.clientEmail)}. The wallet service pays only from a client’s generated wallet: check the e-mail (\`/address\` shows the client’s address) before it is approved.`
    : '';
}

export const cardKey = (id: string) => `withdrawal:${id}`;
/** The request a card's key names; undefined for any other key (its thread's, its DMs'). */
export const cardRequestId = (key: string): string | undefined => {
  const id = key.startsWith('withdrawal:') ? key.slice('withdrawal:'.length) : '';
  return id && !id.includes(':') ? id : undefined;
};

/** Who rejected: a mention, never `<@undefined>` for a record written without one. */
export const rejecter = (r: Pick<WithdrawalRequest, 'rejection'>) =>
  r.rejection?.user === 'system' ? 'the treasury policy' : r.rejection?.user ? `<@${r.rejection.user}>` : 'an approver';

export const who = (ids: readonly string[]) => ids.map((id) => mention(id, 'anyone')).join(', ');

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
export function riskFlags(r: Pick<WithdrawalRequest, 'allowlist' | 'newClient' | 'screening'>): string[] {
  // Screening first: a look-alike destination is the likeliest loss on this card.
  const out: string[] = screeningFlags(r.screening);
  if (r.allowlist.status === 'unlisted')
    out.push(r.allowlist.usableFrom ? 'allowlisted address still cooling off' : 'not on the allowlist');
  if (r.allowlist.neverPaidBefore) out.push('never paid before');
  if (r.newClient) out.push('new client: no address or transaction on record');
  return out;
}

/** What the screening found that an approver must weigh (src/screening): a look-alike, a stale list, the provider down. */
export function screeningFlags(s: ScreeningInfo | undefined): string[] {
  if (!s) return [];
  const out: string[] = [];
  if (s.lookalike) {
    const more = s.lookalike.extraApprovals
      ? `: it needs ${s.lookalike.extraApprovals} more approval${s.lookalike.extraApprovals === 1 ? '' : 's'}`
      : '';
    out.push(
      `looks like *${outside(s.lookalike.label, 100)}* (${outside(shortAddress(s.lookalike.address), 20)}), but is a different address${more}`,
    );
  }
  if (s.stale)
    out.push(
      `the sanctions list is ${ageWords(s.stale.ageMs)} old${s.list ? ` (${listName(s.list)})` : ''}: it could not be refreshed`,
    );
  if (s.provider === 'down') out.push('the sanctions screening service could not be reached: the list alone decided');
  return out;
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

/** A webhook status name in words: "CONFIRMED" -> "confirmed", "NOT_PROPAGATED" -> "not propagated". */
/** An empty status (a webhook without one) reads "status unknown", never blank. */
/** A status in words; it may be a notification's claim (outside text), so always escaped. */
export const transferWord = (status: string) =>
  outside(status.toLowerCase().replace(/_/g, ' '), 60) || 'status unknown';
