/** Registering the webhook URL (API key; a PUT that replaces, so retried). */
import { PATHS } from '../assumptions.js';
import { inputError, rejection, shapeError } from '../failures.js';
import { stringifyJson } from '../json.js';
import { webhookResponseSchema, webhookUrlSchema } from '../schemas.js';
import { is2xx, JSON_HEADERS, refusal, type WalletCalls } from './calls.js';

export function setWebhookUrl(c: WalletCalls, url: string): Promise<void> {
  return c.guard('setWebhookUrl', async () => {
    const input = webhookUrlSchema.safeParse(url);
    if (!input.success) throw inputError('setWebhookUrl', input.error);
    const res = await c.idempotent(
      'setWebhookUrl',
      {
        method: 'PUT',
        path: PATHS.webhook,
        headers: { ...JSON_HEADERS, ...c.apiKeyHeader },
        body: stringifyJson({ webHookUrl: input.data, publicKey: c.options.publicKey }),
      },
      c.deadlineFromNow(),
    );
    if (!is2xx(res.status)) refusal('setWebhookUrl', res, 'apiKey');
    if (res.text.trim() === '') return;
    const parsed = webhookResponseSchema.safeParse(res.body);
    if (!parsed.success) throw shapeError('setWebhookUrl', res, parsed.error);
    if (parsed.data.status !== 1) throw rejection('setWebhookUrl', res);
  });
}
