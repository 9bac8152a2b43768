/**
 * Registers every slash command (and the App Home) in the listener table (src/slack/listeners.ts). Each command's folder
 * has an `index.ts` that only registers its listeners; the command set is ./table.ts, which
 * a test holds equal to manifest.yml.
 */
import type { Listeners } from '../src/slack/listeners.js';
import { registerHome } from '../src/slack/home/index.js';
import * as address from './address/index.js';
import type { CommandDeps } from './deps.js';
import { helpText } from './help.js';
import { COMMANDS, type CommandName } from './table.js';
import * as treasury from './treasury/index.js';
import * as tx from './tx/index.js';
import * as withdraw from './withdraw/index.js';

/** Every row of the table needs its registration: the compiler checks this record is complete. */
const REGISTER: Record<CommandName, (app: Listeners, deps: CommandDeps) => void> = {
  '/address': address.register,
  '/withdraw': withdraw.register,
  '/tx': tx.register,
  '/treasury': treasury.register,
};

export function registerCommands(app: Listeners, deps: CommandDeps): string[] {
  for (const c of COMMANDS) REGISTER[c.name](app, deps);
  registerHome(app, deps, helpText);
  return COMMANDS.map((c) => c.name);
}
