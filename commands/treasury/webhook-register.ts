/** `/treasury webhook register`: tell the wallet service where to send its notifications (admins). */
import { outside } from '../../src/format/outside.js';
import { maskWebhookPaths } from '../../src/webhooks/registration.js';
import type { VerbRun } from './verb.js';
import { NOT_CURRENT } from './webhook-rotate.js';

export const webhookRegisterVerb: VerbRun = {
  run: async ({ deps, respond, userId }) => {
    // In turn with rotations (src/webhooks/wiring.ts): the URL of the secret current when it runs.
    const r = await deps.registerWebhook(userId);
    const stale = r.ok && !deps.webhookRotation.isCurrent(r) ? `\n${NOT_CURRENT}` : '';
    await respond({
      response_type: 'ephemeral',
      text: r.ok
        ? `:white_check_mark: Webhook registered: ${r.shownUrl}${stale}`
        : `:warning: Webhook not registered: ${outside(maskWebhookPaths(r.error ?? 'unknown error'), 300)}`,
    });
  },
};
