/**
 * A PolicySource over a policy the test changes as it goes (`let policy = …; policy = raised()`):
 * each read sees the test's variable as it is then, as the app's parts see an approved change.
 * A policy that never changes: `fixedPolicy` (src/policy/source.ts).
 */
import type { Policy } from '../../src/policy/schema.js';
import type { PolicySource } from '../../src/policy/source.js';

export function changingPolicy<P = Policy>(read: () => P): PolicySource<P> {
  return { current: read, onApplied: () => () => undefined };
}
