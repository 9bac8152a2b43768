/**
 * Test-only controls for the trust tests (invariant 14: a notification is a claim):
 *
 * - `POST /sandbox/forged-webhooks` `{ "payload": <any JSON>, "merchant"?: "<e-mail>" }`: posts
 *   `payload`, exactly as given and unsigned, to the merchant's registered webhook URL, as
 *   whoever learned that URL could. Answers `{ delivered, status, body }` (the receiver's answer).
 * - `POST /sandbox/withdrawal-status` `{ "reference": "...", "status"?: <wire value> | null,
 *   "unavailable"?: boolean }`: the status-by-reference operation answers `status` (a code,
 *   numeric string or name; null: what the sandbox executed) for that reference, whatever its
 *   webhooks said, or is unavailable (503) for it (`"*"`: for every reference).
 *
 * Both accept only JSON posts (`content-type: application/json`): a form or a cross-site
 * "simple" request cannot reach them. The methods `forgeWebhook`, `setWithdrawalStatus` and
 * `setWithdrawalStatusUnavailable` on the Sandbox do the same in-process.
 */
import { z } from 'zod';
import { stringifyJson } from '../wallet/json.js';
import { jsonObject, parseMediaType, header, describeIssues } from './body.js';
import { controlError, problem, type Reply } from './envelopes.js';
import type { SandboxRequest } from './http.js';

export const FORGED_WEBHOOKS_PATH = '/sandbox/forged-webhooks';
export const STATUS_CONTROL_PATH = '/sandbox/withdrawal-status';

/** Every reference. */
export const ALL_REFERENCES = '*';

export interface Forgery {
  /** References whose status operation is unavailable (503); `*` for all. */
  unavailable: Set<string>;
}

export interface ForgedDelivery {
  delivered: boolean;
  status: number | null;
  body: string;
  error?: string;
}

/** Posts `body` (already JSON text) to `url` as a webhook would come, without any signature. */
export async function postForged(url: string | undefined, body: string): Promise<ForgedDelivery> {
  if (!url) return { delivered: false, status: null, body: '', error: 'no webhook URL is registered' };
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { delivered: true, status: res.status, body: await res.text() };
  } catch (err) {
    return { delivered: false, status: null, body: '', error: err instanceof Error ? err.message : String(err) };
  }
}

/** A control body: a JSON post only, as an object; else the reply that refuses it. */
function jsonPost(req: SandboxRequest): { ok: true; value: Record<string, unknown> } | { ok: false; reply: Reply } {
  if (parseMediaType(header(req, 'content-type') ?? '').type !== 'application/json')
    return {
      ok: false,
      reply: controlError(415, 'Test-only endpoints accept only JSON posts (content-type: application/json)'),
    };
  const parsed = jsonObject(req);
  return parsed.ok ? parsed : { ok: false, reply: controlError(400, parsed.message) };
}

const forgedBody = z.object({ payload: z.unknown(), merchant: z.string().email().optional() });

export async function forgedWebhookRoute(
  deps: { urlFor(merchantEmail?: string): string | undefined },
  req: SandboxRequest,
): Promise<Reply> {
  const body = jsonPost(req);
  if (!body.ok) return body.reply;
  const input = forgedBody.safeParse(body.value);
  if (!input.success) return controlError(400, describeIssues(input.error));
  if (!('payload' in body.value)) return controlError(400, 'payload: is required (any JSON)');
  // Numbers keep their digits (lossless parse, lossless stringify): the receiver gets what the test wrote.
  const delivery = await postForged(deps.urlFor(input.data.merchant), stringifyJson(body.value.payload));
  return { status: delivery.delivered ? 200 : 502, body: delivery };
}

const statusBody = z.object({
  reference: z.string().min(1),
  status: z.union([z.number(), z.string(), z.null()]).optional(),
  unavailable: z.boolean().optional(),
});

export function statusControlRoute(
  deps: { overrides: Map<string, unknown>; forgery: Forgery },
  req: SandboxRequest,
): Reply {
  const body = jsonPost(req);
  if (!body.ok) return body.reply;
  const plainValue = JSON.parse(stringifyJson(body.value)) as unknown;
  const input = statusBody.safeParse(plainValue);
  if (!input.success) return controlError(400, describeIssues(input.error));
  const { reference, status, unavailable } = input.data;
  if (status === null) deps.overrides.delete(reference);
  else if (status !== undefined) deps.overrides.set(reference, status);
  if (unavailable === true) deps.forgery.unavailable.add(reference);
  if (unavailable === false) deps.forgery.unavailable.delete(reference);
  return {
    status: 200,
    body: {
      reference,
      status: deps.overrides.get(reference) ?? null,
      unavailable: deps.forgery.unavailable.has(reference) || deps.forgery.unavailable.has(ALL_REFERENCES),
    },
  };
}

/** The status operation made unavailable for this request's reference: its 503, or undefined to answer. */
export function statusUnavailable(forgery: Forgery, req: SandboxRequest, prefix: string): Reply | undefined {
  if (!forgery.unavailable.size) return undefined;
  const pathname = new URL(req.target, 'http://sandbox.invalid').pathname;
  let reference = '';
  try {
    reference = decodeURIComponent(pathname.slice(prefix.length + 1).replace(/\/+$/, ''));
  } catch {
    reference = '';
  }
  if (!forgery.unavailable.has(ALL_REFERENCES) && !forgery.unavailable.has(reference)) return undefined;
  return problem(503, 'The withdrawal status is unavailable (made so by the sandbox)', pathname);
}
