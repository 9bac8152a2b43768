import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { Listeners } from '../../src/slack/listeners.js';
import { UNFREEZE_ACTION } from '../../src/slack/freeze-notice.js';
import type { CommandDeps } from '../deps.js';
import { treasuryCommand } from './command.js';
import { registerPolicyChangeActions } from './policy-change.js';
import { unfreezeClicked } from './freeze.js';

export function register(app: Listeners, deps: CommandDeps): void {
  app.command('/treasury', treasuryCommand(deps));
  registerPolicyChangeActions(app, deps);
  app.action<BlockAction<ButtonAction>>(UNFREEZE_ACTION, unfreezeClicked(deps));
}
