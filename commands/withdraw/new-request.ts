/**
 * "New request with the same details" on a card the wallet service never executed: opens the
 * request form filled in with that request's details. Submitting it is an ordinary NEW request
 * (a new merchant reference, the policy's approvals again); nothing is ever resent by itself.
 * Runs behind `requireRole('requesters')`, which acks.
 */
import type { App, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { guarded } from '../../src/slack/guard.js';
import { neverExecuted } from '../../src/slack/withdrawal/index.js';
import { CONTRADICTED_REFUSAL_PREFIX } from '../../src/withdrawals/hold/words.js';
import { repeatRefusal } from '../../src/withdrawals/hold/decide.js';
import { noteThresholds } from '../../src/withdrawals/index.js';
import type { CommandDeps } from '../deps.js';
import { requestModal } from './modals.js';
import { ephemeral } from './replies.js';
import { previewText } from './value-preview.js';

type NewRequestArgs = Pick<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>, 'body' | 'action' | 'respond'> & {
  client: App['client'];
};

export function newRequest(deps: CommandDeps) {
  return async ({ body, action, respond, client }: NewRequestArgs): Promise<void> => {
    await guarded(deps.logger, respond, 'New request', async () => {
      const r = deps.withdrawals.get(String(action.value ?? '').slice(0, 200));
      // The domain's predicate (repeat-hold.ts), the one the request's commit refuses with: one payout, one request.
      const refusal = r ? repeatRefusal(r, deps.withdrawals.list()) : undefined;
      if (refusal?.message.startsWith(CONTRADICTED_REFUSAL_PREFIX))
        return ephemeral(respond, `:rotating_light: ${refusal.message}`);
      if (!r || !neverExecuted(r))
        return ephemeral(
          respond,
          ':information_source: Only a request the wallet service never executed can be requested again from its card.',
        );
      if (refusal) return ephemeral(respond, `:information_source: ${refusal.message}`);
      await client.views.open({
        trigger_id: body.trigger_id,
        view: requestModal(
          {
            amount: r.amount,
            currency: r.currency,
            network: r.network,
            destination: r.destination,
            clientEmail: r.clientEmail,
            note: r.note,
          },
          r.id,
          noteThresholds(deps.policy.current()),
          // Filled in: its value line from the start (value-preview.ts keeps it up to date as it is edited).
          previewText(deps.policy.current(), deps.prices.snapshot(), r.amount, r.currency),
        ),
      });
    });
  };
}
