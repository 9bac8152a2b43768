/**
 * The App Home's lines about being away (src/away), only when there is something to say: you are
 * away (until when, who stands in), or you stand in for someone.
 */
import type { KnownBlock } from '@slack/types';
import { delegationIn } from '../../away/service.js';
import { utcMinute } from '../../format/time.js';
import type { CommandDeps } from '../deps.js';
import { context } from '../blocks.js';

export function awayBlocks(deps: CommandDeps, userId: string): KnownBlock[] {
  const d = delegationIn(deps.store, deps.now());
  const mine = d.away(userId);
  const lines: string[] = [];
  if (mine)
    lines.push(
      `:palm_tree: You are away until ${utcMinute(mine.until)}: no approval DMs${mine.delegate ? `; <@${mine.delegate}> approves in your place` : ''}. \`/treasury back\` ends it.`,
    );
  for (const who of d.delegatorsOf(userId))
    lines.push(
      `:handshake: You approve in place of <@${who}> until ${utcMinute(d.away(who)!.until)} (one vote for both of you).`,
    );
  return lines.map((l) => context(l));
}
