/**
 * "Send anyway…" and "Reject…" on a request on hold (its earlier request of the same payout was
 * reported after all, or retyped while its payout is under way; src/withdrawals/repeat-hold.ts): asks the admin why, in a form.
 * Runs behind `requireRole('admins')`, which acks; the service checks the admin role again.
 */
import type { App, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { z } from 'zod';
import { refusal } from '../../src/slack/access.js';
import { guarded } from '../../src/slack/guard.js';
import { amountText } from '../../src/slack/withdrawal/index.js';
import type { CommandDeps } from '../deps.js';
import { holdMetaSchema, readReason, reasonModal, VIEWS } from './modals.js';
import { ephemeral, submitted } from './replies.js';
import type { ViewSubmittedArgs } from './request-submitted.js';
import { outside, outsideCode } from '../../src/format/outside.js';

type HoldArgs = Pick<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>, 'body' | 'action' | 'respond'> & {
  client: App['client'];
};

export function holdButton(deps: CommandDeps, action: 'release' | 'reject') {
  return async ({ body, action: button, respond, client }: HoldArgs): Promise<void> => {
    await guarded(deps.logger, respond, 'Hold', async () => {
      const r = deps.withdrawals.get(String(button.value ?? '').slice(0, 200));
      if (!r?.hold || !['pending', 'approved'].includes(r.state))
        return ephemeral(respond, ':information_source: This request is not on hold.');
      if (action === 'release' && r.requester === body.user.id)
        return ephemeral(respond, ':no_entry: You cannot release your own withdrawal request; ask another admin.');
      const what = `${amountText(r)} on ${r.network} to ${outsideCode(r.destination)}`;
      // Why it is held, in the words of its card (repeat-hold.ts): never "reported sent" (a Failed report holds too).
      const why =
        r.hold.kind === 'limit'
          ? `Sending it now would cross a limit of the treasury policy: ${outside(r.hold.status, 300)}.`
          : r.hold.kind === 'retyped' && r.hold.earlierState
            ? 'An earlier request with the same details is under way: unless this is a separate payout, paying this one too may pay twice.'
            : 'The wallet service reported the earlier request of the same payout after it had no record of it, so it has that request: check there that the client was not paid, or paying this one too may pay twice.';
      const intro =
        action === 'release'
          ? `Send ${what} anyway? ${why}${r.state === 'approved' ? ' It is sent as soon as you confirm.' : ' It is sent once its approvals are complete.'}`
          : `Reject ${what}? It will not be sent. ${why}`;
      await client.views.open({
        trigger_id: body.trigger_id,
        view: reasonModal(
          VIEWS.hold,
          action === 'release' ? 'Send anyway' : 'Reject withdrawal',
          action === 'release' ? 'What you checked (kept in the audit log)' : 'Reason (the requester sees it)',
          JSON.stringify({ id: r.id, action }),
          intro,
        ),
      });
    });
  };
}

/** The hold form submitted: the admin check is made again here (a form's refusal goes next to its field). */
export function holdSubmitted(deps: CommandDeps) {
  return async ({ ack, body, view }: ViewSubmittedArgs): Promise<void> => {
    let meta: z.infer<typeof holdMetaSchema>;
    try {
      meta = holdMetaSchema.parse(JSON.parse(view.private_metadata ?? ''));
    } catch {
      return void (await ack({
        response_action: 'errors',
        errors: { reason: 'This form is out of date; click the button on the card again.' },
      }));
    }
    const refused = await refusal(deps.policy.current(), 'admins', body.user.id, deps.groups);
    if (refused) return void (await ack({ response_action: 'errors', errors: { reason: refused } }));
    await submitted(deps.logger, ack, 'hold decision', () =>
      deps.withdrawals.settleHold(meta.id, body.user.id, meta.action, readReason(view.state.values)),
    );
  };
}
