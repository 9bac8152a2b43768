import type { Deps } from '../deps.js';
import type { GroupResolver } from '../policy/people.js';
import type { PeopleResolver } from './people.js';

/** What the Slack face (commands, App Home) needs on top of the app's parts. */
export interface CommandDeps extends Deps {
  groups: GroupResolver;
  /** A person named in a command (`@dave`, `Dave Li` or an @-mention) to one user id. */
  people: PeopleResolver;
}
