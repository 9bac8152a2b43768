import type { App } from '@slack/bolt';
import type { CommandDeps } from '../deps.js';
import { treasuryCommand } from './command.js';
import { registerPolicyChangeActions } from './policy-change.js';

export function register(app: App, deps: CommandDeps): void {
  app.command('/treasury', treasuryCommand(deps));
  registerPolicyChangeActions(app, deps);
}
