/**
 * "Admin: it was (not) sent…" on a card whose outcome is unknown: asks what the admin checked.
 * Runs behind `requireRole('admins')`, which acks.
 */
import type { App, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { guarded } from '../../src/slack/guard.js';
import { amountText } from '../../src/slack/withdrawal/index.js';
import type { CommandDeps } from '../deps.js';
import { reasonModal, VIEWS } from './modals.js';
import { ephemeral } from './replies.js';
import { outsideCode } from '../../src/format/outside.js';

type ResolveArgs = Pick<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>, 'body' | 'action' | 'respond'> & {
  client: App['client'];
};

export function resolve(deps: CommandDeps, outcome: 'sent' | 'not_sent') {
  return async ({ body, action, respond, client }: ResolveArgs): Promise<void> => {
    await guarded(deps.logger, respond, 'Resolution', async () => {
      const r = deps.withdrawals.get(action.value ?? '');
      if (r?.state !== 'unknown')
        return ephemeral(respond, ':information_source: This request is not waiting for a resolution.');
      const intro =
        outcome === 'sent'
          ? `Record that ${amountText(r)} to ${outsideCode(r.destination)} *was sent* (reference \`${r.merchantReference}\`)? Check the wallet service first.`
          : `Record that ${amountText(r)} to ${outsideCode(r.destination)} *was not sent* (reference \`${r.merchantReference}\`)? Check the wallet service first: a new request will be needed.`;
      await client.views.open({
        trigger_id: body.trigger_id,
        view: reasonModal(
          VIEWS.resolve,
          'Resolve withdrawal',
          'What you checked (kept in the audit log)',
          JSON.stringify({ id: r.id, outcome }),
          intro,
        ),
      });
    });
  };
}
