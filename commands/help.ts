/** The help text of `/treasury help` and the App Home, generated from the command table. */
import { COMMANDS, TREASURY_VERBS, type VerbSpec } from './table.js';

function verbLine(v: VerbSpec): string {
  return `\`/treasury ${v.usage}\`: ${v.summary}${v.role === 'admins' ? ' (admins)' : ''}`;
}

export function helpText(): string {
  return [
    '*Treasury commands*',
    ...COMMANDS.flatMap((c) => c.help),
    ...Object.values(TREASURY_VERBS).map(verbLine),
  ]
    .map((line, i) => (i === 0 ? line : `• ${line}`))
    .concat('Currencies and networks are accepted by name (any case) or code: `usdt`, `4`, `MATIC`/`POLYGON`, `ETH`/`ETHEREUM`.')
    .join('\n');
}
