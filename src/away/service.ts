/**
 * Away states as store commits: the record, its audit entry (both people named) and the DMs it
 * owes (to the person when an admin set it, to the delegate named) in one commit, so none is
 * lost or sent twice across a crash. Roles are resolved by the caller before (they may ask Slack).
 */
import { randomUUID } from 'node:crypto';
import { appendAudit } from '../audit/log.js';
import type { Store, Tx } from '../store/index.js';
import { decideAway, decideBack, type AwayFacts } from './decide.js';
import { delegation, type Delegation } from './delegation.js';
import { AWAY, AWAY_NOTICES, type AwayNotice, type AwayRecord } from './state.js';

export interface AwayServiceOptions {
  store: Store;
  now: () => number;
  /** Enqueues a notice's DM in the same commit (src/slack/away-notices.ts). */
  notify?: (tx: Tx, n: AwayNotice) => void;
}

/** The admins as user ids (groups expanded by the caller): each is told of every delegation set or ended. */
type AdminFacts = { admins: readonly string[] };

export type AwayOutcome = { ok: true; record: AwayRecord } | { ok: false; message: string };

export function createAwayService(o: AwayServiceOptions) {
  const notice = (tx: Tx, n: Omit<AwayNotice, 'id' | 'at'>) => {
    const full: AwayNotice = { ...n, id: randomUUID(), at: new Date(o.now()).toISOString() };
    tx.put(AWAY_NOTICES, full.id, full);
    o.notify?.(tx, full);
  };

  /** Each admin but the one who acted (they read the answer) hears of a delegation set or ended: one DM each. */
  const tellAdmins = (tx: Tx, admins: readonly string[], actor: string, n: Omit<AwayNotice, 'id' | 'at' | 'to'>) => {
    for (const admin of new Set(admins)) if (admin !== actor) notice(tx, { ...n, to: admin });
  };

  async function setAway(
    input: { actor: string; target: string; until: number; delegate?: string | undefined },
    facts: Omit<AwayFacts, 'now' | 'records'> & AdminFacts,
  ): Promise<AwayOutcome> {
    return o.store.commit((tx) => {
      const decided = decideAway(input, { ...facts, now: o.now(), records: tx.all(AWAY) });
      if (!decided.ok) return decided;
      const r = decided.record;
      tx.put(AWAY, r.id, r);
      appendAudit(tx, {
        at: r.at,
        actor: input.actor,
        action: 'away_set',
        subject: r.id,
        details: { until: r.until, ...(r.delegate ? { delegate: r.delegate } : {}), setBy: input.actor },
      });
      if (input.actor !== input.target)
        notice(tx, {
          kind: 'set-for-you',
          to: r.id,
          user: r.id,
          by: input.actor,
          until: r.until,
          ...(r.delegate ? { delegate: r.delegate } : {}),
        });
      if (r.delegate) {
        notice(tx, { kind: 'delegate', to: r.delegate, user: r.id, by: input.actor, until: r.until });
        tellAdmins(tx, facts.admins, input.actor, {
          kind: 'admins-set',
          user: r.id,
          by: input.actor,
          until: r.until,
          delegate: r.delegate,
        });
      }
      return { ok: true as const, record: r };
    });
  }

  async function back(
    input: { actor: string; target: string },
    facts: Pick<AwayFacts, 'actorIsAdmin' | 'name'> & AdminFacts,
  ): Promise<AwayOutcome> {
    return o.store.commit((tx) => {
      const decided = decideBack(input, { ...facts, now: o.now(), records: tx.all(AWAY) });
      if (!decided.ok) return decided;
      tx.delete(AWAY, input.target);
      appendAudit(tx, {
        at: new Date(o.now()).toISOString(),
        actor: input.actor,
        action: 'away_back',
        subject: input.target,
        details: { wasUntil: decided.was.until, ...(decided.was.delegate ? { delegate: decided.was.delegate } : {}) },
      });
      if (input.actor !== input.target)
        notice(tx, { kind: 'back-for-you', to: input.target, user: input.target, by: input.actor });
      if (decided.was.delegate)
        tellAdmins(tx, facts.admins, input.actor, {
          kind: 'admins-ended',
          user: input.target,
          by: input.actor,
          delegate: decided.was.delegate,
        });
      return { ok: true as const, record: decided.was };
    });
  }

  return {
    setAway,
    back,
    /** Who stands in for whom now. */
    now: (): Delegation => delegation(o.store.all(AWAY), o.now()),
  };
}

export type AwayService = ReturnType<typeof createAwayService>;

/** Who stands in for whom at `now`, from the store (for the parts that only read it). */
export const delegationIn = (read: { all: Store['all'] }, now: number): Delegation => delegation(read.all(AWAY), now);
