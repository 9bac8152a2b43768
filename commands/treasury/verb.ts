/**
 * What a /treasury verb is given and what it provides: the leaf every verb file imports, so the
 * verb table (./verbs.ts) imports the verbs and no verb imports the table back.
 */
import type { App, RespondFn } from '@slack/bolt';
import type { CommandDeps } from '../deps.js';

export interface VerbContext {
  deps: CommandDeps;
  args: string[];
  /** The command's text as Slack sent it, for a verb that takes a person (`wordsKeepingMentions`). */
  text: string;
  userId: string;
  respond: RespondFn;
  client: App['client'];
  /** Where the command was typed. */
  channelId: string;
}

export interface VerbRun {
  run(ctx: VerbContext): Promise<void>;
}
