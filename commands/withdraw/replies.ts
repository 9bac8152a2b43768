/** How the withdrawal listeners answer: ephemeral lines, and a form's errors instead of a silent failure. */
import type { RespondFn, ViewResponseAction } from '@slack/bolt';
import type { Logger } from '../../src/log.js';
import { StoreUnavailableError } from '../../src/store/index.js';
import { storeUnavailableMessage } from '../../src/slack/user-errors.js';
import type { DecisionOutcome } from '../../src/withdrawals/index.js';

type ViewAck = (r?: ViewResponseAction) => Promise<void>;

export async function ephemeral(respond: RespondFn, text: string): Promise<void> {
  await respond({ response_type: 'ephemeral', replace_original: false, text });
}

/** What a modal shows next to a field when the work failed: the disk's words when it was the disk. */
export function failureText(err: unknown, otherwise: string): string {
  return err instanceof StoreUnavailableError ? storeUnavailableMessage(err) : otherwise;
}

/** A reason modal's submission: the decision's refusal goes next to the field; a failure never leaves Slack waiting. */
export async function submitted(
  logger: Logger,
  ack: ViewAck,
  what: string,
  decide: () => Promise<DecisionOutcome>,
): Promise<void> {
  let outcome: DecisionOutcome;
  try {
    outcome = await decide();
  } catch (err) {
    logger.error({ err }, `withdrawal ${what} failed`);
    return ack({
      response_action: 'errors',
      errors: { reason: failureText(err, 'Something went wrong on our side; nothing was changed. Try again.') },
    });
  }
  if (!outcome.ok) return ack({ response_action: 'errors', errors: { reason: outcome.message.slice(0, 2000) } });
  await ack();
}
