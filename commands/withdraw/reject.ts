/** Reject… on the card (or the App Home): asks for a reason in a form, after checking the person may reject. */
import type { App } from '@slack/bolt';
import { guarded } from '../../src/slack/guard.js';
import { amountText } from '../../src/slack/withdrawal/index.js';
import type { CommandDeps } from '../deps.js';
import type { ButtonArgs } from './approve.js';
import { reasonModal, VIEWS } from './modals.js';
import { ephemeral } from './replies.js';
import { outsideCode } from '../../src/format/outside.js';

export function reject(deps: CommandDeps) {
  return async ({ ack, body, action, respond, client }: ButtonArgs & { client: App['client'] }): Promise<void> => {
    await ack();
    await guarded(deps.logger, respond, 'Rejection', async () => {
      // Before asking for a reason: someone who may not reject is told so at once.
      const refused = await deps.withdrawals.checkDecision(action.value ?? '', body.user.id, 'reject');
      if (refused && !refused.ok) return ephemeral(respond, `:no_entry: ${refused.message}`);
      const r = deps.withdrawals.get(action.value ?? '')!;
      await client.views.open({
        trigger_id: body.trigger_id,
        view: reasonModal(
          VIEWS.reject,
          'Reject withdrawal',
          'Reason (the requester sees it)',
          r.id,
          `Reject ${amountText(r)} on ${r.network} to ${outsideCode(r.destination)}?`,
        ),
      });
    });
  };
}
