/**
 * Deciding from the App Home with the same facts as the card: the risk flags ("not on the
 * allowlist · never paid before"), the note, and an Approve that asks to confirm with the
 * amount and the payee (Slack's `confirm` object: the dialog is Slack's own, before any click
 * reaches the app).
 */
import type { KnownBlock } from '@slack/types';
import { outside, outsidePlain } from '../../format/outside.js';
import type { WithdrawalRequest } from '../../withdrawals/index.js';
import { payeePlain } from '../queue-words.js';
import { amountText, riskFlags } from '../withdrawal/index.js';

/** The note is cut here on the Home; the card and `/treasury withdrawal` show it whole. */
const NOTE_ROOM = 400;
/** Slack's limit for a confirmation dialog's text. */
const CONFIRM_TEXT = 300;

/** The card's flags, with its words, and the note: lines under the request's own line. */
export function decisionFacts(r: WithdrawalRequest): string {
  const flags = riskFlags(r);
  if (r.balanceAtRequest?.balance === null) flags.push('the balance could not be read when it was requested');
  const lines = [
    flags.length ? `:warning: *Check before approving:* ${flags.join(' · ')}` : '',
    r.note
      ? `*Note:* ${outside(r.note, NOTE_ROOM)}${Array.from(r.note).length > NOTE_ROOM ? ' _(shortened: the whole note is on the card)_' : ''}`
      : '_No note._',
  ].filter(Boolean);
  return `\n${lines.join('\n')}`;
}

/** "Approve 250.00 USDT on BSC to Exchange hot wallet (0x1111…1111)? ⚠️ not on the allowlist…": plain text, ≤ 300. */
export function confirmText(r: WithdrawalRequest): string {
  const flags = riskFlags(r);
  const text = [
    `Approve ${amountText(r)} on ${outsidePlain(r.network, 30)} to ${payeePlain(r)}, from client wallet ${outsidePlain(r.clientEmail, 80)}?`,
    flags.length ? `⚠️ ${flags.join(' · ')}.` : '',
    r.note ? `Note: ${outsidePlain(r.note, 120)}` : 'No note.',
  ]
    .filter(Boolean)
    .join(' ');
  return Array.from(text).length <= CONFIRM_TEXT
    ? text
    : `${Array.from(text)
        .slice(0, CONFIRM_TEXT - 1)
        .join('')}…`;
}

/** The row's Approve button (its first element) given Slack's confirmation dialog. */
export function approveButton(row: KnownBlock, r: WithdrawalRequest): KnownBlock {
  if (row.type !== 'actions') return row;
  const [approve, ...rest] = row.elements;
  if (approve?.type !== 'button') return row;
  return {
    ...row,
    elements: [
      {
        ...approve,
        confirm: {
          title: { type: 'plain_text', text: 'Approve this withdrawal?' },
          text: { type: 'plain_text', text: confirmText(r) },
          confirm: { type: 'plain_text', text: 'Approve' },
          deny: { type: 'plain_text', text: 'Cancel' },
          style: 'primary',
        },
      },
      ...rest,
    ],
  };
}
