import type { Deps } from '../src/deps.js';
import type { GroupResolver } from '../src/policy/people.js';

/** What the Slack face needs on top of the app's parts. */
export interface CommandDeps extends Deps {
  groups: GroupResolver;
}
