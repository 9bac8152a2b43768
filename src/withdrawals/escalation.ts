/**
 * Escalation of a request still short of approvals (issue 39): at `escalate_after` (default half
 * its time to expiry, at least a minute) each approver it still needs is DMed once (someone away
 * is not; their delegate is); at twice that, the escalation channel (or each admin, by DM) is told
 * what it waits on and who is away. Nobody gets more than one such message per 4 hours across all
 * requests: several waiting requests are one message, and a person reminded lately is told at the
 * next run past their 4 hours (if the request still waits). Every step is a store commit holding
 * the marks, the audit entries and the outbox entries together, so a restart or a failover finds
 * what was sent and sends nothing twice.
 */
import { randomUUID } from 'node:crypto';
import { appendAudit } from '../audit/log.js';
import { delegationIn } from '../away/service.js';
import { serializeError, type Logger } from '../log.js';
import type { GroupResolver } from '../policy/people.js';
import { escalateAfter } from '../policy/schema-patterns.js';
import type { Policy } from '../policy/schema.js';
import type { PolicySource } from '../policy/source.js';
import { collection, type Store, type Tx } from '../store/index.js';
import { mayNudge, PERSON_NUDGES } from './nudges.js';
import { reminderRecipients } from './reminders.js';
import { WITHDRAWALS } from './shell.js';
import { SYSTEM, type WithdrawalRequest } from './types.js';

/** Per request and deadline: who was DMed for it, and when the escalation post went. */
export interface EscalationMark {
  id: string;
  requestId: string;
  told: string[];
  postedAt?: string;
}
/** One message: to a person (`user`) or the escalation channel, about these requests. */
export interface EscalationNotice {
  id: string;
  kind: 'dm' | 'post';
  user?: string;
  channel?: string;
  stage: 'dm' | 'post';
  requests: string[];
  at: string;
}

/** Persisted names: never change them. */
export const ESCALATION_MARKS = collection<EscalationMark>('withdrawal_escalations');
export const ESCALATION_NOTICES = collection<EscalationNotice>('escalation_notices');

/** A stored mark is frozen: copied before this run adds to it. */
const copyMark = (m: EscalationMark | undefined): EscalationMark | undefined =>
  m ? { ...m, told: [...m.told] } : undefined;

export const escalationMarkId = (r: Pick<WithdrawalRequest, 'id' | 'expiresAt'>) => `${r.id}@${r.expiresAt}`;

/** Which stage a pending request has reached at `now`: none, the DM, or the post too. */
export function escalationStage(r: WithdrawalRequest, policy: Policy, now: number): 'none' | 'dm' | 'post' {
  if (r.state !== 'pending' || now >= Date.parse(r.expiresAt)) return 'none';
  const after = escalateAfter(policy.withdrawals);
  const since = now - Date.parse(r.createdAt);
  return since >= 2 * after ? 'post' : since >= after ? 'dm' : 'none';
}

export interface Escalations {
  /** One pass: the DMs and posts now due; returns how many messages were queued. */
  run(): Promise<number>;
}

export function createEscalations(o: {
  store: Store;
  policy: PolicySource;
  groups?: GroupResolver;
  now: () => number;
  logger: Logger;
  /** Inside the commit: the message, through the outbox (src/slack/escalation-words.ts). */
  enqueue: (tx: Tx, n: EscalationNotice) => void;
}): Escalations {
  async function members(policy: Policy): Promise<Map<string, readonly string[]>> {
    const out = new Map<string, readonly string[]>();
    const entries = [
      ...policy.people.approvers,
      ...policy.people.admins,
      ...Object.values(policy.withdrawals.tiers)
        .flat()
        .flatMap((t) => t.must_include),
    ];
    for (const e of entries)
      if (e.startsWith('S') && !out.has(e) && o.groups) out.set(e, await o.groups.membersOf(e).catch(() => []));
    return out;
  }

  return {
    async run() {
      const policy = o.policy.current();
      const t0 = o.now();
      if (!o.store.find(WITHDRAWALS, (r) => escalationStage(r, policy, t0) !== 'none').length) return 0;
      const groups = await members(policy);
      try {
        return await o.store.commit((tx) => {
          const now = o.now();
          const at = new Date(now).toISOString();
          const away = delegationIn(tx, now);
          const due = tx.all(WITHDRAWALS).filter((r) => escalationStage(r, policy, now) !== 'none');
          const marks = new Map(
            due.map((r) => [
              r.id,
              copyMark(tx.get(ESCALATION_MARKS, escalationMarkId(r))) ?? {
                id: escalationMarkId(r),
                requestId: r.id,
                told: [],
              },
            ]),
          );
          // Per person, every request they are still needed on and were not told of yet.
          const byPerson = new Map<string, WithdrawalRequest[]>();
          for (const r of due) {
            const told = new Set(marks.get(r.id)!.told);
            for (const u of reminderRecipients(r, policy, (g) => groups.get(g) ?? [], away))
              if (!told.has(u)) byPerson.set(u, [...(byPerson.get(u) ?? []), r]);
          }
          let sent = 0;
          const notice = (n: Omit<EscalationNotice, 'id' | 'at'>) => {
            const full: EscalationNotice = { ...n, id: randomUUID(), at };
            tx.put(ESCALATION_NOTICES, full.id, full);
            o.enqueue(tx, full);
            sent++;
            return full;
          };
          for (const [user, rs] of byPerson) {
            if (!mayNudge(tx, user, now)) continue;
            notice({ kind: 'dm', user, stage: 'dm', requests: rs.map((r) => r.id) });
            tx.put(PERSON_NUDGES, user, { id: user, at });
            for (const r of rs) marks.get(r.id)!.told.push(user);
            appendAudit(tx, {
              at,
              actor: SYSTEM,
              action: 'escalate_dm',
              subject: user,
              details: { requests: rs.map((r) => r.id) },
            });
          }
          // Twice the time: the escalation channel, or each admin (a person: the 4 hours hold).
          const toPost = due.filter((r) => escalationStage(r, policy, now) === 'post' && !marks.get(r.id)!.postedAt);
          if (toPost.length) {
            const ids = toPost.map((r) => r.id);
            const channel = policy.channels.escalation;
            let reached = false;
            if (channel) {
              notice({ kind: 'post', channel, stage: 'post', requests: ids });
              reached = true;
            } else {
              const admins = new Set(
                policy.people.admins.flatMap((a) => (a.startsWith('S') ? [...(groups.get(a) ?? [])] : [a])),
              );
              for (const admin of admins) {
                // An admin away is not told (nobody would read it): the others are; with all away, the next run tries again.
                if (away.away(admin) || !mayNudge(tx, admin, now)) continue;
                notice({ kind: 'dm', user: admin, stage: 'post', requests: ids });
                tx.put(PERSON_NUDGES, admin, { id: admin, at });
                reached = true;
              }
            }
            // Marked only once someone was told: otherwise the next run past the 4 hours tries again.
            if (reached)
              for (const r of toPost) {
                marks.get(r.id)!.postedAt = at;
                appendAudit(tx, {
                  at,
                  actor: SYSTEM,
                  action: 'escalate_post',
                  subject: r.id,
                  details: { ...(channel ? { channel } : { to: 'admins' }), waitingSince: r.createdAt },
                });
              }
          }
          for (const m of marks.values()) if (m.told.length || m.postedAt) tx.put(ESCALATION_MARKS, m.id, m);
          return sent;
        });
      } catch (err) {
        o.logger.warn({ err: serializeError(err) }, 'could not escalate the requests short of approvals');
        return 0;
      }
    },
  };
}
