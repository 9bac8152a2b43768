/**
 * The calls the fake has answered, read back by tests: waitFor polls them until one matches
 * and, when none does in time, says what was seen instead.
 */
import { sleep } from './failures.js';
import type { SlackState } from './state.js';
import type { RecordedCall } from './types.js';

export async function waitFor(
  s: SlackState,
  method: string,
  predicate: ((call: RecordedCall) => boolean) | undefined,
  timeoutMs: number,
): Promise<RecordedCall> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = s.calls.find((c) => c.method === method && (!predicate || predicate(c)));
    if (hit) return hit;
    if (Date.now() >= deadline) throw new Error(describeMiss(method, s.calls, timeoutMs, Boolean(predicate)));
    await sleep(s, 5);
  }
}

function describeMiss(method: string, calls: RecordedCall[], timeoutMs: number, withPredicate: boolean): string {
  const same = calls.filter((c) => c.method === method);
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
  const seen = counts.size ? [...counts].map(([m, n]) => `${m} x${n}`).join(', ') : 'nothing';
  let msg = `fake-slack: no ${method} call${withPredicate ? ' matching the predicate' : ''} within ${timeoutMs} ms; calls seen: ${seen}`;
  if (same.length) {
    const shown = same
      .slice(-5)
      .map(
        (c) => `  ${JSON.stringify(c.args).slice(0, 300)} -> ${JSON.stringify(c.response ?? 'pending').slice(0, 120)}`,
      );
    msg += `\nlast ${method} args:\n${shown.join('\n')}`;
  }
  return msg;
}
