/**
 * The request a piece of work belongs to: a Slack request, a webhook, a verification call or
 * a job run. Entry points run their work inside `inRequest`; every log line written within it
 * carries its id (log.ts reads it in pino's mixin, so no logger has to be passed down through
 * code that already logs), and every outbox entry enqueued within it records the id, so one
 * deposit can be followed from its webhook to its Slack post.
 *
 * AsyncLocalStorage rather than child loggers threaded through every call: the id must reach
 * code many layers down (the outbox's enqueue inside a domain commit) without changing the
 * signatures of the modules in between.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export type RequestKind = 'slack' | 'webhook' | 'verification' | 'job' | 'outbox';

export interface RequestContext {
  readonly id: string;
  readonly kind: RequestKind;
  /** What the handler learnt that the entry point counts (a webhook's kind and outcome). Fixed-set values only. */
  readonly notes: Record<string, string>;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Short and random: it names a request in logs, it is no secret and carries nothing about it. */
// randomUUID draws from a cached pool of random bytes: a fresh randomBytes call per request cost
// every Slack request a system call (measured in bench/slack-ack.bench.ts's profile). Its first
// 12 hex digits are all random (the version digit comes later).
export const newRequestId = (): string => {
  const u = randomUUID();
  return `req_${u.slice(0, 8)}${u.slice(9, 13)}`;
};

export function inRequest<T>(kind: RequestKind, fn: () => T, id: string = newRequestId()): T {
  return storage.run({ id, kind, notes: {} }, fn);
}

export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** Tells the entry point something it counts; a no-op outside a request. */
export function noteRequest(notes: Record<string, string>): void {
  const ctx = storage.getStore();
  if (ctx) Object.assign(ctx.notes, notes);
}
