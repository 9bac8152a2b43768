/**
 * The team's queue: every open withdrawal request, and what each still waits for, as data.
 * Pure: the policy, the requests, the time and whether sends are frozen in; ids out. The
 * Slack side (/treasury pending, the App Home) only renders it, so "what it still needs" is
 * the same rule the approval decider applies (rules.ts: reservedFor, approvalsComplete).
 */
import type { Policy } from '../policy/schema.js';
import { reservedFor, unfilledPlaces } from './rules.js';
import { NOBODY_AWAY, votedBy, type Delegation } from '../away/delegation.js';
import type { WithdrawalRequest, WithdrawalState } from './types.js';

/**
 * What a request still waits for.
 * - approvals: `more` approvals, from any of `from` (user or group ids; ['*']: any approver);
 *   `mustInclude`: tier entries nobody has satisfied yet; `onlyFrom`: every slot left is
 *   reserved for them, so `from` is exactly those entries.
 * - admin: an admin decides (`why`: a repeat on hold, an unknown outcome to resolve); `who` are the admins.
 * - unfreeze: every approval is in; sent once two admins unfreeze.
 * - sending: nothing from anyone; it is being sent.
 */
export type StillNeeds =
  | {
      kind: 'approvals';
      more: number;
      from: string[];
      mustInclude: string[];
      onlyFrom: boolean;
      /** Of the people named in `from` and `mustInclude`, those away now, and who stands in for each (src/away). */
      away?: AwayNow[];
    }
  | { kind: 'admin'; why: 'hold' | 'unknown'; who: string[] }
  | { kind: 'unfreeze'; who: string[] }
  | { kind: 'sending' };

export interface QueueEntry {
  request: WithdrawalRequest;
  needs: StillNeeds;
  /** A repeat on hold (hold/): not sent until an admin chooses. */
  held: boolean;
  /** Sends are frozen: nothing is sent until two admins unfreeze. */
  frozen: boolean;
  /** Since the request was made. */
  ageMs: number;
  /** Until it expires (0 when past it); only while approvals are awaited. */
  leftMs?: number;
}

/** Someone the request waits on who is away: until when, and their delegate (absent: nobody stands in). */
export interface AwayNow {
  user: string;
  until: string;
  delegate?: string;
}

/** The states in the queue: waiting for people, or on their way (an unknown outcome waits for an admin). */
export const QUEUE_STATES: readonly WithdrawalState[] = ['pending', 'approved', 'executing', 'unknown'];

/**
 * Who may still give an approval: the policy's approvers (users, groups, or '*'), never the
 * requester nor someone who approved already; when the slots left are reserved for the tier's
 * must_include entries, only those.
 */
export function stillNeeds(
  r: WithdrawalRequest,
  policy: Policy,
  frozen: boolean,
  d: Delegation = NOBODY_AWAY,
): StillNeeds {
  const admins = [...policy.people.admins];
  if (r.state === 'unknown') return { kind: 'admin', why: 'unknown', who: admins };
  if (r.state !== 'pending') {
    if (r.hold && r.state === 'approved') return { kind: 'admin', why: 'hold', who: admins };
    return frozen && r.state === 'approved' ? { kind: 'unfreeze', who: admins } : { kind: 'sending' };
  }
  const mustInclude = unfilledPlaces(r.tier.mustInclude, r.approvals);
  const reserved = reservedFor(r);
  // A delegate's approval is their delegator's vote too (src/away).
  const approved = votedBy(r.approvals);
  const more = Math.max(0, r.tier.approvals - r.approvals.length, mustInclude.length);
  const awayOf = (ids: readonly string[]) => {
    const out: AwayNow[] = [];
    for (const id of new Set(ids)) {
      const rec = d.away(id);
      if (rec) out.push({ user: id, until: rec.until, ...(rec.delegate ? { delegate: rec.delegate } : {}) });
    }
    return out.length ? { away: out } : {};
  };
  if (reserved.length)
    return {
      kind: 'approvals',
      more,
      from: reserved,
      mustInclude,
      onlyFrom: true,
      ...awayOf([...reserved, ...mustInclude]),
    };
  const approvers = policy.people.approvers;
  const from = approvers.includes('*') ? ['*'] : approvers.filter((a) => a !== r.requester && !approved.has(a));
  return { kind: 'approvals', more, from, mustInclude, onlyFrom: false, ...awayOf([...from, ...mustInclude]) };
}

/** The open requests, the one expiring first at the top (then the oldest), each with what it still needs. */
export function teamQueue(
  requests: readonly WithdrawalRequest[],
  policy: Policy,
  now: number,
  frozen: boolean,
  d: Delegation = NOBODY_AWAY,
): QueueEntry[] {
  return requests
    .filter((r) => QUEUE_STATES.includes(r.state))
    .map((r): QueueEntry => {
      const entry: QueueEntry = {
        request: r,
        needs: stillNeeds(r, policy, frozen, d),
        held: !!r.hold && (r.state === 'pending' || r.state === 'approved'),
        frozen: frozen && (r.state === 'pending' || r.state === 'approved'),
        ageMs: Math.max(0, now - Date.parse(r.createdAt)),
      };
      if (r.state === 'pending') entry.leftMs = Math.max(0, Date.parse(r.expiresAt) - now);
      return entry;
    })
    .sort(
      (a, b) =>
        (a.leftMs ?? Number.MAX_SAFE_INTEGER) - (b.leftMs ?? Number.MAX_SAFE_INTEGER) ||
        b.ageMs - a.ageMs ||
        a.request.id.localeCompare(b.request.id),
    );
}
