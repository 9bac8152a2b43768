/** The request form submitted: every problem the service found is shown at once, each next to its field. */
import type { SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { RequestInput } from '../../src/withdrawals/index.js';
import type { CommandDeps } from '../deps.js';
import { FIELDS, fieldErrors, readField, requestMetaSchema } from './modals.js';
import { failureText } from './replies.js';

export type ViewSubmittedArgs = Pick<SlackViewMiddlewareArgs<ViewSubmitAction>, 'ack' | 'body' | 'view'>;

export function requestSubmitted(deps: CommandDeps) {
  return async ({ ack, body, view }: ViewSubmittedArgs): Promise<void> => {
    const v = view.state.values;
    // Opened from "New request with the same details": the request it repeats (checked again by the service).
    let repeatOf: string | undefined;
    if (view.private_metadata) {
      const meta = requestMetaSchema.safeParse(parseJson(view.private_metadata));
      if (!meta.success)
        return void (await ack({
          response_action: 'errors',
          errors: { [FIELDS.amount.block]: 'This form is out of date; open it again from the card.' },
        }));
      repeatOf = meta.data.repeatOf;
    }
    const input: RequestInput = {
      // One modal asks for one payout, however many times it is submitted.
      idempotencyKey: `view:${view.id}`,
      // The form closes on success: the requester's confirmation is a DM.
      requestedFrom: 'form',
      amount: readField(v, 'amount'),
      currency: readField(v, 'currency'),
      network: readField(v, 'network'),
      destination: readField(v, 'destination'),
      clientEmail: readField(v, 'client'),
      note: readField(v, 'note'),
      ...(repeatOf ? { repeatOf } : {}),
    };
    let outcome: Awaited<ReturnType<typeof deps.withdrawals.request>>;
    try {
      outcome = await deps.withdrawals.request(input, body.user.id);
    } catch (err) {
      deps.logger.error({ err }, 'withdrawal request failed');
      return void (await ack({
        response_action: 'errors',
        errors: {
          [FIELDS.amount.block]: failureText(
            err,
            'Something went wrong on our side; nothing was requested. Try again.',
          ),
        },
      }));
    }
    if (!outcome.ok) return void (await ack({ response_action: 'errors', errors: fieldErrors(outcome) }));
    await ack();
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
