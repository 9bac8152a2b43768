/**
 * Every listener's outer shell: after the ack, run the work; if anything throws, the user
 * gets a short explanation (never a stack trace or a secret) and the operators get the log.
 */
import type { RespondFn } from '@slack/bolt';
import type { Logger } from '../log.js';
import { userMessage } from './user-errors.js';

export async function guarded(
  logger: Logger,
  respond: RespondFn,
  action: string,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (err) {
    logger.error({ err, action }, 'listener failed');
    try {
      await respond({ response_type: 'ephemeral', replace_original: false, text: userMessage(err, action) });
    } catch (respondErr) {
      logger.error({ err: respondErr, action }, 'could not tell the user about a failure');
    }
  }
}

/** A user's DM channel with the app, for files and private results. */
export async function dmChannel(
  client: { conversations: { open(a: { users: string }): Promise<{ channel?: { id?: string } }> } },
  userId: string,
): Promise<string> {
  const res = await client.conversations.open({ users: userId });
  const id = res.channel?.id;
  if (!id) throw new Error('Slack did not open a DM channel');
  return id;
}
