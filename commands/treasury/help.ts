/** `/treasury help`: the help text; admins' verbs are listed to admins only. */
import { hasRole } from '../../src/policy/people.js';
import { helpText } from '../help.js';
import type { VerbRun } from './verb.js';

export const helpVerb: VerbRun = {
  // Admin commands are listed to admins only.
  run: async ({ deps, respond, userId }) =>
    void (await respond({
      response_type: 'ephemeral',
      text: helpText(await hasRole(deps.policy.current(), 'admins', userId, deps.groups)),
    })),
};
