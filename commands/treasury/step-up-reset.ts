/**
 * `/treasury stepup reset @person`: an admin clears someone's authenticator codes (a lost
 * phone): their old codes stop working, they are told by DM (the notice is written in the same
 * commit as the reset) and must set them up again from the App Home. Never one's own: another
 * admin must, so a stolen admin Slack account cannot swap its own codes.
 */
import { z } from 'zod';
import { hasRole } from '../../src/policy/people.js';
import { echo } from '../../src/slack/limits.js';
import type { VerbRun } from './verbs.js';

/** `<@U123>`, `@U123` (what `words` leaves of `<@U123|name>`) or a bare user id. */
const targetSchema = z
  .string()
  .transform((t) => /^<?@?([UW][A-Z0-9]+)(\|[^>]*)?>?$/.exec(t)?.[1] ?? t)
  .pipe(z.string().regex(/^[UW][A-Z0-9]{2,}$/));

export const stepUpResetVerb: VerbRun = {
  run: async ({ deps, args, userId, respond }) => {
    const say = (text: string) => respond({ response_type: 'ephemeral', text });
    const target = targetSchema.safeParse(args[2] ?? '');
    if (!target.success || args.length > 3)
      return void (await say(
        `:warning: Say whose codes to reset: \`/treasury stepup reset @person\`${args[2] ? ` (“${echo(args.slice(2).join(' '))}” is not one person)` : ''}.`,
      ));
    const isAdmin = await hasRole(deps.policy.current(), 'admins', userId, deps.groups);
    const done = await deps.stepUp.reset(userId, target.data, isAdmin);
    if (!done.ok) return void (await say(`:no_entry: ${done.message}`));
    await say(
      `:white_check_mark: Authenticator codes of <@${target.data}> are reset: their old codes no longer work. They have been told by DM and must set up codes again from the app’s Home tab before approving large withdrawals.`,
    );
  },
};
