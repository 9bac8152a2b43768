/**
 * One reminder by DM to the approvers a request still needs, once 75% of its time to expiry
 * has passed. Never twice: a durable mark per request and deadline (`APPROVER_REMINDERS`) is
 * written in the same commit as the DMs' outbox entries, so a restart finds the mark and sends
 * nothing again, and a crash before the commit leaves neither (the next run does both).
 * The thread reminder (`remind_before`, rules.ts reminderDue) is separate: it speaks in the
 * approvals channel; this one reaches each person still needed, by name.
 */
import { appendAudit } from '../audit/log.js';
import { serializeError, type Logger } from '../log.js';
import type { GroupResolver } from '../policy/people.js';
import type { Policy } from '../policy/schema.js';
import type { PolicySource } from '../policy/source.js';
import { collection, type Store, type Tx } from '../store/index.js';
import { stillNeeds } from './queue.js';
import { NOBODY_AWAY, routeAsks, votedBy, type Delegation } from '../away/delegation.js';
import { delegationIn } from '../away/service.js';
import { mayNudge, nudged } from './nudges.js';
import { WITHDRAWALS } from './shell.js';
import { SYSTEM, type WithdrawalRequest } from './types.js';

/** The share of a request's time to expiry after which the approvers still needed are reminded. */
export const REMIND_AT_SHARE = 0.75;

export interface ApproverReminder {
  requestId: string;
  /** The deadline it was sent for: a request given a new deadline (waiting again) is reminded again. */
  expiresAt: string;
  at: string;
  users: string[];
}

/** One record per request and deadline; the persisted name must never change. */
export const APPROVER_REMINDERS = collection<ApproverReminder>('withdrawal_approver_reminders');

export const reminderMarkId = (r: Pick<WithdrawalRequest, 'id' | 'expiresAt'>) => `${r.id}@${r.expiresAt}`;

/** Pending, past 75% of its time between request and expiry, not expired yet. */
export function approverReminderDue(r: WithdrawalRequest, now: number): boolean {
  if (r.state !== 'pending') return false;
  const created = Date.parse(r.createdAt);
  const expires = Date.parse(r.expiresAt);
  return now < expires && now >= created + (expires - created) * REMIND_AT_SHARE;
}

const isUser = (id: string) => /^[UW][A-Z0-9]+$/.test(id);

/**
 * The people to DM: those `stillNeeds` names (groups as their members), never the requester nor
 * someone who approved. "Anyone" ('*') is nobody by DM: the card's thread reminder reaches them.
 */
export function reminderRecipients(
  r: WithdrawalRequest,
  policy: Policy,
  members: (group: string) => readonly string[],
  away: Delegation = NOBODY_AWAY,
): string[] {
  const needs = stillNeeds(r, policy, false);
  if (needs.kind !== 'approvals') return [];
  const out = new Set<string>();
  for (const entry of needs.from) {
    if (isUser(entry)) out.add(entry);
    else if (entry.startsWith('S')) for (const m of members(entry)) if (isUser(m)) out.add(m);
  }
  // Someone away is not reminded; their delegate is (src/away).
  return routeAsks([...out], away, r.requester, votedBy(r.approvals));
}

export interface ApproverReminders {
  /** Reminds every request now due and not reminded for its deadline; returns the ids reminded. */
  run(): Promise<string[]>;
}

export function createApproverReminders(o: {
  store: Store;
  policy: PolicySource;
  groups?: GroupResolver;
  now: () => number;
  logger: Logger;
  /** Inside the mark's commit: the DMs, through the outbox (the Slack side renders them). */
  enqueue: (tx: Tx, r: WithdrawalRequest, users: readonly string[]) => void;
}): ApproverReminders {
  async function membersOf(policy: Policy): Promise<Map<string, readonly string[]>> {
    const out = new Map<string, readonly string[]>();
    for (const entry of [
      ...policy.people.approvers,
      ...Object.values(policy.withdrawals.tiers)
        .flat()
        .flatMap((t) => t.must_include),
    ])
      if (entry.startsWith('S') && !out.has(entry) && o.groups)
        // A group Slack cannot list now: its members are not reminded this time, the named people are.
        out.set(entry, await o.groups.membersOf(entry).catch(() => []));
    return out;
  }

  return {
    async run() {
      const t = o.now();
      const due = o.store
        .find(WITHDRAWALS, (r) => approverReminderDue(r, t))
        .filter((r) => !o.store.get(APPROVER_REMINDERS, reminderMarkId(r)));
      if (!due.length) return [];
      const policy = o.policy.current();
      const groups = await membersOf(policy);
      const done: string[] = [];
      for (const seen of due) {
        try {
          await o.store.commit((tx) => {
            // Read again inside the commit: decided, expired or reminded meanwhile is left alone.
            const r = tx.get(WITHDRAWALS, seen.id);
            if (!r || !approverReminderDue(r, o.now()) || tx.get(APPROVER_REMINDERS, reminderMarkId(r))) return;
            // Nobody reminded in the last 4 hours (an escalation DM, another reminder) is reminded again now.
            const users = reminderRecipients(r, policy, (g) => groups.get(g) ?? [], delegationIn(tx, o.now())).filter(
              (u) => mayNudge(tx, u, o.now()),
            );
            const at = new Date(o.now()).toISOString();
            nudged(tx, users, at);
            tx.put(APPROVER_REMINDERS, reminderMarkId(r), { requestId: r.id, expiresAt: r.expiresAt, at, users });
            appendAudit(tx, {
              at,
              actor: SYSTEM,
              action: 'remind',
              subject: r.id,
              details: { via: 'dm', users, expiresAt: r.expiresAt },
            });
            o.enqueue(tx, r, users);
            done.push(r.id);
          });
        } catch (err) {
          o.logger.warn({ err: serializeError(err), id: seen.id }, 'could not remind the approvers of a withdrawal');
        }
      }
      return done;
    },
  };
}
