/** The reject form submitted: the service decides; its refusal is shown next to the reason. */
import type { CommandDeps } from '../deps.js';
import { readReason } from './modals.js';
import { submitted } from './replies.js';
import type { ViewSubmittedArgs } from './request-submitted.js';

export function rejectSubmitted(deps: CommandDeps) {
  return async ({ ack, body, view }: ViewSubmittedArgs): Promise<void> => {
    await submitted(deps.logger, ack, 'rejection', () =>
      deps.withdrawals.reject(view.private_metadata, body.user.id, readReason(view.state.values)),
    );
  };
}
