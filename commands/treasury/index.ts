import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { UNFREEZE_ACTION } from '../../src/slack/freeze-notice.js';
import type { CommandDeps } from '../deps.js';
import { treasuryCommand } from './command.js';
import { registerPolicyChangeActions } from './policy-change.js';
import { unfreezeClicked } from './freeze.js';

export function register(app: App, deps: CommandDeps): void {
  app.command('/treasury', treasuryCommand(deps));
  registerPolicyChangeActions(app, deps);
  app.action<BlockAction<ButtonAction>>(UNFREEZE_ACTION, unfreezeClicked(deps));
}
