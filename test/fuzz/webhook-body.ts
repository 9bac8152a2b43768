/** The receiver's reading steps, in its order, on one raw body (the HTTP fuzz covers the rest). */
import { jsonTooDeep } from '../../src/http/json-depth.js';
import { readWebhook, transactionKey, eventKey } from '../../src/alerts/parse.js';
import { parseJson } from '../../src/wallet/json.js';

export function parseWebhookBodyForFuzz(raw: string): 'event' | 'refused' {
  if (jsonTooDeep(raw)) return 'refused';
  let parsed: unknown;
  try {
    parsed = parseJson(raw);
  } catch {
    return 'refused';
  }
  const e = readWebhook(parsed);
  eventKey(e, transactionKey(e));
  JSON.stringify(e);
  return 'event';
}
