import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { Listeners } from '../../src/slack/listeners.js';
import { roleMiddleware } from '../../src/slack/roles.js';
import type { CommandDeps } from '../deps.js';
import { txCommand } from './command.js';
import { txNav } from './nav.js';
import { NAV_ACTIONS } from './render.js';

export function register(app: Listeners, deps: CommandDeps): void {
  const requireRole = roleMiddleware(deps);
  app.command('/tx', requireRole('viewers'), txCommand(deps));
  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^(${NAV_ACTIONS.prev}|${NAV_ACTIONS.next})$`),
    requireRole('viewers'),
    txNav(deps),
  );
}
