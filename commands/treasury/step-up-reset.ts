/**
 * `/treasury stepup reset @person`: an admin clears someone's authenticator codes (a lost
 * phone): their old codes stop working, they are told by DM (the notice is written in the same
 * commit as the reset) and must set them up again from the App Home. Never one's own: another
 * admin must, so a stolen admin Slack account cannot swap its own codes.
 */
import { outside } from '../../src/format/outside.js';
import { hasRole } from '../../src/policy/people.js';
import { wordsKeepingMentions } from '../../src/slack/text.js';
import type { VerbRun } from './verb.js';

export const stepUpResetVerb: VerbRun = {
  run: async ({ deps, text, userId, respond }) => {
    const say = (text: string) => respond({ response_type: 'ephemeral', text });
    // "@Dave", "Dave Li" or an @-mention: the words after the verb name one person (src/slack/people.ts).
    // The mention stays a token: its label ("@dave") must not be looked up as a name.
    const named = wordsKeepingMentions(text).slice(2).join(' ');
    const usage = 'Usage: `/treasury stepup reset @person`';
    if (!named) return void (await say(`:warning: Say whose codes to reset. ${usage}`));
    const target = await deps.people.resolve(named);
    if (!target.ok) return void (await say(`:warning: ${outside(target.message, 600)}\n${usage}`));
    const isAdmin = await hasRole(deps.policy.current(), 'admins', userId, deps.groups);
    // Found from a typed name: say who by name and handle, since a mention renders as their display name.
    const who = target.byName
      ? `\nFound by the name you typed: ${outside(target.byName.name, 80)} (@${outside(target.byName.handle, 80)}).`
      : '';
    const done = await deps.stepUp.reset(userId, target.id, isAdmin);
    if (!done.ok) {
      const why =
        done.reason === 'not_enrolled'
          ? `<@${done.target}> has no authenticator codes set up: there is nothing to reset.`
          : done.message;
      return void (await say(`:no_entry: ${why}${who}`));
    }
    await say(
      `:white_check_mark: Authenticator codes of <@${target.id}> are reset: their old codes no longer work. They have been told by DM and must set up codes again from the app’s Home tab before approving large withdrawals.${who}`,
    );
  },
};
