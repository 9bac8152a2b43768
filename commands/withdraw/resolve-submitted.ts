/**
 * The resolve form submitted. The admin check is made again here, in the listener: a form's
 * refusal goes next to its field (no middleware can ack with that), and a stale form is
 * named as such before anything else.
 */
import type { z } from 'zod';
import { refusal } from '../../src/slack/access.js';
import type { CommandDeps } from '../deps.js';
import { readReason, resolveMetaSchema } from './modals.js';
import { submitted } from './replies.js';
import type { ViewSubmittedArgs } from './request-submitted.js';

export function resolveSubmitted(deps: CommandDeps) {
  return async ({ ack, body, view }: ViewSubmittedArgs): Promise<void> => {
    let meta: z.infer<typeof resolveMetaSchema>;
    try {
      meta = resolveMetaSchema.parse(JSON.parse(view.private_metadata ?? ''));
    } catch {
      return void (await ack({
        response_action: 'errors',
        errors: { reason: 'This form is out of date; click the button on the card again.' },
      }));
    }
    const note = readReason(view.state.values);
    const refused = await refusal(deps.policy.current(), 'admins', body.user.id, deps.groups);
    if (refused) return void (await ack({ response_action: 'errors', errors: { reason: refused } }));
    await submitted(deps.logger, ack, 'resolution', () =>
      deps.withdrawals.resolveUnknown(meta.id, body.user.id, meta.outcome, note),
    );
  };
}
