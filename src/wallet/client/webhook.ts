/**
 * Registering the webhook URL (API key; a PUT that replaces, so retried).
 *
 * The answer's body is not in the spec, so it is read tolerantly: a v1 envelope (`status` 1, "1"
 * or true), a v2 envelope (`isSuccessful`), an empty body or a line of plain text with a 2xx are
 * all a success; a failure envelope is a refusal. A 2xx whose body is none of these (an HTML
 * page, JSON of another shape) cannot be read: the registration may have succeeded, and the
 * error says so and how to check, rather than calling it a failure.
 */
import { PATHS } from '../assumptions.js';
import { OPERATION_LABELS, WalletUnknownOutcomeError } from '../errors.js';
import { inputError, rejection } from '../failures.js';
import type { HttpResponse } from '../http.js';
import { stringifyJson } from '../json.js';
import { webhookUrlSchema } from '../schemas.js';
import { is2xx, JSON_HEADERS, refusal, type WalletCalls } from './calls.js';

export const WEBHOOK_CHECK_ADVICE =
  "The registration may have succeeded: check the webhook URL in the wallet service's dashboard, or register again (registering replaces the URL, so repeating it is safe).";

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
    const verdict = readRegistration(res);
    if (verdict === 'refused') throw rejection('setWebhookUrl', res);
    if (verdict === 'unreadable')
      throw new WalletUnknownOutcomeError(
        `${OPERATION_LABELS.setWebhookUrl}: the wallet service answered HTTP ${res.status} in a form we cannot read. ${WEBHOOK_CHECK_ADVICE}`,
        { operation: 'setWebhookUrl', status: res.status },
      );
  });
}

const YES = new Set(['1', 'true']);
const NO = new Set(['0', 'false']);

/** What a 2xx answer to the registration says. */
function readRegistration(res: HttpResponse): 'ok' | 'refused' | 'unreadable' {
  if (res.text.trim() === '') return 'ok';
  if (res.unparseable) {
    // A line of plain text ("Webhook updated"); markup or broken JSON is not an answer we can read.
    const t = res.text.trim();
    return t.length <= 200 && !/[<>{}[\]]/.test(t) && !/\n/.test(t) ? 'ok' : 'unreadable';
  }
  const b = res.body;
  if (typeof b === 'string') return 'ok';
  if (!b || typeof b !== 'object' || Array.isArray(b)) return 'unreadable';
  const env = b as Record<string, unknown>;
  const said = (v: unknown) => String(v).trim().toLowerCase();
  if (env.isSuccessful !== undefined) {
    if (YES.has(said(env.isSuccessful))) return 'ok';
    if (NO.has(said(env.isSuccessful))) return 'refused';
    return 'unreadable';
  }
  if (env.status !== undefined && env.status !== null) {
    if (YES.has(said(env.status))) return 'ok';
    if (NO.has(said(env.status))) return 'refused';
  }
  return 'unreadable';
}
