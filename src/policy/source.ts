/**
 * The one way a part reads the policy: `current()` at the moment of use (an approved change
 * applies at once, so a part never keeps a copy), and `onApplied` for what must follow a
 * change (re-judging pending requests, moving jobs to the new schedule). A change applied is a
 * subscription, so a part built after the policy's owner still hears of it, with no late binding.
 * `P` narrows what a part reads (a job that reads only `retention` can be given just that).
 */
import type { Policy } from './schema.js';

export interface PolicySource<P = Policy> {
  current(): P;
  /** Called, in order and awaited, after an approved change is durable and in force; returns the unsubscribe. */
  onApplied(fn: (policy: Policy) => unknown): () => void;
}

/** A fixed policy as a source (tests, tools): nothing is ever applied. */
export function fixedPolicy<P = Policy>(policy: P): PolicySource<P> {
  return { current: () => policy, onApplied: () => () => undefined };
}
