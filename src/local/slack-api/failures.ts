/**
 * Injected failures: failNext rules (per method, for so many calls) and the gate, consulted
 * before every call; they answer with a status, a Retry-After, an `ok: false` error or a delay.
 */
import type { ServerResponse } from 'node:http';
import type { SlackState } from './state.js';
import type { FailureSpec, RecordedCall } from './types.js';
import { send } from './wire.js';

export function failNext(s: SlackState, method: string, spec: FailureSpec): void {
  const queue = s.failures.get(method) ?? [];
  queue.push({ ...spec, left: spec.times ?? 1 });
  s.failures.set(method, queue);
}

function takeFailure(s: SlackState, method: string): FailureSpec | undefined {
  const queue = s.failures.get(method);
  const rule = queue?.[0];
  if (!queue || !rule) return undefined;
  rule.left -= 1;
  if (rule.left <= 0) queue.shift();
  return rule;
}

/** A delay that close() can cancel. */
export function sleep(s: SlackState, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      s.timers.delete(t);
      resolve();
    }, ms);
    s.timers.add(t);
  });
}

// Returns true when the failure fully answered the request.
export async function applyFailure(
  s: SlackState,
  method: string,
  res: ServerResponse,
  call: RecordedCall,
): Promise<boolean> {
  const rule = takeFailure(s, method) ?? s.gate?.(method, call.args);
  if (!rule) return false;
  if (rule.delayMs) await sleep(s, rule.delayMs);
  const status = rule.status ?? (rule.retryAfter !== undefined ? 429 : undefined);
  if (status !== undefined) {
    const headers: Record<string, string> = {};
    if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
    const error = rule.error ?? (status === 429 ? 'ratelimited' : 'fatal_error');
    send(res, call, status, { ok: false, error }, headers);
    return true;
  }
  if (rule.error) {
    send(res, call, 200, { ok: false, error: rule.error });
    return true;
  }
  return false;
}
