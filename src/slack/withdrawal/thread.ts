/** The thread lines under a withdrawal's card. */
import { slackDate } from '../../format/time.js';
import type { Rendered } from '../../outbox/index.js';
import { explorerTxUrl, type ExplorerNet } from '../../wallet/explorers.js';
import type { WithdrawalRequest } from '../../withdrawals/index.js';
import { outside } from '../../format/outside.js';
import { reportedStatusWords } from '../../withdrawals/hold/words.js';
import { stateWords } from '../../withdrawals/rules.js';
import { waitingAgainNote } from '../../withdrawals/recheck.js';
import { link, mention } from '../blocks.js';
import { callText, decodeThreadLine } from './thread-ref.js';
import { amountText, holdWhy, limitLiftWords, shortRef, stateLabel, transferWord } from './words.js';

/** A must_include entry named as this line has always named it: a user group, or `<@id>`. */
const mustIncludeMention = (id: string) => mention(id, `<@${id}>`);

/**
 * Thread lines under the card (thread-ref.ts says what a line carries). Plain sentences (no
 * *bold*): the text is also what a notification shows, where mrkdwn would appear raw.
 */
export function renderThread(
  ref: string,
  get: (id: string) => WithdrawalRequest | undefined,
  net: ExplorerNet,
): Rendered | null {
  const line = decodeThreadLine(ref);
  const r = get(line.id);
  if (!r) return null;
  switch (line.kind) {
    case 'reminder': {
      if (r.state !== 'pending') return null;
      const left = Math.max(0, r.tier.approvals - r.approvals.length);
      return {
        text: `⏰ Reminder: this request expires ${slackDate(r.expiresAt)} and still needs ${left} approval${left === 1 ? '' : 's'}. ${callText(line.mentions)}`,
      };
    }
    case 'policy': {
      // Governed policy: the policy in force asks for more than this request had; the approvers are asked again.
      if (r.state !== 'pending') return null;
      const last = r.history.at(-1);
      const why = last?.missing
        ? waitingAgainNote(last.missing, mustIncludeMention)
        : (last?.note ?? 'the policy in force asks for more approvals');
      return { text: `🔁 Back to waiting: ${why}. ${callText(line.mentions)}`.trim() };
    }
    case 'held':
      if (r.hold?.kind === 'limit')
        return {
          text: `⏸️ Held: ${holdWhy(r.hold, get)} Nothing is sent until ${limitLiftWords(r.hold)} or an admin sends it anyway. ${callText(line.mentions)}`.trim(),
        };
      return {
        text: `⏸️ On hold: ${r.hold ? holdWhy(r.hold, get) : ''} Paying this one too may pay the client twice: an admin must check the wallet service, then send it anyway or reject it.${r.hold?.kind === 'retyped' ? ' If this is a separate payout (a recurring one, say), an admin can send it anyway.' : ''} ${callText(line.mentions)}`.trim(),
      };
    case 'released':
      return {
        text: `▶️ Hold released by <@${r.holdReleased?.by ?? ''}>: “${outside(r.holdReleased?.reason ?? '', 500)}”. It is sent once its approvals are complete.`,
      };
    case 'double-payment':
    case 'double-payment-original': {
      const call = line.mentions.length ? ` ${callText(line.mentions)}` : '';
      const reported = `by the wallet service (${reportedStatusWords(line.status || r.doublePaymentRisk?.status)})`;
      return {
        text:
          line.kind === 'double-payment'
            ? `🚨 Both may have been paid: this request was already ${stateWords(r.state)} when the earlier request of the same payout was reported ${reported} by the wallet service. Check the wallet service and recover the duplicate.${call}`
            : `🚨 Both may have been paid: this payout was requested again (ref \`${shortRef(r)}\`, ${amountText(r)}), which was already sent when the wallet service reported this one ${reported}. Check the wallet service and recover the duplicate.${call}`,
      };
    }
    case 'approved': {
      const n = r.approvals.findIndex((a) => a.user === line.user) + 1;
      const stoodIn = r.approvals[n - 1]?.for;
      const forWhom = stoodIn?.length ? ` (for ${stoodIn.map((u) => `<@${u}>`).join(', ')})` : '';
      return { text: `<@${line.user}>${forWhom} approved${n > 0 ? ` (${n} of ${r.tier.approvals})` : ''}.` };
    }
    case 'notice-disagreed': {
      // The admins, once per request (notice.ts); the claim is outside text, escaped.
      const d = r.notice?.disagreed;
      if (!d) return null;
      return {
        text: `🚨 A notification disagreed with the wallet service: it may be forged. It said ${transferWord(d.status)}, the wallet service says ${outside(d.service, 40)}; this request is ${stateLabel(r)}, as the wallet service says. Nothing was changed on the notification's word; check who can post to the webhook URL (\`/treasury webhook rotate\`). ${callText(line.mentions)}`.trim(),
      };
    }
    case 'confirmation':
    case 'contradiction': {
      const { status } = line;
      const call = line.mentions.length ? ` ${callText(line.mentions)}` : '';
      const url = explorerTxUrl(r.confirmation?.transactionHash ?? undefined, r.currency, r.network, net);
      const tx = r.confirmation?.transactionHash ? ` · ${link(url, 'transaction')}` : '';
      if (line.kind === 'contradiction') {
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
      return { text: `${line.name}: ${line.detail}` };
  }
}
