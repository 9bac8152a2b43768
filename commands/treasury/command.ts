/**
 * /treasury <verb>: the app's own console. The verb decides the role (../table.ts), so the
 * role check is here after the lookup rather than in `requireRole` before it.
 */
import type { App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { refusal } from '../../src/slack/access.js';
import { guarded } from '../../src/slack/guard.js';
import { echo } from '../../src/slack/limits.js';
import { words } from '../../src/slack/text.js';
import type { CommandDeps } from '../deps.js';
import { TREASURY_VERBS, type VerbName, type VerbSpec } from '../table.js';
import type { VerbRun } from './verb.js';
import { VERB_RUNS } from './verbs.js';

type Verb = VerbSpec & VerbRun;

// A Map: a typed word such as "__proto__" or "constructor" must not find Object.prototype's members.
const VERB_TABLE: ReadonlyMap<string, Verb> = new Map(
  (Object.keys(TREASURY_VERBS) as VerbName[]).map((k) => [k, { ...TREASURY_VERBS[k], ...VERB_RUNS[k] }]),
);

type TreasuryCommandArgs = Pick<SlackCommandMiddlewareArgs, 'command' | 'ack' | 'respond'> & { client: App['client'] };

export function treasuryCommand(deps: CommandDeps) {
  return async ({ command, ack, respond, client }: TreasuryCommandArgs): Promise<void> => {
    await ack();
    await guarded(deps.logger, respond, 'Treasury command', async () => {
      const args = words(command.text);
      const [first = 'help', second] = args.map((a) => a.toLowerCase());
      const verb = VERB_TABLE.get(`${first} ${second ?? ''}`.trim()) ?? VERB_TABLE.get(first);
      if (!verb) {
        return void (await respond({
          response_type: 'ephemeral',
          text: `:warning: Unknown subcommand “${echo(first)}”. Try one of: ${[...VERB_TABLE.values()].map((v) => `\`${v.usage}\``).join(', ')}`,
        }));
      }
      const refused = await refusal(deps.policy.current(), verb.role, command.user_id, deps.groups);
      if (refused) return void (await respond({ response_type: 'ephemeral', text: refused }));
      await verb.run({
        deps,
        args,
        text: command.text,
        userId: command.user_id,
        respond,
        client,
        channelId: command.channel_id,
      });
    });
  };
}
