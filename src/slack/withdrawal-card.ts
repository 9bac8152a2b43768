/**
 * How a withdrawal request looks in Slack: the approval card (updated in place after every
 * decision), its thread lines, and the requester's DMs. Each renderer reads the request's
 * CURRENT state, so an outbox entry sent late shows what is true when it is sent.
 */
import type { KnownBlock } from '@slack/types';
import { slackDate } from '../format/time.js';
import type { Rendered } from '../outbox/index.js';
import { explorerAddressUrl, explorerTxUrl, type ExplorerNet } from '../wallet/explorers.js';
import type { WithdrawalRequest, WithdrawalService } from '../withdrawals/index.js';
import { formatAmount } from '../withdrawals/index.js';
import { actions, context, divider, esc, fields, header, link, mention, section, shorten } from './blocks.js';

export const CARD_RENDERER = 'withdrawal.card';
export const THREAD_RENDERER = 'withdrawal.thread';
export const DM_RENDERER = 'withdrawal.dm';
export const ACTIONS = {
  approve: 'wd_approve',
  reject: 'wd_reject',
  resolveSent: 'wd_resolve_sent',
  resolveNotSent: 'wd_resolve_not_sent',
} as const;

export const cardKey = (id: string) => `withdrawal:${id}`;

const who = (ids: readonly string[]) => ids.map((id) => mention(id, 'anyone')).join(', ');

export function amountText(r: Pick<WithdrawalRequest, 'amount' | 'currency'>): string {
  return formatAmount(r.amount, r.currency);
}

