/**
 * /withdraw: the request form, or a request in one line. Every decision is the withdrawal
 * service's; this only asks it and shows the answer. Runs behind `requireRole('requesters')`, which acks.
 */
import type { App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { guarded } from '../../src/slack/guard.js';
import { words } from '../../src/slack/text.js';
import { noteThresholds } from '../../src/withdrawals/index.js';
import { amountText, onHold, requestedWords, requesterFlags, shortRef } from '../../src/slack/withdrawal/index.js';
import type { CommandDeps } from '../deps.js';
import { requestModal } from './modals.js';
import { batchModal } from './batch.js';
import { parseOneLine, problemsText, spacedAmount, spacedAmountText, USAGE } from './parse.js';
import { ephemeral } from './replies.js';

const MAX_ONE_LINE = 1_000;

type WithdrawCommandArgs = Pick<SlackCommandMiddlewareArgs, 'command' | 'respond'> & { client: App['client'] };

export function withdrawCommand(deps: CommandDeps) {
  return async ({ command, respond, client }: WithdrawCommandArgs): Promise<void> => {
    await guarded(deps.logger, respond, 'Withdrawal request', async () => {
      if (!command.text.trim()) {
        await client.views.open({
          trigger_id: command.trigger_id,
          view: requestModal(undefined, undefined, noteThresholds(deps.policy.current())),
        });
        return;
      }
      if (command.text.trim().toLowerCase() === 'help') return ephemeral(respond, USAGE);
      if (command.text.trim().toLowerCase() === 'batch') {
        await client.views.open({ trigger_id: command.trigger_id, view: batchModal() });
        return;
      }
      // Five values and a note (the form allows 500 characters of note) fit well within this; a wall of text is not echoed back.
      if (command.text.length > MAX_ONE_LINE) {
        return ephemeral(
          respond,
          `:warning: That is ${command.text.length.toLocaleString('en')} characters; a one-line request takes at most ${MAX_ONE_LINE} (the note at most 500).\n${USAGE}`,
        );
      }
      // "1 000 USDT …" would be read as the amount 1 and currency "000": say what is wrong instead.
      const spaced = spacedAmount(command.text);
      if (spaced) return ephemeral(respond, `:no_entry: Not requested: ${spacedAmountText(spaced)}\n${USAGE}`);
      // Answered here, so the requester gets no DM saying the same.
      const outcome = await deps.withdrawals.request(
        { ...parseOneLine(command.text), requestedFrom: 'command' },
        command.user_id,
      );
      if (!outcome.ok) {
        const all = outcome.problems ?? [outcome];
        // In one line the note is the words after the client e-mail: say where it goes.
        const where = all.some((p) => p.rule === 'note')
          ? '\nAdd the note after the client e-mail: `/withdraw <amount> <currency> <network> <destination> <client-email> what it is for`'
          : '';
        // A value left out shifts the rest: the usage line shows the order.
        const usage = words(command.text).length < 5 ? `\n${USAGE}` : '';
        return ephemeral(respond, `:no_entry: Not requested: ${problemsText(outcome)}${where}${usage}`);
      }
      const r = outcome.request;
      const card = `approval card is in <#${deps.policy.current().channels.approvals}> (ref \`${shortRef(r)}\`).`;
      await ephemeral(
        respond,
        onHold(r)
          ? `${requestedWords(r, `${amountText(r)} on ${r.network}`, (id) => deps.withdrawals.get(id))} The ${card}`
          : `⏳ Requested · ${amountText(r)} on ${r.network} is waiting for ${r.tier.approvals} approval${r.tier.approvals > 1 ? 's' : ''}: the ${card}${requesterFlags(r)}`,
      );
    });
  };
}
