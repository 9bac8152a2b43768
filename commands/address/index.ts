import type { Listeners } from '../../src/slack/listeners.js';
import { roleMiddleware } from '../../src/slack/roles.js';
import type { CommandDeps } from '../deps.js';
import { addressCommand } from './command.js';
import { warmQrPool } from './qr.js';

export function register(app: Listeners, deps: CommandDeps): void {
  warmQrPool(deps.logger);
  const requireRole = roleMiddleware(deps);
  app.command('/address', requireRole('viewers'), addressCommand(deps));
}
