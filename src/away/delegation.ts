/**
 * Who stands in for whom now, read from the away records (state.ts): pure. A delegation is one
 * level only (decide.ts refuses a chain or a cycle), so a person's delegate is never away with a
 * delegate of their own while it is in force.
 */
import type { AwayRecord } from './state.js';

export interface Delegation {
  /** Away now (with or without a delegate): the record, else undefined. */
  away(user: string): AwayRecord | undefined;
  /** Whom `user` hands approvals to now, if they are away and named someone. */
  delegateOf(user: string): string | undefined;
  /** Everyone away now who named `user`. */
  delegatorsOf(user: string): string[];
}

export function delegation(records: readonly AwayRecord[], now: number): Delegation {
  const inForce = records.filter((r) => Date.parse(r.until) > now);
  const byUser = new Map(inForce.map((r) => [r.id, r]));
  return {
    away: (user) => byUser.get(user),
    delegateOf: (user) => byUser.get(user)?.delegate,
    delegatorsOf: (user) => inForce.filter((r) => r.delegate === user).map((r) => r.id),
  };
}

/** Nobody is away: for callers that have no store (tests of other parts). */
export const NOBODY_AWAY: Delegation = { away: () => undefined, delegateOf: () => undefined, delegatorsOf: () => [] };

/**
 * The people whose approval is one vote with `user`'s: whoever they stand in for now, and their
 * own delegate while they are away. An approval by any of them counts for all.
 */
export function oneVoteWith(d: Delegation, user: string): string[] {
  const own = d.delegateOf(user);
  return [...new Set([user, ...d.delegatorsOf(user), ...(own ? [own] : [])])];
}

/**
 * Whom to ask instead of `users` (approvers to DM about a request by `requester`): someone away
 * is not asked; their delegate is, unless either of them made the request; anyone whose vote
 * (`voted`: the people an approval already counts for) is in is not asked again.
 */
export function routeAsks(
  users: readonly string[],
  d: Delegation,
  requester: string,
  voted: ReadonlySet<string> = new Set(),
): string[] {
  const out = new Set<string>();
  for (const u of users) {
    if (voted.has(u) || u === requester) continue;
    if (!d.away(u)) {
      // Standing in for the requester: never asked about that request.
      if (!d.delegatorsOf(u).includes(requester)) out.add(u);
      continue;
    }
    const del = d.delegateOf(u);
    // A delegate who went away since is not asked either (their approvals were not handed on: one level).
    if (del && del !== requester && !voted.has(del) && !d.away(del)) out.add(del);
  }
  return [...out];
}

/** The people an approval already counts for: each approver and whom they stood in for. */
export const votedBy = (approvals: readonly { user: string; for?: readonly string[] }[]): Set<string> =>
  new Set(approvals.flatMap((a) => [a.user, ...(a.for ?? [])]));
