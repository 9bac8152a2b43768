/**
 * /treasury freeze <reason>, /treasury unfreeze and the freeze notice's Unfreeze button. They
 * route and render; what is allowed (admins, two distinct
 * admins to unfreeze) is the freeze service's decision (src/freeze/).
 */
import type { BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { FreezeOutcome } from '../../src/freeze/service.js';
import { SECOND_ADMIN_HOW } from '../../src/slack/freeze-notice.js';
import { freezeRefusalText } from '../../src/slack/freeze-words.js';
import { guarded } from '../../src/slack/guard.js';
import type { CommandDeps } from '../deps.js';
import { ephemeral } from '../withdraw/replies.js';
import type { VerbRun } from './verb.js';

function outcomeText(deps: CommandDeps, o: FreezeOutcome): string {
  if (!o.ok) return `:no_entry: ${freezeRefusalText(o)}`;
  const channel = `<#${deps.policy.current().channels.approvals}>`;
  switch (o.event) {
    case 'frozen':
      return `:octagonal_sign: Sends are frozen: nothing is sent until two admins unfreeze. The notice is in ${channel}.${o.secondAdminMissing ? `\n${SECOND_ADMIN_HOW}` : ''}`;
    case 'unfreeze-requested':
      return o.secondAdminMissing
        ? `Your request to unfreeze is recorded, but sends stay frozen. ${SECOND_ADMIN_HOW}`
        : `Your request to unfreeze is recorded. Sends stay frozen until a second, different admin confirms with *Confirm unfreeze* on the freeze notice in ${channel}.`;
    case 'unfrozen':
      return ':arrow_forward: Sends resumed. Withdrawals approved during the freeze are being sent now.';
  }
}

export const freezeVerb: VerbRun = {
  run: async ({ deps, args, userId, respond }) => {
    // args[0] is the verb itself; the rest, as typed, is the reason.
    const outcome = await deps.freeze.freeze(userId, args.slice(1).join(' '));
    await respond({ response_type: 'ephemeral', text: outcomeText(deps, outcome) });
  },
};

export const unfreezeVerb: VerbRun = {
  run: async ({ deps, userId, respond }) => {
    const outcome = await deps.freeze.unfreeze(userId, { confirm: false });
    await respond({ response_type: 'ephemeral', text: outcomeText(deps, outcome) });
  },
};

/** The freeze notice's button: asks to unfreeze, or (a second admin) confirms. */
export function unfreezeClicked(deps: CommandDeps) {
  return async ({
    ack,
    body,
    action,
    respond,
  }: Pick<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>, 'ack' | 'body' | 'action' | 'respond'>) => {
    await ack();
    await guarded(deps.logger, respond, 'Unfreeze', async () => {
      const outcome = await deps.freeze.unfreeze(body.user.id, { confirm: true, freezeId: action.value ?? '' });
      await ephemeral(respond, outcomeText(deps, outcome));
    });
  };
}
