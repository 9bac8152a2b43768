/**
 * Registers every slash command (and the App Home) on the Bolt app. The list here is the
 * app's command set; a test holds it equal to manifest.yml's.
 */
import type { App } from '@slack/bolt';
import * as address from './address.js';
import * as home from './home.js';
import * as treasury from './treasury.js';
import * as tx from './tx.js';
import * as withdraw from './withdraw.js';
import type { CommandDeps } from './deps.js';

export const COMMAND_MODULES = [address, withdraw, tx, treasury] as const;

export function registerCommands(app: App, deps: CommandDeps): string[] {
  for (const m of COMMAND_MODULES) m.register(app, deps);
  home.register(app, deps);
  return COMMAND_MODULES.map((m) => m.name);
}
