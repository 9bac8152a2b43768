/**
 * A refused freeze or unfreeze in words, with the people it names as mentions: the freeze
 * decider (src/freeze/decide.ts) says what the refusal is about; mrkdwn is written here. The
 * freeze reason is an admin's own words, shown as outside text.
 */
import type { FreezeRefusal, FreezeRefusalFacts } from '../freeze/decide.js';
import { outside } from '../format/outside.js';

export function freezeRefusalText(r: { reason: FreezeRefusal; message: string } & FreezeRefusalFacts): string {
  if (r.reason === 'already_frozen' && r.frozen)
    return `Sends are already frozen by <@${r.frozen.by}> since ${r.frozen.at.slice(0, 16).replace('T', ' ')} UTC: ${outside(r.frozen.reason)}`;
  if (r.reason === 'confirm_on_notice' && r.askedBy)
    return `<@${r.askedBy}> already asked to unfreeze. To confirm, use *Confirm unfreeze* on the freeze notice.`;
  return r.message;
}
