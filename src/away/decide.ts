/**
 * `/treasury away` and `/treasury back` as pure decisions: who may set whose state, when it ends,
 * and that a delegation is one level only (A→B is refused while B→anyone or anyone→A is in force,
 * which refuses A→B when B→A too). Pure: the records, the time and the roles are passed in.
 */
import { utcMinute } from '../format/time.js';
import { delegation } from './delegation.js';
import type { AwayRecord } from './state.js';

/** The longest an away state may be set for: longer is a mistake or a different process (leaving). */
export const MAX_AWAY_MS = 90 * 86_400_000;

export type AwayRefusal = { ok: false; message: string };

export interface AwayFacts {
  now: number;
  records: readonly AwayRecord[];
  actorIsAdmin: boolean;
  /** Whether the person set away may approve (directly or through a group): only approvers hand approvals on. */
  targetIsApprover: boolean;
  /**
   * Whether the delegate named may approve in their own right. Only an approver may be named: a
   * hijacked account (the person's or an admin's) must not hand approval power to an account that
   * has none, which would skip the approvers' second factor and their role.
   */
  delegateIsApprover: boolean;
  /** How a person is named in the words (the Slack side mentions them; the domain writes no markup). */
  name: (user: string) => string;
}

export function decideAway(
  input: { actor: string; target: string; until: number; delegate?: string | undefined },
  f: AwayFacts,
): { ok: true; record: AwayRecord } | AwayRefusal {
  const { actor, target, until, delegate } = input;
  const who = actor === target ? 'You' : `${f.name(target)}`;
  if (actor !== target && !f.actorIsAdmin)
    return { ok: false, message: 'Only an admin may set someone else’s away state.' };
  if (!(until > f.now)) return { ok: false, message: `${utcMinute(until)} is not in the future.` };
  if (until - f.now > MAX_AWAY_MS) return { ok: false, message: 'An away state can be set for at most 90 days.' };
  if (delegate !== undefined) {
    if (delegate === target) return { ok: false, message: 'A delegate must be someone else.' };
    // An admin's account alone must not gain someone's approvals: they name their own delegate, or another admin does.
    if (actor !== target && delegate === actor)
      return {
        ok: false,
        message: `You cannot name yourself as ${f.name(target)}’s delegate: they name their own, or another admin does.`,
      };
    if (!f.targetIsApprover)
      return {
        ok: false,
        message: `${who === 'You' ? 'You are' : `${who} is`} not an approver: there are no approvals to hand on.`,
      };
    if (!f.delegateIsApprover)
      return {
        ok: false,
        message: `${f.name(delegate)} is not an approver: only an approver can approve in someone’s place. Name an approver, or ask an admin to add ${f.name(delegate)} to the approvers in the treasury policy first.`,
      };
    const d = delegation(
      f.records.filter((r) => r.id !== target),
      f.now,
    );
    const theirs = d.away(delegate);
    if (theirs?.delegate === target)
      return {
        ok: false,
        message: `${f.name(delegate)} has handed their approvals to ${who === 'You' ? 'you' : who} until ${utcMinute(theirs.until)}: two people cannot stand in for each other. Delegation is one level only.`,
      };
    if (theirs?.delegate)
      return {
        ok: false,
        message: `${f.name(delegate)} is away and has handed their approvals to ${f.name(theirs.delegate)}: delegation is one level only, so name someone who is not.`,
      };
    if (theirs)
      return {
        ok: false,
        message: `${f.name(delegate)} is away until ${utcMinute(theirs.until)}: name someone who is here.`,
      };
    const mine = d.delegatorsOf(target);
    if (mine.length)
      return {
        ok: false,
        message: `${who} ${who === 'You' ? 'stand' : 'stands'} in for ${mine.map((m) => f.name(m)).join(', ')}: delegation is one level only, so ${who === 'You' ? 'your' : 'their'} approvals cannot be handed on while that is in force.`,
      };
  }
  return {
    ok: true,
    record: {
      id: target,
      until: new Date(until).toISOString(),
      ...(delegate ? { delegate } : {}),
      setBy: actor,
      at: new Date(f.now).toISOString(),
    },
  };
}

export function decideBack(
  input: { actor: string; target: string },
  f: Pick<AwayFacts, 'now' | 'records' | 'actorIsAdmin' | 'name'>,
): { ok: true; was: AwayRecord } | AwayRefusal {
  if (input.actor !== input.target && !f.actorIsAdmin)
    return { ok: false, message: 'Only an admin may set someone else’s away state.' };
  const was = delegation(f.records, f.now).away(input.target);
  if (!was)
    return {
      ok: false,
      message: input.actor === input.target ? 'You are not away.' : `${f.name(input.target)} is not away.`,
    };
  return { ok: true, was };
}
