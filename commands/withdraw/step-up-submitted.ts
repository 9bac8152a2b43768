/**
 * The step-up modal submitted: the code is validated (zod), then checked by the step-up
 * service (single use, lockout), and only then is the approval recorded through the same
 * withdrawal service path as any approval, with the fact that the code was verified. Every
 * refusal is shown next to the code field; a failure never leaves Slack waiting.
 */
import type { CommandDeps } from '../deps.js';
import {
  CODE_ACTION,
  CODE_BLOCK,
  codeSchema,
  INVALID_CODE,
  stepUpMetaSchema,
} from '../../src/slack/step-up-approve.js';
import { failureText } from './replies.js';
import type { ViewSubmittedArgs } from './request-submitted.js';

export function stepUpSubmitted(deps: CommandDeps) {
  return async ({ ack, body, view }: ViewSubmittedArgs): Promise<void> => {
    const inline = (text: string) => ack({ response_action: 'errors', errors: { [CODE_BLOCK]: text.slice(0, 2000) } });
    const user = body.user.id;
    try {
      let meta: { id: string };
      try {
        meta = stepUpMetaSchema.parse(JSON.parse(view.private_metadata));
      } catch {
        return await inline('This form is out of date. Close it and press Approve on the card again.');
      }
      const code = codeSchema.safeParse(view.state.values[CODE_BLOCK]?.[CODE_ACTION]?.value ?? '');
      if (!code.success) return await inline(INVALID_CODE);
      // A code is not spent on a request this person cannot approve (settled meanwhile, their own...).
      const refused = await deps.withdrawals.checkDecision(meta.id, user, 'approve');
      if (refused && !refused.ok) return await inline(refused.message);
      const checked = await deps.stepUp.verify(user, code.data, meta.id);
      if (!checked.ok) return await inline(checked.message);
      const outcome = await deps.withdrawals.approve(meta.id, user, { stepUp: 'verified' });
      if (!outcome.ok) return await inline(outcome.message);
      await ack();
    } catch (err) {
      deps.logger.error({ err }, 'step-up approval failed');
      await inline(failureText(err, 'Something went wrong on our side; nothing was approved. Try again.'));
    }
  };
}
