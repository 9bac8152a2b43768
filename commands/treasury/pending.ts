/**
 * `/treasury pending`: the team's queue. Every open withdrawal request, the one expiring first
 * at the top, with what it still needs by name; held and frozen ones marked. What it needs is
 * the domain's (src/withdrawals/queue.ts); the words are src/slack/queue-words.ts.
 */
import { currentFreeze } from '../../src/freeze/state.js';
import { outside } from '../../src/format/outside.js';
import { context, header, packLines } from '../../src/slack/blocks.js';
import { cappedQueue } from '../../src/slack/queue-words.js';
import { teamQueue } from '../../src/withdrawals/queue.js';
import { delegationIn } from '../../src/away/service.js';
import type { VerbRun } from './verb.js';

/** Rows shown: with two lines each, they pack into well under Slack's 50 blocks. */
const MAX_ROWS = 40;

export const pendingVerb: VerbRun = {
  run: async ({ deps, respond }) => {
    const frozen = currentFreeze(deps.store);
    const queue = teamQueue(
      deps.withdrawals.list(),
      deps.policy.current(),
      deps.now(),
      !!frozen,
      delegationIn(deps.store, deps.now()),
    );
    const title = queue.length ? `Waiting on the team (${queue.length})` : 'Waiting on the team';
    const lines = cappedQueue(queue, MAX_ROWS, 'on their cards in the approvals channel.');
    await respond({
      response_type: 'ephemeral',
      text: queue.length ? `${queue.length} withdrawal${queue.length === 1 ? '' : 's'} waiting` : 'Nothing is waiting',
      blocks: [
        header(title),
        ...(frozen
          ? [
              context(
                `🛑 Sends are frozen by <@${frozen.by}>: ${outside(frozen.reason, 300)} · nothing is sent until two admins unfreeze.`,
              ),
            ]
          : []),
        // The rest of Slack's 50 blocks is the list's.
        ...packLines(lines.length ? lines : ['_Nothing is waiting: no withdrawal request is open._']).slice(0, 45),
        context(`Decide on the cards in <#${deps.policy.current().channels.approvals}>, or from the app's Home tab.`),
      ],
    });
  },
};
