/**
 * What the workspace remembers beyond its Web API's model: the people of the policy in force,
 * the slash commands the app registered, and the field errors of open modals. Each is made
 * once at start and handed to the parts that use it.
 */
import type { Policy } from '../../policy/schema.js';
import { peopleOf, type Person } from '../directory.js';
import type { FakeSlack } from '../slack-api.js';
import type { PolicySource } from '../../policy/source.js';

/**
 * The people of the policy in force, read again whenever it changes (a governed change
 * applies while the app runs): someone added appears on the page, someone removed leaves it.
 * `policy` is read at each call, never a copy.
 */
export function peopleInForce(policy: PolicySource, api: Pick<FakeSlack, 'setUser'>): () => Person[] {
  let known: { policy: Policy; people: Person[] } | undefined;
  return () => {
    const current = policy.current();
    if (known?.policy !== current) {
      known = { policy: current, people: peopleOf(current) };
      for (const p of known.people) api.setUser(p.id, { name: p.handle, real_name: p.name });
    }
    return known.people;
  };
}

/** The slash commands the app registered (others are answered as Slack does: not found). */
export interface CommandList {
  has(name: string): boolean;
  names(): string[];
  replace(names: string[]): void;
}

export function commandList(): CommandList {
  let commands = new Set<string>();
  return {
    has: (name) => commands.has(name),
    names: () => [...commands],
    replace: (names) => {
      commands = new Set(names);
    },
  };
}

/** Field errors the app returned for a modal (by view id), shown until the next submission. */
export type ViewErrors = Map<string, Record<string, string>>;
