/** The thread lines under a withdrawal's card. */
import { slackDate } from '../../format/time.js';
import type { Rendered } from '../../outbox/index.js';
import { explorerTxUrl, type ExplorerNet } from '../../wallet/explorers.js';
import type { WithdrawalRequest } from '../../withdrawals/index.js';
import { outside } from '../../format/outside.js';
import { reportedStatusWords } from '../../withdrawals/hold/words.js';
import { stateWords } from '../../withdrawals/rules.js';
import { link } from '../blocks.js';
import { amountText, holdWhy, shortRef, stateLabel, transferWord } from './words.js';

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
