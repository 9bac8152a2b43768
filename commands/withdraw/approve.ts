/**
 * Approve on the card. No role middleware: whether this person may approve this request
 * (approver, not the requester, the tier's must-include) is the withdrawal service's decision,
 * and its refusal says which rule it was.
 */
import type { App, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { guarded } from '../../src/slack/guard.js';
import type { CommandDeps } from '../deps.js';
import { passkeyPrompt, stepUpGate } from '../../src/slack/step-up-approve.js';
import { ephemeral } from './replies.js';

export type ButtonArgs = Pick<
  SlackActionMiddlewareArgs<BlockAction<ButtonAction>>,
  'ack' | 'body' | 'action' | 'respond'
>;

export function approve(deps: CommandDeps) {
  return async ({ ack, body, action, respond, client }: ButtonArgs & { client?: App['client'] }): Promise<void> => {
    await ack();
    await guarded(deps.logger, respond, 'Approval', async () => {
      // Above the policy's step_up_above: a modal asks for an authenticator code; above passkey_above (or for a
      // passkey holder), a private button opens the passkey page (src/slack/step-up-approve.ts).
      const gate = await stepUpGate(deps, {
        requestId: action.value ?? '',
        user: body.user.id,
        triggerId: body.trigger_id,
        client,
      });
      if (gate.kind === 'refused') return ephemeral(respond, `:no_entry: ${gate.message}`);
      if (gate.kind === 'opened') return;
      if (gate.kind === 'passkey') {
        const r = deps.withdrawals.get(action.value ?? '');
        if (r)
          return void (await respond({
            response_type: 'ephemeral',
            replace_original: false,
            ...passkeyPrompt(r, gate.url),
          }));
      }
      const outcome = await deps.withdrawals.approve(action.value ?? '', body.user.id);
      if (!outcome.ok) await ephemeral(respond, `:no_entry: ${outcome.message}`);
    });
  };
}
