/** The listeners' dependencies; declared beside the rest of the Slack face so the App Home can use them too. */
export type { CommandDeps } from '../src/slack/deps.js';
