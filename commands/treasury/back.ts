/**
 * `/treasury back`: no longer away (approval DMs again, the delegate no longer stands in). An
 * admin may end someone else's: `/treasury back @person` (audited; they are told by DM).
 */
import { hasRole, peopleIn } from '../../src/policy/people.js';
import { wordsKeepingMentions } from '../../src/slack/text.js';
import { personNamed } from './away.js';
import type { VerbRun } from './verb.js';

export const backVerb: VerbRun = {
  run: async ({ deps, text, userId, respond }) => {
    const say = (t: string) => respond({ response_type: 'ephemeral', text: t });
    const words = wordsKeepingMentions(text).slice(1);
    let target = userId;
    if (words.length) {
      const t = await personNamed(deps, words);
      if (!t.ok) return void (await say(`:warning: ${t.message}\nUsage: \`/treasury back [@person]\``));
      target = t.id;
    }
    const done = await deps.away.back(
      { actor: userId, target },
      {
        actorIsAdmin: await hasRole(deps.policy.current(), 'admins', userId, deps.groups),
        admins: await peopleIn(deps.policy.current().people.admins, deps.groups),
        name: (id) => `<@${id}>`,
      },
    );
    if (!done.ok) return void (await say(`:no_entry: ${done.message}`));
    const was = done.record.delegate ? ` <@${done.record.delegate}> no longer stands in.` : '';
    await say(
      target === userId
        ? `:wave: Welcome back: you are asked to approve withdrawals again.${was}`
        : `:wave: <@${target}> is back: they are asked to approve withdrawals again, and were told by DM.${was}`,
    );
  },
};
