import type { App } from '@slack/bolt';
import { roleMiddleware } from '../../src/slack/roles.js';
import type { CommandDeps } from '../deps.js';
import { addressCommand } from './command.js';

export function register(app: App, deps: CommandDeps): void {
  const requireRole = roleMiddleware(deps);
  app.command('/address', requireRole('viewers'), addressCommand(deps));
}
