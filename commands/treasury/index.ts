import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { UNFREEZE_ACTION } from '../../src/slack/freeze-notice.js';
import type { CommandDeps } from '../deps.js';
import { treasuryCommand } from './command.js';
import { unfreezeClicked } from './freeze.js';

export function register(app: App, deps: CommandDeps): void {
  app.command('/treasury', treasuryCommand(deps));
  app.action<BlockAction<ButtonAction>>(UNFREEZE_ACTION, unfreezeClicked(deps));
}