function destinationText(r: WithdrawalRequest, net: ExplorerNet): string {
  const addr = link(explorerAddressUrl(r.destination, r.currency, r.network, net), r.destination);
  const notes: string[] = [];
  if (r.allowlist.status === 'listed') notes.push(`:white_check_mark: allowlisted: ${esc(r.allowlist.label ?? '')}`);
  if (r.allowlist.status === 'unlisted') notes.push(':warning: *not on the allowlist*');
  if (r.allowlist.neverPaidBefore) notes.push(':warning: never paid before');
  return `${addr}${notes.length ? `\n${notes.join(' · ')}` : ''}`;
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

function outcomeText(r: WithdrawalRequest): string | undefined {
  switch (r.state) {
    case 'pending':
      return undefined;
    case 'executing':
      return ':arrows_counterclockwise: *Approved.* Sending to the wallet service…';
    case 'completed': {
      const res = r.result;
      const fee = res?.fee ? `, fee ${formatAmount(res.fee, res.feeCurrency ?? r.currency)}` : '';
      const amount = res?.amount ? formatAmount(res.amount, r.currency) : amountText(r);
      const by = res?.source === 'reconcile' ? ' (confirmed from the transaction list)' : res?.source === 'admin' ? ' (marked as sent by an admin)' : '';
      const odd = res?.mismatches?.length ? `\n:rotating_light: *The service's answer differs from what was approved:* ${res.mismatches.map(esc).join('; ')}. An admin must check it.` : '';
      return `:white_check_mark: *Sent*${by}: ${amount} withdrawn${fee}. Service reference \`${res?.serviceReference ?? 'unknown'}\`${odd}`;
    }
    case 'failed':
      return `:x: *Failed:* ${esc(r.error?.message ?? 'no reason given')}${r.error?.kind === 'rejected' ? ' Nothing was sent; it will not be retried.' : ''}`;
    case 'rejected':
      return `:no_entry: *Rejected* by <@${r.rejection?.user}>: “${esc(r.rejection?.reason ?? '')}”`;
    case 'expired':
      return `:hourglass: *Expired* at ${slackDate(r.expiresAt)} without enough approvals. Nothing was sent.`;
    case 'unknown':
      return (
        `:warning: *Outcome unknown*: ${esc(r.unknownReason ?? 'the wallet service did not confirm the result')}. ` +
        'The money may have moved. The transaction list is being checked for its reference; *do not request it again*. An admin can resolve it here.'
      );
  }
}

export function renderCard(r: WithdrawalRequest, service: Pick<WithdrawalService, 'dailyUsage'>, net: ExplorerNet): Rendered {
  const usage = service.dailyUsage(r.currency);
  const blocks: KnownBlock[] = [
    header(`Withdrawal request: ${amountText(r)} on ${r.network}`),
    fields([
      ['Requested by', `<@${r.requester}>`],
      ['Amount', `*${amountText(r)}*`],
      ['Network', r.network],
      ['Client', esc(r.clientEmail)],
      ['Destination', destinationText(r, net)],
      ['Note', r.note ? esc(r.note) : '_none_'],
    ]),
    section(
      `*Approvals* (tier ${r.tier.max ? `up to ${formatAmount(r.tier.max, r.currency)}` : 'above every limit'}: ${r.tier.approvals} needed${r.tier.mustInclude.length ? `, including ${who(r.tier.mustInclude)}` : ''})\n${approvalsText(r)}`,
    ),
  ];
  const outcome = outcomeText(r);
  if (outcome) blocks.push(section(outcome));
  if (r.confirmation) {
    const url = explorerTxUrl(r.confirmation.transactionHash ?? undefined, r.currency, r.network, net);
    blocks.push(context(`Transfer status: *${r.confirmation.status}*${r.confirmation.transactionHash ? ` · ${link(url, shorten(r.confirmation.transactionHash, 10, 6))}` : ''}`));
  }
  if (r.state === 'pending') {
    blocks.push(
      actions(`wd:${r.id}`, [
        { text: 'Approve', actionId: ACTIONS.approve, value: r.id, style: 'primary' },
        { text: 'Reject…', actionId: ACTIONS.reject, value: r.id, style: 'danger' },
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
        usage.remaining !== null ? `${r.currency} daily limit left: ${formatAmount(usage.remaining, r.currency)} of ${formatAmount(usage.limit ?? '0', r.currency)}` : '',
        `Reference \`${r.merchantReference}\``,
        `Request \`${r.id}\``,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
  );
  return { text: `Withdrawal request: ${amountText(r)} on ${r.network} to ${shorten(r.destination)} (${r.state})`, blocks };
}

/** Thread lines under the card: `${id}|${kind}|${detail}`. */
export function renderThread(ref: string, get: (id: string) => WithdrawalRequest | undefined, net: ExplorerNet): Rendered | null {
  const [id = '', kind, detail = ''] = ref.split('|');
  const r = get(id);
  if (!r) return null;
  switch (kind) {
    case 'reminder': {
      if (r.state !== 'pending') return null;
      const approved = new Set(r.approvals.map((a) => a.user));
      return { text: `:alarm_clock: Reminder: this request expires ${slackDate(r.expiresAt)} and still needs ${r.tier.approvals - approved.size} approval(s). ${detail}` };
    }
    case 'approved':
      return { text: `<@${detail}> approved.` };
    case 'confirmation':
    case 'contradiction': {
      const [status = '', ...mentions] = detail.split(' ');
      const url = explorerTxUrl(r.confirmation?.transactionHash ?? undefined, r.currency, r.network, net);
      const tx = r.confirmation?.transactionHash ? ` · ${link(url, 'transaction')}` : '';
      const call = mentions.length ? ` ${mentions.join(' ')}` : '';
      if (kind === 'contradiction') {
        return {
          text: `:rotating_light: The wallet service reports this transfer as *${status}*, but here it is *${r.state}*. Check the wallet service and the transaction list.${tx}${call}`,
        };
      }
      const warn = status === 'FAILED' || status === 'NOT_PROPAGATED' ? ':rotating_light: ' : '';
      return { text: `${warn}Transfer status from the wallet service: *${status}*${tx}${warn ? call : ''}` };
    }
    default:
      return { text: `${kind}: ${detail}` };
  }
}

/** DMs to the requester: `${id}|${event}`. */
export function renderDm(ref: string, get: (id: string) => WithdrawalRequest | undefined): Rendered | null {
  const [id = '', event] = ref.split('|');
  const r = get(id);
  if (!r) return null;
  const what = `your withdrawal of ${amountText(r)} on ${r.network} to \`${shorten(r.destination)}\``;
  const lines: Record<string, string> = {
    requested: `:inbox_tray: I posted ${what} for approval. You will hear from me when it is decided.`,
    approved: `:white_check_mark: ${what} has every approval it needs and is being sent.`,
    completed: `:white_check_mark: ${what} was sent. ${outcomeText(r) ?? ''}`,
    failed: `:x: ${what} failed. ${outcomeText(r) ?? ''}`,
    rejected: `:no_entry: ${what} was rejected by <@${r.rejection?.user}>: “${esc(r.rejection?.reason ?? '')}”.`,
    expired: `:hourglass: ${what} expired before it had enough approvals. Nothing was sent.`,
    unknown: `:warning: ${what}: the wallet service did not confirm the result. It is being checked; do not request it again.`,
    resolved: `:information_source: An admin resolved ${what}: ${r.resolution?.outcome === 'sent' ? 'it was sent' : 'it was not sent'} (“${esc(r.resolution?.note ?? '')}”).`,
  };
  const text = lines[event ?? ''];
  return text ? { text } : null;
}
