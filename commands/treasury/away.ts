/**
 * `/treasury away until <date> [delegate @person]`: you are away (no approval DMs) until then,
 * and your delegate, if named, approves in your place within your groups and tiers. An admin may
 * set someone else's: `/treasury away @person until <date> [delegate @person]` (audited; they are
 * told by DM). The rules (one level only, no cycle) are the domain's (src/away/decide.ts).
 */
import { outside } from '../../src/format/outside.js';
import { utcMinute } from '../../src/format/time.js';
import { parseUntil } from '../../src/away/until.js';
import { hasRole, peopleIn } from '../../src/policy/people.js';
import { wordsKeepingMentions } from '../../src/slack/text.js';
import type { VerbContext, VerbRun } from './verb.js';

const USAGE =
  'Usage: `/treasury away until <date> [delegate @person]` (a date such as 2026-12-05, a UTC time such as 2026-12-05 14:30, or 3d); an admin may add a person first: `/treasury away @person until <date>`.';

/** The person named by `words` (a mention or a name), or the words a person reads when not found. */
export async function personNamed(
  deps: VerbContext['deps'],
  words: string[],
): Promise<{ ok: true; id: string } | { ok: false; message: string }> {
  const found = await deps.people.resolve(words.join(' '));
  return found.ok ? { ok: true, id: found.id } : { ok: false, message: outside(found.message, 600) };
}

export const awayVerb: VerbRun = {
  run: async ({ deps, text, userId, respond }) => {
    const say = (t: string) => respond({ response_type: 'ephemeral', text: t });
    const words = wordsKeepingMentions(text).slice(1);
    const lower = words.map((w) => w.toLowerCase());
    const u = lower.indexOf('until');
    if (u < 0) return void (await say(`:warning: Say until when. ${USAGE}`));
    const d = lower.indexOf('delegate', u);
    const untilWords = words.slice(u + 1, d < 0 ? undefined : d);
    const until = parseUntil(untilWords.join(' '), deps.now());
    if (!until.ok) return void (await say(`:warning: ${outside(until.message, 300)}\n${USAGE}`));
    let target = userId;
    if (u > 0) {
      const t = await personNamed(deps, words.slice(0, u));
      if (!t.ok) return void (await say(`:warning: ${t.message}\n${USAGE}`));
      target = t.id;
    }
    let delegate: string | undefined;
    if (d >= 0) {
      const named = words.slice(d + 1);
      if (!named.length) return void (await say(`:warning: Say who approves in your place. ${USAGE}`));
      const del = await personNamed(deps, named);
      if (!del.ok) return void (await say(`:warning: ${del.message}\n${USAGE}`));
      delegate = del.id;
    }
    const p = deps.policy.current();
    const done = await deps.away.setAway(
      { actor: userId, target, until: until.at, delegate },
      {
        actorIsAdmin: await hasRole(p, 'admins', userId, deps.groups),
        targetIsApprover: await hasRole(p, 'approvers', target, deps.groups),
        delegateIsApprover: delegate !== undefined && (await hasRole(p, 'approvers', delegate, deps.groups)),
        admins: await peopleIn(p.people.admins, deps.groups),
        name: (id) => `<@${id}>`,
      },
    );
    if (!done.ok) return void (await say(`:no_entry: ${done.message}`));
    const r = done.record;
    const who = target === userId ? 'You are' : `<@${target}> is`;
    const hand = r.delegate
      ? `<@${r.delegate}> is asked in ${target === userId ? 'your' : 'their'} place and approves for ${target === userId ? 'you' : 'them'} (they and the admins were told by DM).`
      : `Nobody approves in ${target === userId ? 'your' : 'their'} place: requests that need ${target === userId ? 'you' : 'them'} show ${target === userId ? 'you' : 'them'} as away in \`/treasury pending\`.`;
    const told = target === userId ? '' : ` <@${target}> was told by DM.`;
    await say(
      `:palm_tree: ${who} away until ${utcMinute(r.until)}: no approval DMs meanwhile. ${hand}${told} \`/treasury back\` ends it sooner.`,
    );
  },
};
