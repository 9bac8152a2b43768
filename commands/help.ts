/** The help text of `/treasury help` and the App Home, generated from the command table. */
import { COMMANDS, TREASURY_VERBS, type VerbSpec } from './table.js';

function verbLine(v: VerbSpec): string {
  return `\`/treasury ${v.usage}\`: ${v.summary}${v.role === 'admins' ? ' (admins)' : ''}`;
}

/** The commands this person may use: admins' /treasury verbs only for admins. */
export function helpText(forAdmin = false): string {
  const verbs: VerbSpec[] = Object.values(TREASURY_VERBS);
  return [
    '*Treasury commands*',
    ...COMMANDS.flatMap((c) => c.help),
    ...verbs.filter((v) => forAdmin || v.role !== 'admins').map(verbLine),
  ]
    .map((line, i) => (i === 0 ? line : `• ${line}`))
    .concat(
      'Currencies and networks are written by name, in any case: `usdt`, `MATIC` or `POLYGON`, `ETH` or `ETHEREUM`.',
    )
    .join('\n');
}
