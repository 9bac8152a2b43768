/**
 * What the webhook route checks in a body once its secret (and signature) are good: nesting,
 * JSON within bounds, amounts within bounds, then the event it tells. One function, so the
 * leader's route, a standby acknowledging for it (src/replica/standby.ts) and the leader's
 * inbox drain (src/replica/inbox.ts) refuse the same bodies with the same status and words:
 * a standby must never acknowledge what the leader would refuse.
 */
import { MAX_JSON_DEPTH, jsonTooDeep } from '../http/json-depth.js';
import { OutOfBoundsJson, parseJson } from '../wallet/json.js';
import { KIND_RULES } from '../alert-kinds.js';
import { readWebhook, webhookAmountProblem, type WebhookEvent } from './parse.js';

/** Most JSON values a webhook body may hold (the service's have a few dozen). */
export const MAX_WEBHOOK_VALUES = 2_000;

export type BodyCheck =
  | { ok: true; event: WebhookEvent }
  | { ok: false; status: 400; error: string /** Only for the log: worth a warning line. */; amount?: true };

export function checkWebhookBody(raw: string): BodyCheck {
  // Nesting is refused before parsing: every later step recurses over the value.
  if (jsonTooDeep(raw)) return { ok: false, status: 400, error: `body nests deeper than ${MAX_JSON_DEPTH} levels` };
  let parsed: unknown;
  try {
    parsed = parseJson(raw, { maxValues: MAX_WEBHOOK_VALUES });
  } catch (err) {
    return { ok: false, status: 400, error: err instanceof OutOfBoundsJson ? err.message : 'body is not valid JSON' };
  }
  // Numbers from outside are bounded before anything formats or compares them.
  const outOfBounds = webhookAmountProblem(parsed);
  if (outOfBounds) return { ok: false, status: 400, error: outOfBounds, amount: true };
  return { ok: true, event: readWebhook(parsed) };
}

/**
 * The inbox's drain order: a body that reads as an event of a known kind goes ahead of one
 * that does not, so junk (however much of it) never holds up a real deposit. Lower first.
 */
export function drainPriority(e: WebhookEvent): 0 | 1 {
  return KIND_RULES[e.kind].readable ? 0 : 1;
}
